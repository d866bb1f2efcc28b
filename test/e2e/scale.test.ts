// A crawl of a generated 20,000-page web (ten hosts, delays off) to its end: every page fetched
// once and stored, nothing left queued, nothing fetched twice. The frontier holds 500 URLs in
// memory (50 a host) while about 10,000 are queued: most wait in the database and are read back
// as their hosts run low. Nothing here is about time: the memory and speed of this size are the
// benchmarks' (npm run bench:memory, bench:crawl).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { crawl } from '../../shared/library/crawl.js';
import { openStore } from '../../shared/library/store.js';
import type { RunSummary } from '../../shared/ports/index.js';
import { tempDir } from '../../support/helpers.js';
import { startGeneratedWeb, type GeneratedWeb } from '../../support/web/generated.js';

let web: GeneratedWeb;
let data: ReturnType<typeof tempDir>;
let summary: RunSummary;
let mostQueued = 0;

before(async () => {
  web = await startGeneratedWeb({ hosts: 10, pages: 20_000 });
  data = tempDir();
  summary = await crawl(web.seeds(), {
    data: data.dir,
    allowPrivateNetwork: true,
    delayMs: 0,
    maxRps: 0,
    maxPages: 100_000,
    maxPagesPerHost: 100_000,
    extract: 'links',
    frontierMemory: 500,
    env: {},
    onEvent: (e) => {
      if (e.type === 'progress') mostQueued = Math.max(mostQueued, e.queued);
    },
  });
});

after(async () => {
  await web?.close();
  data?.cleanup();
});

test('a 20,000-page web is crawled to its end: every page stored, none queued', () => {
  assert.equal(summary.status, 'finished');
  assert.equal(summary.pagesStored, web.pages);
  assert.equal(summary.urlsByState.queued ?? 0, 0);
  assert.equal(summary.urlsByState.in_flight ?? 0, 0);
  assert.equal(summary.urlsByState.done, web.pages);
  assert.ok(mostQueued > 5_000, `the frontier reached ${mostQueued} queued URLs: far past the 500 held in memory`);
});

test('no page is fetched twice, and every request is one the server answered', async () => {
  const twice = [...web.hits].filter(([, n]) => n > 1);
  assert.deepEqual(twice, []);
  assert.equal(web.requests(), web.pages + 10, 'each page once, and each robots.txt');
  const store = openStore(data.dir);
  try {
    assert.equal((await store.summary())?.requests, web.pages + 10);
  } finally {
    await store.close();
  }
});
