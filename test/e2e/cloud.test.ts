// The cloud path end to end: the synthesized run state machine and page workflow (run by
// aws-local-stepfunctions), the SQS FIFO frontier (local-aws-sqs), DynamoDB (dynalite) and S3
// (s3rver), crawling the synthetic web, compared with an embedded crawl of the same web.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { GetObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { createHash } from 'node:crypto';
import * as cheerio from 'cheerio';
import { readWarc } from '../../shared/archive/warc-reader.js';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readZip, waczProblems } from '../archive/wacz-validate.js';
import { replayHost } from '../archive/replay-host.js';
import { launchUiBrowser } from '../api/ui-browser.js';
import { DuckDBInstance } from '@duckdb/node-api';
import { edgesOf } from '../../shared/store/aws/dynamo-items.js';
import { archiveKeys } from '../../shared/ports/archive-keys.js';
import type { Db } from '../../shared/store/local/sqlite-types.js';
import { startWeb, type SyntheticWeb } from '../../support/web/server.js';
import type { WebOptions } from '../../support/web/hosts.js';
import { tempDir } from '../../support/helpers.js';
import { startEmulators, type Emulators } from '../../support/cloud/emulators.js';
import { assertIamAllows, cloudCrawl, tableItems, type CloudCrawl } from '../../support/cloud/harness.js';
import { callSearchApi, lambdaFetch } from '../../support/cloud/api-call.js';
import { synthApp, type Synthesized } from '../../support/synth.js';
import { crawlWeb, minGap, openDb, requestsBy, testFlags } from '../../support/crawl-helpers.js';

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
  process.env.TRAWL_WACZ_PART_FILES = '2';
  emu = await startEmulators();
  // The API may start crawls, with the test web's politeness settings for every crawl it starts.
  synth = synthApp({ bundle: false, context: { startCrawls: true, startCrawlSettings: SETTINGS } });
  const names = await emu.provision('e2e');
  bucket = names.bucket;
  cloudWeb = await startWeb(WEB);
  localWeb = await startWeb(WEB);
  // The bound is a hang guard: the crawl takes about 160 s of one core on an idle machine, and CI
  // runs it beside the open-web test on two cores.
  crawl = await cloudCrawl(
    emu,
    synth,
    names,
    { crawl: 'synthetic', seeds: cloudWeb.seeds(), settings: SETTINGS },
    { workers: 4, pollMs: 200, timeoutMs: 480_000, throughApi: true },
  );
  items = await tableItems(emu, names.table);
  data = tempDir();
  await crawlWeb(localWeb, testFlags(data.dir));
  db = openDb(data.dir);
});

after(async () => {
  delete process.env.TRAWL_FINALIZE_SPREAD_PAGES;
  delete process.env.TRAWL_WACZ_PART_FILES;
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
    assert.deepEqual((await agent.listTools()).tools.map((t) => t.name).sort(), ['crawl', 'crawl_status', 'get_page', 'highlights', 'links', 'search']);
    const status = await agent.callTool({ name: 'crawl_status', arguments: { id: crawl.jobId } });
    const told = JSON.parse((status.content as Array<{ text: string }>)[0]!.text) as { status: string; summary: { pagesStored: number } };
    assert.deepEqual([told.status, told.summary.pagesStored], ['finished', crawl.output.pagesStored]);
  } finally {
    await agent.close();
  }
  assertIamAllows(synth);
});

test(
  'the run’s archive is a collection of WACZ parts that each validate and that wabac.js replays as one, with a Parquet index a part',
  { timeout: 180_000 },
  async () => {
    const collectionKey = archiveKeys.waczCollection(1);
    assert.equal(crawl.output.wacz, collectionKey);
    const get = async (Key: string) =>
      Buffer.from(await (await emu.clients.s3.send(new GetObjectCommand({ Bucket: bucket, Key }))).Body!.transformToByteArray());
    const collection = JSON.parse((await get(collectionKey)).toString()) as {
      profile: string;
      resources: Array<{ name: string; path: string; hash: string; bytes: number }>;
    };
    assert.equal(collection.profile, 'multi-wacz-package');
    // Parts of at most two WARC objects here (TRAWL_WACZ_PART_FILES), so the run has several; each
    // part's objects were compacted into one, with its CDXJ beside it, and the small ones deleted.
    const listed = await emu.clients.s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: 'warc/run-1/' }));
    const keys = (listed.Contents ?? []).map((o) => o.Key!);
    const warcs = keys.filter((k) => k.endsWith('.warc.gz'));
    assert.ok(
      warcs.every((k) => /\/trawl-1-part-[0-9a-f]{16}\.warc\.gz$/.test(k)),
      keys.join(' '),
    );
    assert.deepEqual(
      keys.filter((k) => k.endsWith('.cdxj')),
      warcs.map((k) => k.replace(/\.warc\.gz$/, '.cdxj')),
    );
    assert.equal(collection.resources.length, warcs.length);
    assert.ok(collection.resources.length >= 2, `${collection.resources.length} parts`);
    const dir = tempDir();
    const host = { files: { [`/${collectionKey}`]: join(dir.dir, 'run-1.json') } as Record<string, string> };
    writeFileSync(join(dir.dir, 'run-1.json'), JSON.stringify(collection));
    try {
      const cdx: Array<ReturnType<typeof waczProblems>['cdx'][number]> = [];
      const pages: Array<ReturnType<typeof waczProblems>['pages'][number]> = [];
      const partOf = new Map<string, string>();
      for (const part of collection.resources) {
        const body = await get(`wacz/${part.path}`);
        assert.equal(body.length, part.bytes, part.name);
        assert.equal(`sha256:${createHash('sha256').update(body).digest('hex')}`, part.hash, part.name);
        const file = join(dir.dir, part.name);
        writeFileSync(file, body);
        host.files[`/wacz/${part.path}`] = file;
        const found = waczProblems(await readZip(file));
        assert.deepEqual(found.problems, [], part.name);
        cdx.push(...found.cdx);
        pages.push(...found.pages);
        for (const p of found.pages) partOf.set(String(p.url), part.name);
      }
      // Each compacted WARC object in exactly one part; every stored HTML page listed by the part holding it, with its text.
      assert.deepEqual([...new Set(cdx.map((l) => String(l.filename)))].sort(), warcs.map((k) => k.split('/').at(-1)).sort());
      const html = items.filter((i) => i.type === 'PAGE' && Number(i.status) === 200 && String(i.mime).startsWith('text/html'));
      // Each once, though an attempt that failed (a 429, a 503) may sit in another part than its 200.
      // Each part lists the stored pages (HTML and PDF) whose answer it holds.
      const stored = items.filter((i) => i.type === 'PAGE' && Number(i.status) === 200 && /^(text\/html|application\/pdf)/.test(String(i.mime)));
      assert.ok(stored.length > html.length, 'the web has a PDF');
      assert.deepEqual(pages.map((p) => p.url).sort(), stored.map((p) => String(p.url)).sort());
      assert.ok(pages.some((p) => typeof p.text === 'string' && (p.text as string).length > 50 && p.title));

      // ReplayWeb.page's engine opens the collection and replays pages of two different parts: the
      // first page with a heading (as its archived answer has it) in each of two parts.
      const archived = async (url: string): Promise<string> => {
        const line = cdx.find((l) => l.url === url && String(l.status) === '200')!;
        const file = join(dir.dir, String(line.filename));
        writeFileSync(file, await get(`warc/run-1/${String(line.filename)}`));
        for await (const r of readWarc(file)) if (r.type === 'response' && r.url === url) return r.payload.toString('utf8');
        return '';
      };
      const headed: Array<{ url: string; heading: string }> = [];
      for (const part of collection.resources) {
        for (const [url, holder] of partOf) {
          if (holder !== part.name || url.endsWith('.pdf')) continue;
          const heading = cheerio
            .load(await archived(url))('h1')
            .first()
            .text()
            .replace(/\s+/g, ' ')
            .trim();
          if (!heading) continue;
          headed.push({ url, heading });
          break;
        }
        if (headed.length === 2) break;
      }
      assert.equal(headed.length, 2, 'pages with a heading in two parts');
      const replay = await replayHost(host.files);
      const { browser, close } = await launchUiBrowser();
      try {
        const page = await browser.newPage();
        await page.goto(`${replay.origin}/index.html`);
        assert.equal(await page.evaluate(`window.loadWacz('${replay.origin}/${collectionKey}')`), 'trawl');
        for (const { url, heading } of headed) {
          const text = ((await page.evaluate(`window.replayText('/w/trawl/mp_/${url}')`)) as string).replace(/\s+/g, ' ');
          assert.ok(text.includes(heading), `${url} replays from ${partOf.get(url)}: ${text.slice(0, 200)}`);
          assert.ok(replay.asked.some((u) => u === `/wacz/run-1/${partOf.get(url)}`));
        }
      } finally {
        await close();
        await replay.close();
      }

      // Beside them, the captures as Parquet, a file a part: DuckDB reads one row per CDXJ line, by status as the indexes say.
      assert.equal(crawl.output.captures, 'captures/run=1/');
      const parquets = await emu.clients.s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: 'captures/run=1/' }));
      assert.equal(parquets.KeyCount, collection.resources.length);
      for (const o of parquets.Contents ?? []) writeFileSync(join(dir.dir, o.Key!.split('/').pop()!), await get(o.Key!));
      const duck = await DuckDBInstance.create(':memory:');
      const conn = await duck.connect();
      try {
        const glob = join(dir.dir, 'part-*.parquet');
        const rows = (await conn.runAndReadAll(`SELECT fetch_status AS s, count(*) AS n FROM read_parquet('${glob}') GROUP BY 1`)).getRowObjectsJS();
        const counted = Object.fromEntries(rows.map((r) => [String(r.s ?? '-'), Number(r.n)]));
        const indexed: Record<string, number> = {};
        for (const l of cdx) indexed[String(l.status ?? '-')] = (indexed[String(l.status ?? '-')] ?? 0) + 1;
        assert.deepEqual(counted, indexed);
        const [run] = (await conn.runAndReadAll(`SELECT min(run_id) AS lo, max(run_id) AS hi FROM read_parquet('${glob}')`)).getRowObjectsJS();
        assert.deepEqual([Number(run!.lo), Number(run!.hi)], [1, 1]);
      } finally {
        conn.closeSync();
        duck.closeSync();
      }
    } finally {
      dir.cleanup();
    }
  },
);

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
  assert.deepEqual(
    keys.filter((k) => k.startsWith('extracted/')),
    [],
    'no extracted/ snapshots by default: the table holds each extraction',
  );
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
