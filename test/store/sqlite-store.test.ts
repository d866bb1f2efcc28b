import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from '../../shared/store/local/sqlite-driver.js';
import { SqliteCrawlStore } from '../../shared/store/local/sqlite-store.js';
import { SqliteEnrichStore } from '../../shared/store/local/sqlite-search.js';
import { WRITE_SQL } from '../../shared/store/local/sqlite-writes.js';
import { DataDirError } from '../../shared/errors.js';
import { tempDir } from '../../support/helpers.js';
import { backToSchema11, edge, fetchRecord, page, row } from '../store-records.js';

test('summarises a run from its frontier and fetch records (the contract suite covers the writes)', async () => {
  const { dir, cleanup } = tempDir();
  const store = new SqliteCrawlStore(dir);
  try {
    const run = await store.createRun([], {}, 1);
    await store.addUrls([row(run.id, 'a')]);
    const inserted = await store.commitFetch({
      runId: run.id,
      urlId: 'a',
      state: 'done',
      attempts: 1,
      fetch: fetchRecord({ runId: run.id, urlId: 'a', fetchedAt: 5, contentHash: 'h1', durationMs: 3 }),
      page: { ...page({ runId: run.id, urlId: 'a', contentHash: 'h1', fetchedAt: 5 }), etag: '"e"' },
      edges: [edge('a', 'h1', 'b')],
      discovered: [row(run.id, 'b')],
    });
    assert.deepEqual(inserted, ['b']);
    assert.equal((await store.getPage('a'))?.etag, '"e"');
    assert.deepEqual(
      (await store.outlinks('a')).map((e) => e.toUrl),
      ['http://a.test/b'],
    );
    const summary = await store.summary(run.id);
    assert.equal(summary.requests, 1);
    assert.equal(summary.pagesStored, 1);
    assert.deepEqual(summary.urlsByState, { done: 1, queued: 1 });
  } finally {
    await store.close();
    cleanup();
  }
});

// A per-page write that scans a whole table makes a crawl quadratic in its pages: a page's SimHash
// bands were deleted by such a scan until v8 (4.9 ms of the writer's time a page at 30,000 pages).
test('no per-page write scans a whole table: each finds its rows through a key or an index', async () => {
  const { dir, cleanup } = tempDir();
  const store = new SqliteCrawlStore(dir);
  await store.close();
  const db = new Database(join(dir, 'trawl.db'));
  try {
    for (const [name, sql] of Object.entries(WRITE_SQL)) {
      const plan = db.prepare(`EXPLAIN QUERY PLAN ${sql.replace(/@\w+|\?/g, "'x'")}`).all() as Array<{ detail: string }>;
      const scans = plan.map((p) => p.detail).filter((d) => /^SCAN (?!CONSTANT)/.test(d));
      assert.deepEqual(scans, [], `${name} scans: ${scans.join('; ')}`);
    }
  } finally {
    db.close();
    cleanup();
  }
});

test('migrates a data directory of the previous schema forward, keeping its data', async () => {
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
      page: { ...page({ runId: run.id, urlId: 'a', contentHash: 'h1', fetchedAt: 5 }), bytes: 1 },
    });
    await first.close();
    // Back to schema 2: no bodies table, no render columns on pages, no search tables.
    const db = new Database(join(dir, 'trawl.db'));
    db.exec(
      "DROP TABLE bodies; ALTER TABLE pages DROP COLUMN fetcher; ALTER TABLE pages DROP COLUMN render; UPDATE meta SET value = '2' WHERE key = 'schema_version'",
    );
    db.exec('DROP TABLE enrichments; DROP TABLE enrichment_tags; DROP TABLE enrich_failures; DROP TABLE search_text; DROP TABLE vectors');
    // …and no selections or extraction fields (schema 6).
    db.exec('DROP TABLE selections; ALTER TABLE extracts DROP COLUMN fields');
    // …and no run scope (schema 7).
    db.exec('ALTER TABLE runs DROP COLUMN scope');
    // …and chunks WITHOUT ROWID (schema 8).
    db.exec(`DROP TABLE chunks;
      CREATE TABLE chunks (url_id TEXT NOT NULL, seq INTEGER NOT NULL, id TEXT NOT NULL, position REAL NOT NULL, tokens INTEGER NOT NULL,
        text TEXT NOT NULL, prev_id TEXT, next_id TEXT, PRIMARY KEY (url_id, seq)) WITHOUT ROWID;
      INSERT INTO chunks VALUES ('a', 0, 'c0', 0, 2, 'first part', NULL, 'c1'), ('a', 1, 'c1', 0.5, 2, 'second part', 'c0', NULL);`);
    // …and no changes between runs (schema 9).
    db.exec('DROP TABLE changes; DROP TABLE change_texts; DROP TABLE link_changes');
    // …and no vector sketches (schema 10).
    db.exec('DROP TABLE vector_sketches');
    // …and no table of small bodies (schema 11).
    db.exec('DROP TABLE body_bytes');
    // …and the frontier and the links WITHOUT ROWID (schema 12), their indexes gone with the tables renamed away.
    db.exec(
      backToSchema11('frontier') +
        backToSchema11('edges') +
        "INSERT INTO edges VALUES ('a', 'h1', 'b', 'http://a.test/b', 'next', 'read next', 'body', '', 1, 0, NULL);",
    );
    db.close();
    const reader = new SqliteCrawlStore(dir, { readonly: true });
    assert.equal((reader.db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").get() as { value: string }).value, '14');
    assert.deepEqual(
      (await reader.chunks('a')).map((c) => c.text),
      ['first part', 'second part'],
    );
    for (const table of ['chunks', 'frontier', 'edges'])
      assert.doesNotMatch((reader.db.prepare('SELECT sql FROM sqlite_master WHERE name = ?').get(table) as { sql: string }).sql, /WITHOUT ROWID/, table);
    for (const index of ['frontier_queue', 'edges_to', 'edges_to_page'])
      assert.ok(reader.db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND name = ?").get(index), `${index} is back`);
    assert.deepEqual(
      (await reader.outlinks('a')).map((e) => [e.toUrl, e.anchor, e.context]),
      [['http://a.test/b', 'next', 'read next']],
    );
    assert.deepEqual(reader.db.prepare('SELECT url_id, state, attempts FROM frontier').all(), [{ url_id: 'a', state: 'done', attempts: 1 }]);
    assert.ok((reader.db.prepare('PRAGMA table_info(runs)').all() as Array<{ name: string }>).some((c) => c.name === 'scope'));
    assert.ok(reader.db.prepare("SELECT name FROM sqlite_master WHERE name = 'link_changes'").get());
    assert.ok(reader.db.prepare("SELECT name FROM sqlite_master WHERE name = 'vector_sketches'").get());
    assert.equal(reader.hasBody('h1'), false, 'the table of small bodies is there, empty');
    assert.equal((reader.db.prepare('SELECT count(*) AS n FROM selections').get() as { n: number }).n, 0);
    assert.ok((reader.db.prepare('PRAGMA table_info(extracts)').all() as Array<{ name: string }>).some((c) => c.name === 'fields'));
    assert.equal((reader.db.prepare('SELECT count(*) AS n FROM search_text JOIN enrichments ON doc_id = search_text.rowid').get() as { n: number }).n, 0);
    assert.equal((await reader.latestRun())?.id, run.id);
    await reader.close();
    const store = new SqliteCrawlStore(dir);
    assert.equal(await store.claimBody('h1', 'other', 9), 'a', 'the owners of stored bodies were carried over');
    await store.saveExtraction([edge('a', 'h1', 'b', { anchor: 'again' })], undefined, []);
    assert.deepEqual(
      (await store.outlinks('a')).map((e) => [e.toId, e.anchor]),
      [['b', 'again']],
      'the migrated links keep one row a source snapshot and target',
    );
    await store.close();
  } finally {
    cleanup();
  }
});

test('schemas 13 and 14 give the enrichments of an older trawl a listing column and their hit fields as JSON, keeping them', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const first = new SqliteCrawlStore(dir);
    await first.close();
    const db = new Database(join(dir, 'trawl.db'));
    db.exec(`ALTER TABLE enrichments DROP COLUMN listing; ALTER TABLE enrichments DROP COLUMN page_fields; UPDATE meta SET value = '12' WHERE key = 'schema_version';
      INSERT INTO enrichments (url_id, url, host, title, text_hash, summary, tags, language, published, summary_stamp, tags_stamp, updated_at)
        VALUES ('a', 'http://a.test/a', 'a.test', 'A', 't', 'About A.', '[]', 'en', '2024-05-06', '{}', '{}', 1),
               ('b', 'http://a.test/b', 'a.test', 'B', 't', 'About B.', '[]', NULL, NULL, '{}', '{}', 1)`);
    db.close();
    const reader = new SqliteCrawlStore(dir, { readonly: true });
    try {
      assert.equal((reader.db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").get() as { value: string }).value, '14');
      assert.deepEqual(reader.db.prepare('SELECT url_id, title, listing FROM enrichments ORDER BY url_id').all(), [
        { url_id: 'a', title: 'A', listing: null },
        { url_id: 'b', title: 'B', listing: null },
      ]);
      const [a, b] = await new SqliteEnrichStore(reader.db).enrichments('', 10);
      assert.deepEqual([a?.language, a?.published, a?.listing], ['en', '2024-05-06', undefined], 'the fields a hit shows, from their old columns');
      assert.deepEqual([b?.language, b?.published], [undefined, undefined]);
    } finally {
      await reader.close();
    }
  } finally {
    cleanup();
  }
});

test('refuses a data dir written by another schema version, without touching it', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const db = new Database(join(dir, 'trawl.db'));
    db.exec(
      "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT); INSERT INTO meta VALUES ('schema_version', '999'); CREATE TABLE pages (x); INSERT INTO pages VALUES (42);",
    );
    db.close();
    assert.throws(
      () => new SqliteCrawlStore(dir),
      (err: unknown) => err instanceof DataDirError && /schema 999/.test(err.message) && /new --data directory/.test(err.message),
    );
    const again = new Database(join(dir, 'trawl.db'));
    assert.equal((again.prepare('SELECT x FROM pages').get() as { x: number }).x, 42);
    again.close();
  } finally {
    cleanup();
  }
});

test('refuses a foreign SQLite file and a non-database file', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const db = new Database(join(dir, 'trawl.db'));
    db.exec('CREATE TABLE other (x)');
    db.close();
    assert.throws(() => new SqliteCrawlStore(dir), /not trawl's/);
    const junk = join(dir, 'junk');
    mkdirSync(junk);
    writeFileSync(join(junk, 'trawl.db'), 'this is not sqlite at all, just text'.repeat(200));
    assert.throws(() => new SqliteCrawlStore(junk), DataDirError);
  } finally {
    cleanup();
  }
});

test('refuses a data directory that cannot be created or written', () => {
  const { dir, cleanup } = tempDir();
  try {
    // A path below a regular file fails even for root, unlike permission bits.
    writeFileSync(join(dir, 'file'), 'x');
    assert.throws(
      () => new SqliteCrawlStore(join(dir, 'file', 'sub')),
      (err: unknown) => err instanceof DataDirError && /cannot write to data directory/.test(err.message),
    );
  } finally {
    cleanup();
  }
});

test('the check before a crawl writes reads the database without mapping it into memory', async () => {
  const { spawnSync } = await import('node:child_process');
  const { dir, cleanup } = tempDir();
  try {
    await new SqliteCrawlStore(dir).close();
    // 48 MiB of rows: mapped, the whole file would count in the process's resident memory.
    const db = new Database(join(dir, 'trawl.db'));
    db.exec('CREATE TABLE filler (b BLOB)');
    const put = db.prepare('INSERT INTO filler (b) VALUES (randomblob(1048576))');
    db.transaction(() => {
      for (let i = 0; i < 48; i++) put.run();
    })();
    db.close();
    const child = `
      import { readFileSync } from 'node:fs';
      import { openLocalForWriting } from ${JSON.stringify(new URL('../../shared/store/local/open-local.ts', import.meta.url).href)};
      const fileKb = () => Number(/RssFile:\\s+(\\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))[1]);
      const before = fileKb();
      const local = openLocalForWriting(${JSON.stringify(dir)}, 'test');
      const grew = fileKb() - before;
      await local.close();
      console.log(grew);`;
    const out = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', child], { encoding: 'utf8' });
    assert.equal(out.status, 0, out.stderr);
    const grewMb = Number(out.stdout.trim()) / 1024;
    assert.ok(grewMb < 24, `mapped file pages grew by ${grewMb.toFixed(1)} MiB while the data directory was opened and checked`);
  } finally {
    cleanup();
  }
});
