// One writer per data directory, validation before any change, and damage found before new writes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, statSync, truncateSync, writeSync, closeSync } from 'node:fs';
import { join } from 'node:path';
import { SqliteCrawlStore } from '../../shared/store/local/sqlite-store.js';
import { LOCK_FILE } from '../../shared/store/local/data-lock.js';
import { tempDir } from '../../support/helpers.js';
import { runCli, startCli } from './cli-process.js';
import { withWeb } from '../../support/crawl-helpers.js';
import { letterVector, modelServer } from '../enrich/model-servers.js';

/** Every file of a directory with its size and content hash: what "unchanged" means. */
function snapshot(dir: string): Record<string, string> {
  if (!existsSync(dir)) return {};
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const path = join(d, name);
      if (statSync(path).isDirectory()) walk(path);
      else out[path.slice(dir.length)] = createHash('sha256').update(readFileSync(path)).digest('hex');
    }
  };
  walk(dir);
  return out;
}

async function waitFor(check: () => boolean, ms = 60_000): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 50));
  }
}

// A crawl of the 34-page site that takes about 50 s: a loaded machine's CLI calls beside it never outlast it.
const slowCrawl = (seeds: string[], dir: string, extra: string[] = []) => [
  'crawl',
  ...seeds,
  '--data',
  dir,
  '--allow-private-network',
  '--delay-ms',
  '1500',
  '--max-rps',
  '0',
  ...extra,
];

test('a second crawl on the same data directory fails at once naming the first; reads keep working', async () => {
  await withWeb({ articles: 30, blogHosts: 1, crawlDelaySeconds: 0 }, async (web, dir) => {
    const first = startCli(slowCrawl([`${web.origins.blog1}/`], dir));
    try {
      await waitFor(() => existsSync(join(dir, LOCK_FILE)) && web.log.length > 2);
      const second = await runCli(['crawl', `${web.origins.blog1}/`, '--data', dir, '--allow-private-network']);
      assert.equal(second.code, 2);
      assert.match(second.stderr, new RegExp(`in use by another trawl process \\(pid ${first.child.pid} on .*trawl crawl http`));
      assert.equal(second.stderr.trim().split('\n').length, 1);
      const status = await runCli(['status', '--data', dir]);
      assert.equal(status.code, 0, status.stderr);
      assert.match(status.stdout, /run 1 running/);
      // Reads work while the crawl writes: no ranks yet (they come at a run's end) is "nothing found".
      const top = await runCli(['graph', 'top', '--data', dir]);
      assert.ok(top.code === 0 || (top.code === 1 && /no ranked page yet/.test(top.stderr)), top.stderr);
      assert.ok(
        web.log.every((e) => e.concurrent === 1),
        'never two requests to the host at once',
      );
    } finally {
      first.child.kill('SIGINT');
      await first.done;
    }
    assert.equal(existsSync(join(dir, LOCK_FILE)), false, 'a clean stop gives the lock back');
    // The interrupted run says how to go on: the same command, --resume instead of the seeds.
    const ended = await first.done;
    assert.match(ended.stdout, /run 1 interrupted/);
    const resume = ['trawl', 'crawl', '--resume', ...slowCrawl([], dir).slice(1)].join(' ');
    assert.ok(ended.stdout.trimEnd().endsWith(`interrupted: go on where it stopped with  ${resume}`), ended.stdout.slice(-400));
    // The same command again does not abandon the run: refused, naming both ways on.
    const again = await runCli(slowCrawl([`${web.origins.blog1}/`], dir));
    assert.equal(again.code, 2, again.stderr);
    assert.equal(
      again.stderr.trim(),
      `trawl: run 1 in ${dir} was interrupted: go on where it stopped with  ${resume}  or pass --new-run to start a new crawl (run 1 is then abandoned)`,
    );
    assert.match((await runCli(['status', '--data', dir])).stdout, /run 1 interrupted/);
    const fresh = await runCli(slowCrawl([`${web.origins.blog1}/`], dir, ['--new-run', '--max-pages', '2', '--delay-ms', '0']));
    assert.equal(fresh.code, 0, fresh.stderr);
    assert.match(fresh.stdout, /run 2 finished/);
  });
});

test('SIGTERM stops enrich: it says what was kept, exits 130 and frees the data directory', async () => {
  await withWeb({ articles: 12, blogHosts: 1, crawlDelaySeconds: 0 }, async (web, dir) => {
    const crawled = await runCli(['crawl', `${web.origins.blog1}/`, '--data', dir, '--allow-private-network', '--delay-ms', '0', '--max-rps', '0']);
    assert.equal(crawled.code, 0, crawled.stderr);
    // A slow model: each answer takes a second, so the signal comes while pages are still to do.
    const slow = await modelServer({
      '/v1/chat/completions': () => ({ delayMs: 1000, body: { choices: [{ index: 0, message: { role: 'assistant', content: 'A summary of the page.' } }] } }),
      '/v1/embeddings': (body) => ({ delayMs: 1000, body: { data: (body.input as string[]).map((t, index) => ({ index, embedding: letterVector(t, 16) })) } }),
    });
    try {
      const flags = ['enrich', '--data', dir, '--provider', 'openai', '--openai-base-url', `${slow.origin}/v1`, '--enrich-concurrency', '1'];
      const enrich = startCli(flags, { OPENAI_API_KEY: 'k' });
      await waitFor(() => slow.seen.length > 0);
      enrich.child.kill('SIGTERM');
      const stopped = await enrich.done;
      assert.equal(stopped.code, 130, stopped.stderr);
      assert.match(stopped.stdout, /stopped: what was enriched is kept and the data directory is free; trawl enrich goes on with the rest/);
      assert.equal(existsSync(join(dir, LOCK_FILE)), false, 'the lock is given back');
      const status = await runCli(['status', '--data', dir]);
      assert.equal(status.code, 0, status.stderr);
    } finally {
      await slow.close();
    }
  });
});

test('a lock left by a killed crawl is stale: the next crawl takes it over and resumes', async () => {
  await withWeb({ articles: 30, blogHosts: 1, crawlDelaySeconds: 0 }, async (web, dir) => {
    const first = startCli(slowCrawl([`${web.origins.blog1}/`], dir));
    await waitFor(() => existsSync(join(dir, LOCK_FILE)) && web.log.length > 2);
    first.child.kill('SIGKILL');
    await first.done;
    assert.equal(existsSync(join(dir, LOCK_FILE)), true, 'SIGKILL leaves the lock behind');
    const resumed = await runCli(['crawl', '--resume', '--data', dir, '--allow-private-network', '--delay-ms', '0', '--max-rps', '0']);
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.match(resumed.stdout, /run 1 finished/);
    assert.equal(existsSync(join(dir, LOCK_FILE)), false);
  });
});

test('a bad setting leaves the data directory exactly as it was, and the interrupted crawl resumable', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const store = new SqliteCrawlStore(dir);
    const run = await store.createRun(['http://a.test/'], {}, 1);
    await store.setRunStatus(run.id, 'interrupted', 2);
    await store.close();
    const before = snapshot(dir);
    for (const bad of [
      ['--deny', '/(/'],
      ['--user-agent', 'trawl\nX-Injected: 1'],
      ['--delay-ms', '3000000000'],
      ['--max-rps', '1e-9'],
    ]) {
      const r = await runCli(['crawl', 'http://a.test/', '--data', dir, ...bad]);
      assert.equal(r.code, 2, `${bad.join(' ')}: ${r.stderr}`);
      assert.equal(r.stderr.trim().split('\n').length, 1);
      assert.deepEqual(snapshot(dir), before, bad.join(' '));
    }
    const reopened = new SqliteCrawlStore(dir, { readonly: true });
    assert.equal((await reopened.latestRun())?.status, 'interrupted');
    await reopened.close();
  } finally {
    cleanup();
  }
});

test('--resume with nothing to resume creates nothing', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const missing = join(dir, 'never-used');
    const r = await runCli(['crawl', '--resume', '--data', missing]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /nothing to resume in .*never-used: no crawl has run there/);
    assert.equal(existsSync(missing), false);
    const empty = join(dir, 'empty');
    mkdirSync(empty);
    assert.equal((await runCli(['crawl', '--resume', '--data', empty])).code, 2);
    assert.deepEqual(readdirSync(empty), []);
    const store = new SqliteCrawlStore(join(dir, 'done'));
    const run = await store.createRun([], {}, 1);
    await store.setRunStatus(run.id, 'finished', 2);
    await store.close();
    const before = snapshot(join(dir, 'done'));
    const finished = await runCli(['crawl', '--resume', '--data', join(dir, 'done')]);
    assert.match(finished.stderr, /run 1\) is finished with nothing deferred/);
    assert.deepEqual(snapshot(join(dir, 'done')), before);
  } finally {
    cleanup();
  }
});

/** A data directory whose database holds a run of `n` fetch records (a file of a few MB). */
async function storeWithFetches(dir: string, n: number, status?: 'finished'): Promise<void> {
  const store = new SqliteCrawlStore(dir);
  const run = await store.createRun(['http://a.test/'], {}, 1);
  for (let i = 0; i < n; i++) {
    await store.recordFetch({
      runId: run.id,
      urlId: `u${i}`,
      url: `http://a.test/page/${i}`,
      kind: 'page',
      fetcher: 'http',
      status: 200,
      fetchedAt: i,
      durationMs: 1,
      bytes: 10,
      truncated: false,
      notModified: false,
      headers: { 'x-pad': 'p'.repeat(200) },
    });
  }
  if (status) await store.setRunStatus(run.id, status, 5000);
  await store.close();
}

test('damage in the middle of trawl.db is found at open; doctor reports it and --repair salvages the rest', async () => {
  const { dir, cleanup } = tempDir();
  try {
    await storeWithFetches(dir, 3000, 'finished');
    const file = join(dir, 'trawl.db');
    const size = statSync(file).size;
    const fd = openSync(file, 'r+');
    writeSync(fd, Buffer.alloc(4096 * 3, 0x55), 0, 4096 * 3, Math.floor(size / 2 / 4096) * 4096);
    closeSync(fd);

    const crawl = await runCli(['crawl', 'http://127.0.0.1:9/', '--data', dir, '--allow-private-network']);
    assert.equal(crawl.code, 2);
    assert.match(crawl.stderr, /trawl\.db is damaged .*trawl doctor --data .*trawl doctor --repair/);
    const diagnosis = await runCli(['doctor', '--data', dir]);
    assert.equal(diagnosis.code, 1);
    assert.match(diagnosis.stdout, /problem\(s\) found/);
    const repair = await runCli(['doctor', '--repair', '--data', dir]);
    assert.equal(repair.code, 0, repair.stderr);
    assert.match(repair.stdout, /repaired: \d+ rows copied/);
    assert.ok(
      readdirSync(dir).some((f) => f.startsWith('trawl.db.damaged-')),
      'the damaged file is kept',
    );
    const healed = new SqliteCrawlStore(dir, { check: true });
    assert.equal((await healed.latestRun())?.status, 'finished');
    const kept = (healed.db.prepare('SELECT count(*) AS n FROM fetches').get() as { n: number }).n;
    assert.ok(kept > 2000 && kept <= 3000, `${kept} fetch records salvaged`);
    await healed.close();
  } finally {
    cleanup();
  }
});

test('a truncated trawl.db: doctor says plainly that nothing can be read, --repair leaves it as it was and no partial file', async () => {
  const { dir, cleanup } = tempDir();
  try {
    await storeWithFetches(dir, 3000);
    const file = join(dir, 'trawl.db');
    truncateSync(file, Math.floor(statSync(file).size / 2));
    const before = readFileSync(file);
    const diagnosis = await runCli(['doctor', '--data', dir]);
    assert.equal(diagnosis.code, 1);
    assert.match(diagnosis.stdout, /trawl\.db is truncated: \d+ bytes of the \d+ its header records/);
    assert.match(diagnosis.stdout, /nothing can be salvaged from it: trawl doctor --rebuild --data .* makes a new one from the WARC files/);
    assert.doesNotMatch(diagnosis.stderr, /SQLITE_CORRUPT/);
    const repair = await runCli(['doctor', '--repair', '--data', dir]);
    assert.notEqual(repair.code, 0);
    assert.match(repair.stderr, /nothing can be read from .*trawl\.db: .*truncated.*It is left as it is/);
    assert.deepEqual(readFileSync(file), before, 'the file is left as it was');
    assert.deepEqual(
      readdirSync(dir).filter((f) => f.includes('.repair-')),
      [],
      'no partial repair file',
    );
  } finally {
    cleanup();
  }
});

test("doctor checks the archive against the records: a missing body (a large one's file, a small one's row) and a WARC file cut short are named, the database called sound", async () => {
  await withWeb({ articles: 6, blogHosts: 1, crawlDelaySeconds: 0, heavy: { pdfs: 0, redirects: 0 } }, async (web, dir) => {
    // `/big` is a 20 MB page, kept to --max-body-bytes: past 256 KiB, its body is a file under blobs/.
    const crawl = await runCli([
      'crawl',
      `${web.origins.blog1}/`,
      `${web.origins.blog1}/big`,
      '--data',
      dir,
      '--allow-private-network',
      '--delay-ms',
      '0',
      '--max-pages',
      '8',
      '--max-body-bytes',
      '1000000',
    ]);
    assert.equal(crawl.code, 0, crawl.stderr);
    const sound = await runCli(['doctor', '--data', dir]);
    assert.equal(sound.code, 0, sound.stdout);
    const counts = /archive: (\d+) WARC file\(s\), 0 missing, 0 cut short; (\d+) bodies, 0 missing/.exec(sound.stdout);
    assert.ok(counts && Number(counts[1]) > 0 && Number(counts[2]) > 0, sound.stdout);

    const files: string[] = [];
    const walk = (d: string) => {
      for (const e of readdirSync(d, { withFileTypes: true })) {
        if (e.isDirectory()) walk(join(d, e.name));
        else files.push(join(d, e.name));
      }
    };
    walk(join(dir, 'blobs'));
    assert.equal(files.length, 1, `only the large body is a file: ${files.join(' ')}`);
    rmSync(files[0]!);
    const store = new SqliteCrawlStore(dir);
    const small = store.db.prepare('SELECT hash FROM body_bytes LIMIT 1').get() as { hash: string };
    store.db.prepare('DELETE FROM body_bytes WHERE hash = ?').run(small.hash);
    await store.close();
    const warc = readdirSync(join(dir, 'warc')).find((f) => f.endsWith('.warc.gz'))!;
    truncateSync(join(dir, 'warc', warc), 100);
    const damaged = await runCli(['doctor', '--data', dir]);
    assert.equal(damaged.code, 1);
    assert.match(damaged.stdout, new RegExp(`1 WARC file\\(s\\) end before their last record: ${warc.replace(/\./g, '\\.')}`));
    assert.match(damaged.stdout, /2 of \d+ bodies are missing from both the database and blobs\/ \([0-9a-f]{64}, [0-9a-f]{64}\)/);
    assert.ok(damaged.stdout.includes(small.hash), damaged.stdout);
    assert.match(damaged.stdout, /the database is sound; what is missing from warc\/ or blobs\/ cannot be rebuilt from it/);
  });
});
