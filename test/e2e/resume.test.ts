import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { startWeb, type SyntheticWeb } from '../web/server.js';
import { tempDir } from '../helpers.js';
import { crawlWeb, fetchCounts, openDb, testFlags } from './crawl-helpers.js';

const HOSTS = ['main', 'nobots', 'agent', 'blog1', 'blog2'];
const OPTIONS = { articles: 30, blogHosts: 2, crawlDelaySeconds: 0 };

/** Done URLs as host-name + path, comparable between two webs on different ports. */
function donePaths(web: SyntheticWeb, dataDir: string): Set<string> {
  const db = openDb(dataDir);
  const rows = db.prepare("SELECT url FROM frontier WHERE state IN ('done', 'duplicate')").all() as Array<{ url: string }>;
  db.close();
  return new Set(
    rows
      .map(({ url }) => {
        const u = new URL(url);
        return `${web.hostOf(u.origin)?.name}${u.pathname}${u.search}`;
      })
      .filter((p) => !p.includes('/calendar')),
  );
}

test('a crawl killed with SIGKILL resumes without losing stored work or refetching more than was in flight', async () => {
  const web = await startWeb(OPTIONS);
  const data = tempDir();
  const seeds = HOSTS.map((h) => `${web.origins[h]}/`);
  try {
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        'shared/cli/main.ts',
        'crawl',
        ...seeds,
        '--data',
        data.dir,
        '--allow-private-network',
        '--delay-ms',
        '20',
        '--max-rps',
        '0',
        '--json',
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    child.stdout.resume();
    const exited = new Promise((resolve) => child.once('exit', resolve));
    const deadline = Date.now() + 30_000;
    while (web.log.length < 60 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    child.kill('SIGKILL');
    await exited;
    assert.ok(web.log.length >= 60, 'the crawl got going before it was killed');
    const beforeKill = donePaths(web, data.dir);
    const requestsBeforeKill = web.log.length;

    const resumed = await crawlWeb(web, testFlags(data.dir, { resume: true, 'delay-ms': '20', json: true }), []);
    const start = JSON.parse(resumed.lines[0]!) as { type: string; runId: number; resumed: boolean; requeued: number };
    assert.deepEqual([start.type, start.runId, start.resumed], ['start', 1, true]);
    assert.equal(resumed.summary.status, 'finished');

    const after = donePaths(web, data.dir);
    for (const path of beforeKill) assert.ok(after.has(path), `kept ${path}`);
    const refetched = [...fetchCounts(web.log)].filter(([, n]) => n > 1).map(([k]) => k);
    assert.ok(refetched.length <= start.requeued, `refetched ${refetched.join(', ')} but only ${start.requeued} were in flight`);
    // In flight: one request per host (16 hosts at most) and the pages fetched but not yet committed (the processing queue, 64).
    assert.ok(start.requeued <= 16 + 64, `${start.requeued} in flight: at most a request per host and the processing queue`);
    assert.ok(web.log.length > requestsBeforeKill, 'the resumed crawl went on');

    const reference = await startWeb(OPTIONS);
    const refData = tempDir();
    try {
      await crawlWeb(
        reference,
        testFlags(refData.dir, { 'delay-ms': '0' }),
        HOSTS.map((h) => `${reference.origins[h]}/`),
      );
      assert.deepEqual([...after].sort(), [...donePaths(reference, refData.dir)].sort(), 'the resumed crawl ends where an uninterrupted one does');
    } finally {
      await reference.close();
      refData.cleanup();
    }
  } finally {
    await web.close();
    data.cleanup();
  }
});
