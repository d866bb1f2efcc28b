// The cloud path end to end: the synthesized run state machine and page workflow (run by
// aws-local-stepfunctions), the SQS FIFO frontier (local-aws-sqs), DynamoDB (dynalite) and S3
// (s3rver), crawling the synthetic web, compared with an embedded crawl of the same web.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { GetObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readZip, waczProblems } from '../archive/wacz-validate.js';
import { DuckDBInstance } from '@duckdb/node-api';
import { edgesOf } from '../../shared/store/aws/dynamo-items.js';
import { archiveKeys } from '../../shared/store/archive-keys.js';
import type { Db } from '../../shared/store/local/sqlite-types.js';
import { startWeb, type SyntheticWeb } from '../web/server.js';
import type { WebOptions } from '../web/hosts.js';
import { tempDir } from '../helpers.js';
import { startEmulators, type Emulators } from '../cloud/emulators.js';
import { assertIamAllows, cloudCrawl, tableItems, type CloudCrawl } from '../cloud/harness.js';
import { callSearchApi, lambdaFetch } from '../cloud/api-call.js';
import { synthApp, type Synthesized } from '../lib/synth.js';
import { crawlWeb, minGap, openDb, requestsBy, testFlags } from './crawl-helpers.js';

const WEB: Partial<WebOptions> = { articles: 8, blogHosts: 1, crawlDelaySeconds: 0.3 };
/** The embedded test flags, as crawl settings. */
const SETTINGS = { allowPrivateNetwork: true, delayMs: 50, backoffBaseMs: 200, maxRps: 0, maxHostFailures: 4 };

let emu: Emulators;
let synth: Synthesized;
let cloudWeb: SyntheticWeb;
let localWeb: SyntheticWeb;
let data: ReturnType<typeof tempDir>;
let db: Db;
let crawl: CloudCrawl;
let items: Array<Record<string, unknown>>;
let bucket: string;

/** host name + path of a URL of a synthetic web, so two webs on different ports compare. */
const key = (web: SyntheticWeb, url: string) => {
  const u = new URL(url);
  return `${web.hostOf(u.origin)?.name ?? u.host}${u.pathname}${u.search}`;
};

/**
 * Calendar pages are a trap family: both crawls admit the same number of months (the trap
 * limit), but which months depends on discovery order (a priority heap per host in the embedded
 * crawl, FIFO per host in SQS). They are compared by count; everything else by identity.
 */
const TRAP_FAMILY = /^main\/calendar\?/;
function split(keys: string[]): { exact: string[]; family: number } {
  return { exact: keys.filter((k) => !TRAP_FAMILY.test(k) && !/ -> main\/calendar\?/.test(k)).sort(), family: keys.filter((k) => TRAP_FAMILY.test(k)).length };
}

before(async () => {
  // This run's end goes through the shards' ranking steps (a run this small is ranked by FinalizeRun alone otherwise).
  process.env.TRAWL_FINALIZE_SPREAD_PAGES = '0';
  emu = await startEmulators();
  // The API may start crawls, with the test web's politeness settings for every crawl it starts.
  synth = synthApp({ bundle: false, context: { startCrawls: true, startCrawlSettings: SETTINGS } });
  const names = await emu.provision('e2e');
  bucket = names.bucket;
  cloudWeb = await startWeb(WEB);
  localWeb = await startWeb(WEB);
  crawl = await cloudCrawl(
    emu,
    synth,
    names,
    { crawl: 'synthetic', seeds: cloudWeb.seeds(), settings: SETTINGS },
    { workers: 4, pollMs: 200, timeoutMs: 240_000, throughApi: true },
  );
  items = await tableItems(emu, names.table);
  data = tempDir();
  await crawlWeb(localWeb, testFlags(data.dir));
  db = openDb(data.dir);
});

after(async () => {
  delete process.env.TRAWL_FINALIZE_SPREAD_PAGES;
  await crawl?.close();
  db?.close();
  await cloudWeb?.close();
  await localWeb?.close();
  data?.cleanup();
  synth?.cleanup();
  await emu?.stop();
});

test('the run state machine ends with a finished run and its report', () => {
  assert.equal(crawl.output.status, 'finished');
  assert.equal(crawl.output.report, 'reports/run-1.json');
  assert.ok(Number(crawl.output.pagesStored) > 20, `pages stored: ${crawl.output.pagesStored}`);
});

test('the run tells its start and end on the construct’s event bus', () => {
  const told = emu.bus.events.filter((e) => e.bus.startsWith('e2e'));
  assert.deepEqual(
    told.map((e) => [e.source, e.detailType]),
    [
      ['trawl', 'trawl.crawl.started'],
      ['trawl', 'trawl.crawl.finished'],
    ],
  );
  const [started, finished] = told.map((e) => e.detail);
  assert.deepEqual([started!.runId, started!.crawl, started!.seeds], [1, `api-${crawl.jobId}`, cloudWeb.seeds()]);
  const summary = finished!.summary as { pagesStored: number; requests: number };
  assert.deepEqual([finished!.runId, finished!.status, finished!.report], [1, 'finished', 'reports/run-1.json']);
  assert.equal(summary.pagesStored, crawl.output.pagesStored);
  assert.ok(summary.requests >= summary.pagesStored);
});

test('the run was started by POST /crawls on the search API, which then answers for it', async () => {
  const job = (await callSearchApi(`/crawls/${crawl.jobId}`)).json();
  assert.equal(job.status, 'finished');
  assert.deepEqual(job.seeds, cloudWeb.seeds());
  assert.equal(job.summary.pagesStored, crawl.output.pagesStored);
  assert.equal(job.progress.pagesStored, crawl.output.pagesStored);
  assert.equal(job.progress.queued, 0);
  // An ended crawl has nothing to stop; unknown ids, bad settings and what the cloud cannot do are refused plainly.
  assert.deepEqual((await callSearchApi(`/crawls/${crawl.jobId}`, { method: 'DELETE' })).json(), { id: crawl.jobId, stopping: false });
  assert.equal((await callSearchApi(`/crawls/${'0'.repeat(8)}-0000-4000-8000-${'0'.repeat(12)}`)).status, 404);
  const bad = await callSearchApi('/crawls', { method: 'POST', body: { seeds: cloudWeb.seeds(), maxPages: -3 } });
  assert.equal(bad.status, 400, bad.body);
  const unknown = await callSearchApi('/crawls', { method: 'POST', body: { seeds: cloudWeb.seeds(), monitorKind: ['modified'] } });
  assert.equal(unknown.status, 400, unknown.body);
  assert.match(unknown.json().error, /monitorKind/);
  assert.equal((await callSearchApi(`/crawls/${crawl.jobId}/events`)).status, 501);
  // An agent follows the same job through the MCP tools on the same Function URL.
  const [{ Client }, { StreamableHTTPClientTransport }] = await Promise.all([
    import('@modelcontextprotocol/sdk/client/index.js'),
    import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
  ]);
  const agent = new Client({ name: 'cloud-agent', version: '1.0.0' });
  await agent.connect(new StreamableHTTPClientTransport(new URL('https://abc.lambda-url.us-east-1.on.aws/mcp'), { fetch: lambdaFetch }));
  try {
    assert.deepEqual((await agent.listTools()).tools.map((t) => t.name).sort(), ['crawl', 'crawl_status', 'get_page', 'links', 'search']);
    const status = await agent.callTool({ name: 'crawl_status', arguments: { id: crawl.jobId } });
    const told = JSON.parse((status.content as Array<{ text: string }>)[0]!.text) as { status: string; summary: { pagesStored: number } };
    assert.deepEqual([told.status, told.summary.pagesStored], ['finished', crawl.output.pagesStored]);
  } finally {
    await agent.close();
  }
  assertIamAllows(synth);
});

test('FinalizeRun packages the run as a WACZ in the bucket that validates: its WARC files, a sorted index and its pages with their text', async () => {
  assert.equal(crawl.output.wacz, 'wacz/run-1.wacz');
  const res = await emu.clients.s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'wacz/run-1.wacz' }));
  const dir = tempDir();
  try {
    const file = join(dir.dir, 'run-1.wacz');
    writeFileSync(file, await res.Body!.transformToByteArray());
    const { problems, cdx, pages } = waczProblems(await readZip(file));
    assert.deepEqual(problems, []);
    const warcs = await emu.clients.s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: 'warc/run-1/' }));
    assert.equal(new Set(cdx.map((l) => l.filename)).size, warcs.KeyCount);
    const html = items.filter((i) => i.type === 'PAGE' && Number(i.status) === 200 && String(i.mime).startsWith('text/html'));
    assert.equal(pages.length, html.length);
    assert.ok(pages.some((p) => typeof p.text === 'string' && (p.text as string).length > 50 && p.title));

    // Beside it, the run's captures as Parquet: DuckDB reads one row per CDXJ line, by status as the index says.
    assert.equal(crawl.output.captures, archiveKeys.captures(1));
    const parquet = join(dir.dir, 'captures.parquet');
    const obj = await emu.clients.s3.send(new GetObjectCommand({ Bucket: bucket, Key: archiveKeys.captures(1) }));
    writeFileSync(parquet, await obj.Body!.transformToByteArray());
    const duck = await DuckDBInstance.create(':memory:');
    const conn = await duck.connect();
    try {
      const rows = (await conn.runAndReadAll(`SELECT fetch_status AS s, count(*) AS n FROM read_parquet('${parquet}') GROUP BY 1`)).getRowObjectsJS();
      const counted = Object.fromEntries(rows.map((r) => [String(r.s ?? '-'), Number(r.n)]));
      const indexed: Record<string, number> = {};
      for (const l of cdx) indexed[String(l.status ?? '-')] = (indexed[String(l.status ?? '-')] ?? 0) + 1;
      assert.deepEqual(counted, indexed);
      const [run] = (await conn.runAndReadAll(`SELECT min(run_id) AS lo, max(run_id) AS hi FROM read_parquet('${parquet}')`)).getRowObjectsJS();
      assert.deepEqual([Number(run!.lo), Number(run!.hi)], [1, 1]);
    } finally {
      conn.closeSync();
      duck.closeSync();
    }
  } finally {
    dir.cleanup();
  }
});

test('stores the same pages as the embedded crawl of the same web', () => {
  const cloudPages = items
    .filter((i) => i.type === 'PAGE' && i.contentHash)
    .map((i) => key(cloudWeb, String(i.url)))
    .sort();
  const localPages = (db.prepare('SELECT url FROM pages WHERE content_hash IS NOT NULL').all() as Array<{ url: string }>)
    .map((r) => key(localWeb, r.url))
    .sort();
  assert.deepEqual(split(cloudPages), split(localPages));
  assert.ok(split(cloudPages).family > 0);
});

test('records the same link graph as the embedded crawl', () => {
  const pages = new Map(items.filter((i) => i.type === 'PAGE').map((i) => [String(i.urlId), i]));
  const cloudEdges = items
    .filter((i) => i.type === 'LINKS' && pages.get(String(i.urlId))?.contentHash === i.snapshot)
    .flatMap((i) => edgesOf(i))
    .map((e) => `${key(cloudWeb, String(pages.get(e.fromId)!.url))} -> ${key(cloudWeb, e.toUrl)} [${e.anchor}]`)
    .sort();
  const localEdges = (
    db
      .prepare('SELECT src.url AS f, e.to_url AS t, e.anchor AS a FROM edges e JOIN pages src ON src.url_id = e.from_id AND src.content_hash = e.snapshot')
      .all() as Array<{ f: string; t: string; a: string }>
  )
    .map((r) => `${key(localWeb, r.f)} -> ${key(localWeb, r.t)} [${r.a}]`)
    .sort();
  assert.ok(cloudEdges.length > 50);
  assert.deepEqual(split(cloudEdges).exact, split(localEdges).exact);
  assert.equal(split(cloudEdges).family, split(localEdges).family);
});

test('is as polite as the embedded crawl: one request per host at a time, delays, Crawl-delay, robots.txt', () => {
  for (const host of cloudWeb.hosts) {
    const entries = requestsBy(cloudWeb.log, host.name);
    assert.ok(
      entries.every((e) => e.concurrent === 1),
      `${host.name}: two requests at once`,
    );
    if (host.name === 'delay') assert.ok(minGap(entries) >= 295, `crawl-delay host gap ${minGap(entries)} ms`);
    else if (host.name !== 'busy') {
      const gaps = entries.slice(1).map((e, i) => (entries[i]!.aborted ? e.start - entries[i]!.start : e.start - entries[i]!.end));
      assert.ok(
        gaps.every((g) => g >= 48),
        `${host.name}: gap ${Math.min(...gaps)} ms`,
      );
    }
  }
  const violations = cloudWeb.log.filter((e) => e.target !== '/robots.txt' && cloudWeb.hosts.find((h) => h.name === e.host)!.disallowed(e.target));
  assert.deepEqual(
    violations.map((e) => `${e.host}${e.target}`),
    [],
  );
  assert.equal(cloudWeb.log.filter((e) => cloudWeb.hosts.find((h) => h.name === e.host)!.isTrap(e.target)).length, 0);
});

test('archives every exchange in WARC files under warc/ (the only copy of a fetched body) and the run report under reports/', async () => {
  // By prefix: the run's end also keeps its ranking's hand-over under finalize/ (over a thousand objects here).
  const keys: string[] = [];
  for (const Prefix of ['warc/', 'reports/', 'extracted/', 'raw/']) {
    const list = await emu.clients.s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix, MaxKeys: 1000 }));
    keys.push(...(list.Contents ?? []).map((o) => o.Key!));
  }
  assert.ok(keys.some((k) => /^warc\/run-1\/trawl-1-.*\.warc\.gz$/.test(k)));
  assert.ok(keys.includes('reports/run-1.json'));
  assert.ok(keys.some((k) => k.startsWith('extracted/')));
  const fetches = items.filter((i) => i.type === 'FETCH');
  // The page workflow read every body back from its WARC record: none went to raw/ as well.
  const hashes = fetches.map((f) => f.contentHash as string | undefined).filter((h): h is string => !!h);
  assert.ok(hashes.length > 10, `${hashes.length} fetched bodies`);
  assert.deepEqual(
    hashes.filter((h) => keys.includes(archiveKeys.raw(h))),
    [],
  );
  assert.ok(fetches.length >= cloudWeb.log.length, `${fetches.length} fetch records for ${cloudWeb.log.length} requests`);
  assert.ok(
    fetches.filter((f) => f.status !== undefined).every((f) => (f.warc as { file?: string } | undefined)?.file),
    'every response has its WARC location',
  );
});
