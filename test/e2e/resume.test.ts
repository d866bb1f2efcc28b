import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { startWeb, type SyntheticWeb } from '../../support/web/server.js';
import { tempDir } from '../../support/helpers.js';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { crawlWeb, fetchCounts, openDb, testFlags } from '../../support/crawl-helpers.js';
import { readWarc } from '../../shared/archive/warc-reader.js';
import { runCli } from './cli-process.js';

const HOSTS = ['main', 'nobots', 'agent', 'blog1', 'blog2'];
const OPTIONS = { articles: 30, blogHosts: 2, crawlDelaySeconds: 0 };

/** URLs in these frontier states as host-name + path, comparable between two webs on different ports. */
function pathsIn(web: SyntheticWeb, dataDir: string, states: string[]): Set<string> {
  const db = openDb(dataDir);
  const rows = db.prepare(`SELECT url FROM frontier WHERE state IN (${states.map(() => '?').join(', ')})`).all(...states) as Array<{ url: string }>;
  db.close();
  return new Set(
    rows.map(({ url }) => {
      const u = new URL(url);
      return `${web.hostOf(u.origin)?.name}${u.pathname}${u.search}`;
    }),
  );
}

/** Done URLs, calendar pages aside (which of them a run reaches depends on its order). */
const donePaths = (web: SyntheticWeb, dataDir: string) => new Set([...pathsIn(web, dataDir, ['done', 'duplicate'])].filter((p) => !p.includes('/calendar')));
const SETTLED = ['done', 'duplicate', 'skipped', 'failed'];

/** The 200 answers the WARC files hold, as host-name + path (what the web's log calls a request). */
async function archived200s(web: SyntheticWeb, dataDir: string): Promise<Set<string>> {
  const out = new Set<string>();
  const dir = join(dataDir, 'warc');
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.warc.gz'))) {
    for await (const r of readWarc(join(dir, file))) {
      if (r.type !== 'response' || r.http?.status !== 200 || !r.url) continue;
      const u = new URL(r.url);
      out.add(`${web.hostOf(u.origin)?.name}${u.pathname}${u.search}`);
    }
  }
  return out;
}

test('a crawl killed with SIGKILL resumes without losing stored work or asking again for what it archived', async () => {
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
    const archivedBeforeKill = await archived200s(web, data.dir);
    // Answered and archived, not yet committed: the pages the processing queue held.
    const settledBeforeKill = pathsIn(web, data.dir, SETTLED);
    const uncommitted = [...archivedBeforeKill].filter((p) => !settledBeforeKill.has(p) && !p.endsWith('/robots.txt'));

    // The same command again, as after a reboot: refused, naming --resume, before any request; status says interrupted.
    const again = await runCli(['crawl', ...seeds, '--data', data.dir, '--allow-private-network', '--delay-ms', '20', '--max-rps', '0']);
    assert.notEqual(again.code, 0, 'the plain rerun is refused');
    assert.match(again.stderr, /run 1 in .* was interrupted \(its crawl process is gone.*--resume/);
    assert.equal(web.log.length, requestsBeforeKill, 'the refused rerun made no request');
    const status = JSON.parse((await runCli(['status', '--data', data.dir, '--json'])).stdout.trim().split('\n').at(-1)!) as { status: string };
    assert.equal(status.status, 'interrupted');

    const resumed = await crawlWeb(web, testFlags(data.dir, { resume: true, 'delay-ms': '20', json: true }), []);
    const start = JSON.parse(resumed.lines[0]!) as { type: string; runId: number; resumed: boolean; requeued: number; fromArchive: number };
    assert.deepEqual([start.type, start.runId, start.resumed], ['start', 1, true]);
    assert.equal(resumed.summary.status, 'finished');

    const after = donePaths(web, data.dir);
    for (const path of beforeKill) assert.ok(after.has(path), `kept ${path}`);
    const settledAfter = pathsIn(web, data.dir, SETTLED);
    for (const path of uncommitted) assert.ok(settledAfter.has(path), `processed ${path} from the archive`);
    // No answer that reached the archive is asked for again: only requests that had not finished repeat.
    const answered200 = fetchCounts(web.log.filter((e) => e.status === 200 && !e.aborted));
    const askedAgain = [...archivedBeforeKill].filter((p) => (answered200.get(p) ?? 0) > 1);
    assert.deepEqual(askedAgain, [], `${uncommitted.length} archived but uncommitted; asked again: ${askedAgain.join(', ')}`);
    assert.ok(start.fromArchive >= uncommitted.length, `${start.fromArchive} processed from the archive, ${uncommitted.length} uncommitted`);
    const refetched = [...fetchCounts(web.log)].filter(([, n]) => n > 1).map(([k]) => k);
    // In flight: one request per host, whatever the processing queue held.
    assert.ok(refetched.length <= HOSTS.length, `refetched ${refetched.join(', ')}: more than one request per host`);
    assert.ok(refetched.length <= start.requeued, `refetched ${refetched.join(', ')} but only ${start.requeued} were in flight`);
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
