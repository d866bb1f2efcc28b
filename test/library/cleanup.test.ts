// Cleanup that survives failure. A crawl whose context cannot be built (a data directory
// whose warc/ is a file) releases the directory, so the same process (or another) can crawl into
// it afterwards; every closer runs even when one throws, and the failures come back together.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { crawl } from '../../shared/index.js';
import { Closers } from '../../shared/util/closer.js';
import { withWeb } from '../../support/crawl-helpers.js';

const local = { allowPrivateNetwork: true, delayMs: 0, maxRps: 0, env: {} };

test('a crawl whose context fails to build leaves no lock behind, and the next crawl takes the directory', async () => {
  await withWeb({ articles: 2, blogHosts: 1, crawlDelaySeconds: 0 }, async (web, data) => {
    mkdirSync(data, { recursive: true });
    writeFileSync(join(data, 'warc'), 'not a directory');
    await assert.rejects(crawl([`${web.origins.blog1}/`], { ...local, data, maxPages: 3 }));
    assert.equal(existsSync(join(data, 'trawl.lock')), false, 'the lock is released');
    rmSync(join(data, 'warc'));
    const summary = await crawl([`${web.origins.blog1}/`], { ...local, data, maxPages: 3 });
    assert.equal(summary.status, 'finished');
  });
});

test('every closer runs, last opened first, and their failures come back together', async () => {
  const ran: string[] = [];
  const closers = new Closers();
  closers.add(() => ran.push('store'));
  closers.add(() => {
    ran.push('context');
    throw new Error('context');
  });
  closers.add(async () => {
    ran.push('providers');
    throw new Error('providers');
  });
  await assert.rejects(closers.close(), (err: unknown) => err instanceof AggregateError && err.errors.length === 2);
  assert.deepEqual(ran, ['providers', 'context', 'store']);
  const one = new Closers();
  one.add(() => {
    throw new Error('only');
  });
  await assert.rejects(one.close(), /only/);
  await new Closers().close();
});
