import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import Database from '../../shared/store/local/sqlite-driver.js';
import { SqliteCrawlStore } from '../../shared/store/local/sqlite-store.js';
import { backToSchema11, page, row } from '../store-records.js';
import { serve, tempDir } from '../../support/helpers.js';
import { runCli, type CliResult } from './cli-process.js';
import { openDb } from '../../support/crawl-helpers.js';
import { SCHEMA_VERSION } from '../../shared/store/local/schema.js';

const PAGES = 12;

/** `trawl <args>` with the files it may write capped at `maxKiB` (RLIMIT_FSIZE): writes past it fail as on a full disk (EFBIG, SQLite's write error). */
function runCapped(args: string[], maxKiB: number): Promise<CliResult> {
  const started = Date.now();
  const child = spawn('bash', ['-c', `ulimit -f ${maxKiB} && exec "$0" "$@"`, process.execPath, '--import', 'tsx', 'shared/cli/main.ts', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
  return new Promise((resolve) =>
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, ms: Date.now() - started });
    }),
  );
}

/** Words that do not compress: each page adds ~100 KB to the WARC file, the blobs and the database. */
const prose = (seed: number) =>
  Array.from(
    { length: 200 },
    (_, i) =>
      `<p>Paragraph ${seed}.${i}: ${randomBytes(280)
        .toString('base64')
        .replace(/(.{12})/g, '$1 ')}</p>`,
  ).join('\n');

test('a full disk ends the crawl with one clear line and its summary, the run interrupted; --resume finishes it with nothing lost', async () => {
  const server = await serve((req, res) => {
    const n = /^\/p(\d+)$/.exec(req.url ?? '');
    if (req.url === '/') {
      const links = Array.from({ length: PAGES }, (_, i) => `<li><a href="/p${i}">page ${i}</a></li>`).join('');
      return void res.writeHead(200, { 'content-type': 'text/html' }).end(`<html><head><title>Index</title></head><body><ul>${links}</ul></body></html>`);
    }
    if (n)
      return void res
        .writeHead(200, { 'content-type': 'text/html' })
        .end(`<html><head><title>Page ${n[1]}</title></head><body><article>${prose(Number(n[1]))}</article></body></html>`);
    res.writeHead(404).end();
  });
  const { dir, cleanup } = tempDir();
  const flags = ['--data', dir, '--allow-private-network', '--delay-ms', '0', '--max-rps', '0'];
  try {
    const full = await runCapped(['crawl', `${server.origin}/`, ...flags], 1024);
    assert.equal(full.code, 1, `exit code (stderr: ${full.stderr.slice(-2000)})`);
    const errors = full.stderr.split('\n').filter((l) => l.startsWith('trawl: '));
    assert.equal(errors.length, 1, full.stderr);
    assert.match(
      errors[0]!,
      /^trawl: the disk holding .* is full \((EFBIG|SQLITE_IOERR_WRITE|SQLITE_FULL|ENOSPC): .*\); the run is interrupted and what it stored is kept: free some space, then run `trawl crawl --resume --data .*` to go on where it stopped$/,
    );
    assert.match(full.stdout + full.stderr, /run 1 interrupted/, 'the run summary is printed');
    const db = openDb(dir);
    const before = db.prepare('SELECT url FROM pages WHERE status = 200').all() as Array<{ url: string }>;
    const status = (db.prepare('SELECT status FROM runs WHERE id = 1').get() as { status: string }).status;
    db.close();
    assert.equal(status, 'interrupted');
    assert.ok(before.length < PAGES + 1, `the cap stopped the crawl early (${before.length} pages stored)`);

    const resumed = await runCli(['crawl', '--resume', ...flags], 120_000);
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.match(resumed.stdout, /run 1 finished/);
    const after = openDb(dir);
    const pages = (after.prepare('SELECT url FROM pages WHERE status = 200').all() as Array<{ url: string }>).map((p) => p.url);
    after.close();
    assert.equal(pages.length, PAGES + 1, 'every page stored once the disk has room');
    for (const p of before) assert.ok(pages.includes(p.url), `${p.url} kept`);
  } finally {
    await server.close();
    cleanup();
  }
});

test('a migration that finds the disk full says so and leaves the directory as it was; with room it migrates', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const first = new SqliteCrawlStore(dir);
    const run = await first.createRun(['http://a.test/'], {}, 1);
    await first.addUrls([row(run.id, 'a')]);
    await first.commitFetch({
      runId: run.id,
      urlId: 'a',
      state: 'done',
      attempts: 1,
      page: page({ runId: run.id, urlId: 'a', contentHash: 'h1', fetchedAt: 5 }),
    });
    await first.close();
    // Back to data schema 11: the links WITHOUT ROWID, 20,000 of them (~8 MB for the migration to copy).
    const old = new Database(join(dir, 'trawl.db'));
    old.exec(`${backToSchema11('edges')}
      WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20000)
        INSERT INTO edges SELECT 'a', 'h1', 'to' || i, 'http://a.test/to' || i, 'link ' || i, printf('%.300c', 'x'), 'body', '', 1, 0, NULL FROM n;
      UPDATE meta SET value = '11' WHERE key = 'schema_version';
      PRAGMA wal_checkpoint(TRUNCATE);`);
    old.close();
    const state = () => {
      const db = new Database(join(dir, 'trawl.db'), { readonly: true });
      try {
        return {
          version: (db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").get() as { value: string }).value,
          links: (db.prepare('SELECT count(*) AS n FROM edges').get() as { n: number }).n,
          withoutRowid: /WITHOUT ROWID/.test((db.prepare("SELECT sql FROM sqlite_master WHERE name = 'edges'").get() as { sql: string }).sql),
        };
      } finally {
        db.close();
      }
    };
    const kib = Math.ceil(statSync(join(dir, 'trawl.db')).size / 1024);
    const full = await runCapped(['status', '--data', dir], kib + 256);
    assert.equal(full.code, 2, `a data directory trawl cannot use (stderr: ${full.stderr})`);
    assert.match(
      full.stderr,
      /^trawl: .*trawl\.db could not be migrated from data schema 11 to 12: the disk is full \((EFBIG|SQLITE_IOERR_WRITE|SQLITE_FULL|ENOSPC)\), and a migration may copy a whole table; the file is unchanged at schema 11: free some space, then run the command again$/m,
    );
    assert.deepEqual(state(), { version: '11', links: 20000, withoutRowid: true });
    const roomy = await runCli(['status', '--data', dir]);
    assert.equal(roomy.code, 0, roomy.stderr);
    assert.match(roomy.stderr, /migrated .* from data schema 11 to 12/);
    assert.deepEqual(state(), { version: String(SCHEMA_VERSION), links: 20000, withoutRowid: false });
  } finally {
    cleanup();
  }
});

test('a disk that fills while the directory is made or the run starts: one clear line, nothing half made, the run interrupted', async () => {
  const server = await serve((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(`<html><body>${prose(1)}</body></html>`));
  try {
    // Not even the tables fit: the creation is one transaction, so a later run with room starts afresh.
    const tiny = tempDir();
    try {
      const flags = ['--data', tiny.dir, '--allow-private-network', '--delay-ms', '0'];
      const full = await runCapped(['crawl', `${server.origin}/`, ...flags], 64);
      assert.equal(full.code, 2, full.stderr);
      assert.match(full.stderr, /^trawl: .*trawl\.db could not be written: the disk is full \(\w+\); free some space, then run the command again$/m);
      const again = await runCli(['crawl', `${server.origin}/`, ...flags], 120_000);
      assert.equal(again.code, 0, again.stderr);
      assert.match(again.stdout, /run 1 finished/);
    } finally {
      tiny.cleanup();
    }
    // The tables fit, the run's first writes do not: it ends interrupted, never left running.
    const small = tempDir();
    try {
      const full = await runCapped(['crawl', `${server.origin}/`, '--data', small.dir, '--allow-private-network', '--delay-ms', '0'], 256);
      assert.equal(full.code, 1, full.stderr);
      assert.match(full.stderr, /^trawl: the disk holding .* is full \(\w+: .*\); the run is interrupted and what it stored is kept/m);
      assert.doesNotMatch(full.stdout + full.stderr, /\[object Object\]/);
      const status = await runCli(['status', '--data', small.dir], 60_000);
      assert.match(status.stdout, /^run 1 interrupted/m, status.stdout);
    } finally {
      small.cleanup();
    }
  } finally {
    await server.close();
  }
});
