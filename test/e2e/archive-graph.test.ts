import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, openSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import type { Db } from '../../shared/store/local/sqlite-types.js';
import { readResponse, readWarc } from '../../shared/archive/warc-reader.js';
import { ArchiveReplay, FetchedAndFailedError, NeverFetchedError } from '../../shared/archive/replay.js';
import { targetHistory } from '../../shared/targets/history.js';
import { SqliteCrawlStore } from '../../shared/store/local/sqlite-store.js';
import { ROBOTS_REFUSAL } from '../../shared/ports/index.js';
import { urlId } from '../../shared/url/canonical.js';
import { startWeb, type SyntheticWeb } from '../../support/web/server.js';
import { tempDir } from '../../support/helpers.js';
import { crawlWeb, openDb, testFlags } from '../../support/crawl-helpers.js';

let web: SyntheticWeb;
let data: ReturnType<typeof tempDir>;
let db: Db;
const u = (path: string) => `${web.origins.main}${path}`;
const id = (path: string) => urlId(u(path));

/** Runs the CLI in a child process without blocking this one (it serves the synthetic web). */
function trawl(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'shared/cli/main.ts', ...args, '--data', data.dir]);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

before(async () => {
  web = await startWeb({ articles: 20, blogHosts: 1, crawlDelaySeconds: 0 });
  data = tempDir();
  await crawlWeb(web, testFlags(data.dir, { 'delay-ms': '0', 'backoff-base-ms': '100', 'max-host-failures': '2' }), [u('/'), `${web.origins.blog1}/`]);
  db = openDb(data.dir);
});

after(async () => {
  db.close();
  await web.close();
  data.cleanup();
});

test('archives every exchange as WARC records whose payloads match the stored bodies', async () => {
  const warcDir = join(data.dir, 'warc');
  const records: Array<{ type: string; url?: string; payload: Buffer }> = [];
  for (const file of readdirSync(warcDir)) for await (const r of readWarc(join(warcDir, file))) records.push(r);
  const fetches = db.prepare('SELECT * FROM fetches').all() as Array<{
    url: string;
    status: number | null;
    warc_file: string | null;
    warc_offset: number;
    warc_length: number;
    content_hash: string | null;
    truncated: number;
    error: string | null;
  }>;
  const answered = fetches.filter((f) => f.status !== null);
  assert.equal(records.filter((r) => r.type === 'response').length, answered.length);
  assert.equal(records.filter((r) => r.type === 'request').length, fetches.filter((f) => f.error !== ROBOTS_REFUSAL).length);
  assert.equal(records.filter((r) => r.type === 'metadata').length, records.filter((r) => r.type === 'request').length);
  for (const f of answered) {
    assert.ok(f.warc_file, f.url);
    const res = await readResponse(warcDir, { file: f.warc_file!, offset: f.warc_offset, length: f.warc_length });
    assert.equal(res.url, f.url);
    assert.equal(res.status, f.status);
    if (f.content_hash) assert.equal(createHash('sha256').update(res.body).digest('hex'), f.content_hash, f.url);
  }
});

test('records every interaction with its kind, including robots refusals and skipped types', () => {
  const kind = (path: string) =>
    db.prepare('SELECT kind, error, warc_file FROM fetches WHERE url = ? ORDER BY id DESC').get(u(path)) as {
      kind: string;
      error: string | null;
      warc_file: string | null;
    };
  assert.equal(kind('/robots.txt').kind, 'robots');
  assert.equal(kind('/sitemap-index.xml').kind, 'sitemap');
  assert.equal(kind('/feed.xml').kind, 'feed');
  assert.equal(kind('/doc.pdf').kind, 'pdf');
  assert.equal(kind('/image.png').kind, 'raw');
  assert.match(kind('/image.png').error ?? '', /image\/png is not on the allow-list/);
  assert.deepEqual([kind('/private/secret').error, kind('/private/secret').warc_file], [ROBOTS_REFUSAL, null]);
  const raw = db.prepare('SELECT raw_url FROM fetches WHERE url = ?').get(u('/only-tracked')) as { raw_url: string | null };
  assert.equal(raw.raw_url, u('/only-tracked?utm_campaign=x#top'), 'the raw target as found is kept');
});

test('stores the extraction, chunks and PDF text of pages', () => {
  const x = db.prepare('SELECT * FROM extracts WHERE url_id = ?').get(id('/articles/5')) as {
    title: string;
    markdown: string;
    word_count: number;
    simhash: string;
    language: string;
  };
  assert.equal(x.title, 'main article 5');
  assert.match(x.markdown, /^# Article 5\n\n\S/);
  assert.doesNotMatch(x.markdown, /\[Article 6\]/, 'the related-articles link list is not main content');
  assert.equal(x.language, 'en');
  const chunks = db.prepare('SELECT * FROM chunks WHERE url_id = ? ORDER BY seq').all(id('/articles/5')) as Array<{ id: string; prev_id: string | null }>;
  assert.ok(chunks.length >= 1 && chunks[0]!.prev_id === null);
  const pdf = db.prepare('SELECT markdown, pdf_pages FROM extracts WHERE url_id = ?').get(id('/doc.pdf')) as { markdown: string; pdf_pages: number };
  assert.equal(pdf.pdf_pages, 2);
  assert.match(pdf.markdown, /synthetic PDF about polite crawling/);
});

test('flags near-duplicates through the SimHash bands and text duplicates through the text hash', () => {
  const near = db.prepare('SELECT near_duplicate_of, near_duplicate_distance FROM extracts WHERE url_id = ?').get(id('/near/2')) as {
    near_duplicate_of: string;
    near_duplicate_distance: number;
  };
  assert.equal(near.near_duplicate_of, id('/articles/2'));
  assert.ok(near.near_duplicate_distance <= 3);
  const restyled = db.prepare('SELECT text_duplicate_of FROM extracts WHERE url_id = ?').get(id('/restyled/6')) as { text_duplicate_of: string };
  assert.equal(restyled.text_duplicate_of, id('/articles/6'));
  const bands = db.prepare('SELECT count(*) AS n FROM simhash_bands WHERE url_id = ?').get(id('/articles/2')) as { n: number };
  assert.equal(bands.n, 4);
  const distinct = db.prepare('SELECT count(*) AS n FROM extracts WHERE near_duplicate_of IS NOT NULL').get() as { n: number };
  assert.ok(distinct.n < 10, 'different articles are not near-duplicates of each other');
});

test('stores edges with anchor, context and section, resolved to stored pages both ways', () => {
  const edge = (from: string, to: string) =>
    db.prepare('SELECT * FROM edges WHERE from_id = ? AND to_id = ?').get(id(from), id(to)) as {
      anchor: string;
      context: string;
      section: string;
      to_page_id: string | null;
      internal: number;
    };
  assert.deepEqual([edge('/', '/about').section, edge('/articles/3', '/').section], ['footer', 'nav']);
  assert.equal(edge('/articles/3', '/articles/4').anchor, 'Article 4');
  assert.equal(edge('/', '/old-page').to_page_id, id('/articles/4'), 'resolved through the redirect alias');
  assert.equal(edge('/', '/list?page=1').to_page_id, id('/list?page=1'), 'adopted when the target was stored later');
  assert.match(edge('/', '/calendar?month=2026-11').context, /Calendar/);
});

test('answers graph queries: top pages by PageRank, inlinks with context, unfetched URLs with corroboration', async () => {
  const top = await trawl(['graph', 'top', '--json', '--limit', '5']);
  assert.equal(top.code, 0, top.stderr);
  const pages = top.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { url: string; pagerank: number; inlinks: number });
  assert.equal(pages.length, 5);
  assert.ok(pages[0]!.pagerank >= pages[4]!.pagerank);
  const sum = db.prepare('SELECT sum(pagerank) AS s FROM ranks').get() as { s: number };
  assert.ok(Math.abs(sum.s - 1) < 1e-6);
  const inlinks = await trawl(['graph', 'inlinks', u('/articles/4')]);
  assert.match(inlinks.stdout, /old-page|articles\/3/);
  const outlinks = (await trawl(['graph', 'outlinks', u('/'), '--json', '--limit', '500'])).stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { toUrl: string; section: string; anchor: string; context: string });
  const about = outlinks.find((l) => l.toUrl === u('/about'))!;
  assert.deepEqual([about.section, about.anchor], ['footer', 'About']);
  assert.ok(outlinks.every((l) => typeof l.context === 'string'));
  const unfetched = (await trawl(['graph', 'unfetched', '--json'])).stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { url: string; hosts: number });
  assert.ok(unfetched.some((x) => x.url === u('/only-nofollow') && x.hosts === 1));
  assert.equal((await trawl(['graph', 'sideways'])).code, 2);
  // Nothing found is exit 1 with the reason on stderr, as grep's no match, for scripts.
  const unknown = await trawl(['graph', 'inlinks', u('/never-seen')]);
  assert.equal(unknown.code, 1);
  assert.equal(unknown.stdout, '');
  assert.match(unknown.stderr, /is not a stored page: trawl graph top lists crawled pages/);
  const unsearched = await trawl(['search', 'anything at all']);
  assert.equal(unsearched.code, 1);
  assert.equal(unsearched.stdout, '');
  assert.match(unsearched.stderr, /is indexed yet: run trawl enrich/);
});

test('exports pages, edges and interactions as JSON lines', async () => {
  const out = await trawl(['export', '--format', 'jsonl']);
  assert.equal(out.code, 0, out.stderr);
  const rows = out.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { type: string });
  const count = (t: string) => rows.filter((r) => r.type === t).length;
  assert.equal(count('page'), (db.prepare('SELECT count(*) AS n FROM pages').get() as { n: number }).n);
  assert.equal(count('interaction'), (db.prepare('SELECT count(*) AS n FROM fetches').get() as { n: number }).n);
  assert.ok(count('edge') > 100);
  // The library's and the API's names: camelCase keys, JSON columns as JSON, flags as booleans.
  for (const type of ['page', 'edge', 'interaction']) {
    const row = rows.find((r) => r.type === type) as Record<string, unknown>;
    assert.deepEqual(
      Object.keys(row).filter((k) => k.includes('_')),
      [],
      `${type} keys are camelCase`,
    );
    assert.equal(typeof (type === 'edge' ? row.fromId : row.urlId), 'string');
  }
  const page = rows.find((r) => r.type === 'page') as Record<string, unknown>;
  assert.equal(typeof page.truncated, 'boolean');
  assert.equal(typeof page.fetchedAt, 'number');
  const interaction = rows.find((r) => r.type === 'interaction' && (r as { headers?: unknown }).headers) as unknown as { headers: unknown };
  assert.equal(typeof interaction.headers, 'object');
  assert.equal((await trawl(['export', '--format', 'csv'])).code, 2);
});

test('export --output writes the file whole or not at all; a full disk under stdout is one plain line', async () => {
  const dir = tempDir();
  const target = join(dir.dir, 'crawl.wacz');
  const wacz = await trawl(['export', '--format', 'wacz', '--output', target]);
  assert.equal(wacz.code, 0, wacz.stderr);
  assert.equal(readFileSync(target).subarray(0, 2).toString('latin1'), 'PK', 'a whole zip at the target');
  assert.deepEqual(
    readdirSync(dir.dir).filter((f) => f.includes('partial')),
    [],
    'no partial file is left beside it',
  );
  const nowhere = join(dir.dir, 'no-such-folder', 'crawl.wacz');
  const failed = await trawl(['export', '--format', 'jsonl', '--output', nowhere]);
  assert.equal(failed.code, 1);
  assert.match(failed.stderr, /the export to .*crawl\.wacz failed, and nothing was written there/);
  assert.ok(!existsSync(nowhere));
  // stdout onto a full device (/dev/full answers every write with ENOSPC): one line, no stack.
  const full = await new Promise<{ code: number | null; stderr: string }>((done) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'shared/cli/main.ts', 'export', '--format', 'jsonl', '--data', data.dir], {
      stdio: ['ignore', openSync('/dev/full', 'w'), 'pipe'],
    });
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => done({ code, stderr }));
  });
  assert.equal(full.code, 1);
  assert.equal(full.stderr.trim(), 'trawl: cannot write the output: the disk it goes to is full (trawl export --output FILE writes whole or not at all)');
  dir.cleanup();
});

test('extracts one page from a file or a URL', async () => {
  const file = await trawl(['extract', '--file', 'test/fixtures/extract/news-article.html', '--url', 'https://news.example/x', '--json']);
  assert.equal(file.code, 0, file.stderr);
  const x = JSON.parse(file.stdout) as { title: string; links: unknown[]; chunks: unknown[]; simhash: string };
  assert.equal(x.title, 'City council approves riverside park plan');
  assert.ok(x.links.length > 5 && x.chunks.length >= 1);
  const live = await trawl(['extract', u('/articles/2'), '--allow-private-network']);
  assert.equal(live.code, 0, live.stderr);
  assert.match(live.stdout, /title: main article 2/);
  const refused = await trawl(['extract', u('/private/secret'), '--allow-private-network']);
  assert.equal(refused.code, 2);
  assert.match(refused.stderr, /robots\.txt .* does not allow/);
});

test('replays from the archive with no network, telling never-fetched from failed', async () => {
  const store = new SqliteCrawlStore(data.dir);
  try {
    const replay = new ArchiveReplay(store, data.dir);
    const res = await replay.fetch({ url: u('/articles/3?utm_source=x'), kind: 'page' });
    assert.equal(res.status, 200);
    assert.match(res.body!.toString(), /main article 3/);
    await assert.rejects(replay.fetch({ url: u('/never'), kind: 'page' }), NeverFetchedError);
    await assert.rejects(replay.fetch({ url: u('/private/secret'), kind: 'page' }), FetchedAndFailedError);
  } finally {
    await store.close();
  }
});

test('lists the history of a target and its content drift across runs', async () => {
  await crawlWeb(web, testFlags(data.dir, { 'delay-ms': '0', 'backoff-base-ms': '100', 'max-host-failures': '2', 'max-pages': '30' }), [
    u('/changing'),
    u('/'),
  ]);
  const store = new SqliteCrawlStore(data.dir);
  try {
    const changing = await targetHistory(store, u('/changing'));
    assert.deepEqual(
      changing.map((h) => [h.runId, h.changed]),
      [
        [1, false],
        [2, true],
      ],
    );
    const stable = await targetHistory(store, u('/'));
    assert.ok(stable.length === 2 && stable.every((h) => !h.changed));
    assert.match((await trawl(['history', u('/changing')])).stdout, /run 2 .* changed/);
    const body = async (runId?: number) => (await new ArchiveReplay(store, data.dir, { runId }).fetch({ url: u('/changing'), kind: 'page' })).body!.toString();
    assert.match(await body(), /Changing, visit 2/, 'the newest record by default');
    assert.match(await body(1), /Changing, visit 1/, 'or the record of a given run');
  } finally {
    await store.close();
  }
});

test('re-extracts the whole archive offline and reports what changed', async () => {
  await web.close(); // no network from here on
  db.prepare('SELECT 1').get();
  const writable = new SqliteCrawlStore(data.dir);
  writable.db.prepare("UPDATE extracts SET title = 'stale title' WHERE url_id = ?").run(id('/articles/7'));
  await writable.close();
  const out = await trawl(['replay', '--reextract', '--json']);
  assert.equal(out.code, 0, out.stderr);
  const report = JSON.parse(out.stdout) as { pages: number; changed: number; unchanged: number; fields: Record<string, number>; failed: unknown[] };
  assert.ok(report.pages > 50);
  assert.equal(report.fields.title, 1, JSON.stringify(report));
  assert.ok(report.unchanged > 40);
  assert.deepEqual(report.failed, []);
  const title = db.prepare('SELECT title FROM extracts WHERE url_id = ?').get(id('/articles/7')) as { title: string };
  assert.equal(title.title, 'main article 7');
});
