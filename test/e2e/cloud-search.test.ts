// Summarize and Index on the cloud path: the synthesized page workflow's Summarize and Index steps
// (aws-local-stepfunctions) over DynamoDB (dynalite), S3 (s3rver) and a local S3 Vectors server,
// crawling the guides site; then hybrid search over what they stored, scored like the embedded one.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { LocalEmbedder } from '../../shared/enrich/local-provider.js';
import { DEFAULT_HASHING } from '../../shared/enrich/local-embedding.js';
import { hybridSearch } from '../../shared/search/hybrid.js';
import { DynamoEnrichStore } from '../../shared/store/aws/dynamo-enrich.js';
import { S3BlobStore, S3Objects } from '../../shared/store/aws/s3-store.js';
import { S3VectorsIndex } from '../../shared/store/aws/s3-vectors.js';
import { archiveKeys } from '../../shared/ports/archive-keys.js';
import type { EnrichmentRecord, VectorEntry } from '../../shared/ports/index.js';
import { DOCS } from '../../support/search/corpus.js';
import { startEmulators, type Emulators } from '../../support/cloud/emulators.js';
import { assertIamAllows, cloudCrawl, tableItems, type CloudCrawl } from '../../support/cloud/harness.js';
import { callSearchApi, lambdaFetch } from '../../support/cloud/api-call.js';
import { synthApp, type Synthesized } from '../../support/synth.js';
import { evaluate } from '../../support/search/evaluate.js';
import { startFixtureSite } from '../../support/search/fixture-site.js';

const SETTINGS = { allowPrivateNetwork: true, delayMs: 0, maxRps: 0 };

let emu: Emulators;
let synth: Synthesized;
let site: { origin: string; close: () => Promise<void> };
let crawl: CloudCrawl;
let items: Array<Record<string, unknown>>;
let names: Awaited<ReturnType<Emulators['provision']>>;
let enrich: DynamoEnrichStore;
let vectors: S3VectorsIndex;
let objects: S3Objects;

before(async () => {
  emu = await startEmulators();
  synth = synthApp({ bundle: false });
  names = await emu.provision('cloud-search');
  site = await startFixtureSite();
  crawl = await cloudCrawl(
    emu,
    synth,
    names,
    { crawl: 'guides', seeds: [`${site.origin}/`], settings: SETTINGS },
    // A small bound on the full-text log: the run loop rebuilds the generation while pages are still indexed.
    { workers: 2, pollMs: 200, timeoutMs: 240_000, textRebuildLogEntries: 5 },
  );
  items = await tableItems(emu, names.table);
  objects = new S3Objects(emu.clients.s3, names.bucket);
  enrich = new DynamoEnrichStore(emu.clients.doc, names.table, new S3BlobStore(objects), objects);
  vectors = new S3VectorsIndex(emu.vectors, names.vectorBucket, names.vectorIndex);
});

after(async () => {
  await site?.close();
  synth?.cleanup();
  await emu?.stop();
});

const ofType = (type: string) => items.filter((i) => i.type === type);

test('Summarize and Index run in the page workflow: every guide has its summary, tags and embedding metadata in DynamoDB and its vector in S3 Vectors', async () => {
  const records = ofType('ENRICH') as unknown as EnrichmentRecord[];
  const guides = records.filter((r) => new URL(r.url).pathname !== '/');
  assert.equal(guides.length, DOCS.length, `enriched: ${records.map((r) => r.url).join(' ')}`);
  for (const r of records) {
    assert.ok(r.summary.length > 40, r.url);
    assert.ok(r.tags.length >= 3 && r.tags.length <= 12 && r.tags.every((t) => /^#[a-z0-9]+(-[a-z0-9]+)*$/.test(t)), JSON.stringify(r.tags));
    assert.equal(r.summaryStamp.provider, 'local');
    assert.equal(r.embedding?.dimension, 512);
  }
  assert.equal(crawl.timings.byFunction.get('summarize-page')?.length, crawl.timings.byFunction.get('index-page')?.length);
  // Stream consumers see the terms of each page and the log of what changed since the last text build.
  assert.equal(ofType('TERMS').length, records.length);
  const listed: VectorEntry[] = [];
  for (let token: string | undefined, first = true; first || token; first = false) {
    const page = await vectors.list(token, 100);
    listed.push(...page.entries);
    token = page.next;
  }
  assert.deepEqual(listed.map((v) => v.id).sort(), records.map((r) => r.urlId).sort(), "the index holds exactly the store's pages");
  const hashes = new Map(records.map((r) => [r.urlId, r.embedding!.hash]));
  for (const v of listed) assert.equal(v.hash, hashes.get(v.id), 'the store and the index agree on every vector');
});

test('FinalizeRun folds the text into the segments in S3 and writes a consistent integrity report', async () => {
  assert.ok(crawl.textRebuilds >= 1, 'the run loop folded changes in while the run went on (RebuildText)');
  assert.ok(synth.template.Resources && JSON.stringify(synth.template).includes('TEXT_REBUILD_LOG_ENTRIES'), 'the construct sets the bound on Progress');
  const search = crawl.output.search as { consistent: boolean; textSegments: number; report: string };
  assert.equal(search.consistent, true);
  const { manifest } = (await enrich.textIndex.manifest())!;
  assert.equal(search.textSegments, manifest.segments.length);
  enrich.textIndex.refresh();
  const snapshot = (await enrich.textIndex.snapshot())!;
  // Every enriched page is in the segments once, or still in the log (logged in the seconds before the last fold's cutoff).
  const logged = await enrich.changedSince(manifest.builtAt);
  const enriched = ofType('ENRICH').map((i) => String(i.SK));
  assert.ok(snapshot.docs > 0);
  const indexed = await snapshot.indexed(enriched);
  assert.deepEqual(
    enriched.filter((id) => !indexed.has(id) && !logged.includes(id)),
    [],
    'no enriched page is in neither',
  );
  assert.equal(snapshot.docs + logged.filter((id) => !indexed.has(id)).length, enriched.length);
  assert.equal(await objects.get(archiveKeys.textIndexManifest()), undefined, 'no generation file: the manifest is a table item');
  assert.ok(await objects.get(search.report));
  assert.match((await objects.get(search.report.replace(/\.json$/, '.md')))!.toString(), /Index integrity — consistent/);
  // What the fold took leaves the change log: what is left was logged after its cutoff (the last seconds before it).
  assert.deepEqual(await enrich.changedSince(0), await enrich.changedSince(manifest.builtAt));
});

test('hybrid search over DynamoDB, the S3 text index and S3 Vectors finds the known answers as the embedded runtime does', async () => {
  const deps = { enrich, vectors, embedder: new LocalEmbedder(DEFAULT_HASHING) };
  const { hits } = await hybridSearch(deps, { q: 'seasoning cast iron', limit: 3 });
  assert.equal(new URL(hits[0]!.url).pathname, '/cast-iron-care');
  assert.deepEqual(hits[0]!.why.terms, ['seasoning', 'cast', 'iron']);
  assert.equal(hits[0]!.why.textRank, 1);
  assert.ok(hits[0]!.why.vectorRank! >= 1);
  const slug = (url: string) => new URL(url).pathname.slice(1);
  const fused = await evaluate(deps, 'hybrid', slug);
  assert.ok(fused.recallAt5 >= 0.9, `fused recall@5 ${fused.recallAt5}: ${fused.misses.join('; ')}`);
  const text = await evaluate(deps, 'text', slug);
  assert.ok(text.recallAt5 >= 0.9, `BM25 recall@5 ${text.recallAt5}: ${text.misses.join('; ')}`);
  process.stdout.write(
    `# cloud search: fused recall@5 ${fused.recallAt5.toFixed(3)} MRR ${fused.mrr.toFixed(3)}; BM25 ${text.recallAt5.toFixed(3)}/${text.mrr.toFixed(3)}\n`,
  );
});

test('the search API Lambda answers search, page, graph, run and metrics requests from DynamoDB, S3 and S3 Vectors, and asks for the API key in public mode', async () => {
  const call = (path: string, headers: Record<string, string> = {}) => callSearchApi(path, { headers });
  const found = (await call('/search?q=seasoning%20cast%20iron&limit=3')).json();
  assert.equal(new URL(found.hits[0].url).pathname, '/cast-iron-care');
  assert.ok(found.next);
  const id = found.hits[0].urlId as string;
  const page = (await call(`/pages/${id}`)).json();
  assert.ok(
    page.inlinks.some((l: { anchor: string }) => l.anchor === 'looking after the pot'),
    JSON.stringify(page.inlinks),
  );
  assert.equal(page.enrichment.summary, found.hits[0].summary);
  assert.equal(page.history.length, 1);
  const n = (await call(`/graph/neighbourhood/${id}?depth=2`)).json();
  assert.ok(n.nodes.length > 2 && n.edges.length > 1);
  const [latest] = (await call('/runs')).json().runs as Array<{ id: number }>;
  const run = (await call(`/runs/${latest!.id}`)).json();
  assert.equal(
    run.series.reduce((s: number, p: { requests: number }) => s + p.requests, 0),
    run.requests,
    'the per-minute series counts every request',
  );
  assert.equal(run.bucketMs, 60_000);
  const metrics = await call('/metrics');
  assert.match(metrics.body, new RegExp(`^trawl_fetches_total\\{run="${latest!.id}",status="200"\\} ${run.fetchesByStatus['200']}$`, 'm'));
  const timed = Number(/^trawl_enrich_duration_seconds_count (\d+)$/m.exec(metrics.body)?.[1]);
  assert.ok(timed >= ofType('ENRICH').length, `Summarize and Index times reach the histogram (${timed})`);
  assert.equal((await call('/search?q=x&limit=1000')).status, 400);
  assert.equal((await call(`/pages/${'f'.repeat(32)}`)).status, 404);

  // The public URL mode: the environment holds the key's SHA-256; requests carry the key.
  const key = 'a-key-only-the-caller-knows';
  process.env.API_KEY_SHA256 = createHash('sha256').update(key).digest('hex');
  try {
    assert.equal((await call('/runs')).status, 401);
    assert.equal((await call('/runs', { 'x-api-key': 'wrong' })).status, 401);
    assert.equal((await call('/runs', { 'x-api-key': key })).status, 200);
    assert.equal((await call('/healthz')).status, 200);
  } finally {
    delete process.env.API_KEY_SHA256;
  }
  // What the API read, checked against the search-api role (read-only).
  assert.ok(assertIamAllows(synth) > 0);
});

test('the MCP tools on the search API Lambda: an agent searches, reads a page and its links over Streamable HTTP; a read-only API offers no crawl tool', async () => {
  const [{ Client }, { StreamableHTTPClientTransport }] = await Promise.all([
    import('@modelcontextprotocol/sdk/client/index.js'),
    import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
  ]);
  const client = new Client({ name: 'cloud-agent', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL('https://abc.lambda-url.us-east-1.on.aws/mcp'), { fetch: lambdaFetch }));
  try {
    const tools = (await client.listTools()).tools.map((t) => t.name).sort();
    assert.deepEqual(tools, ['get_page', 'highlights', 'links', 'search'], 'no crawl tools without api.startCrawls, no fetch_page in the cloud');
    const body = (r: Awaited<ReturnType<typeof client.callTool>>) => {
      assert.ok(!r.isError, JSON.stringify(r.content));
      // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tool results, checked below
      return JSON.parse((r.content as Array<{ text: string }>)[0]!.text) as Record<string, any>;
    };
    const found = body(await client.callTool({ name: 'search', arguments: { query: 'seasoning cast iron', limit: 3 } }));
    assert.equal(new URL(found.hits[0].url).pathname, '/cast-iron-care');
    assert.ok(found.hits[0].summary && found.hits[0].tags.length > 0);
    const page = body(await client.callTool({ name: 'get_page', arguments: { url: found.hits[0].id } }));
    assert.equal(page.url, found.hits[0].url);
    assert.ok(page.markdown.length > 100);
    // Highlights in the cloud: the page's words, citing the WARC record the page workflow archived.
    const lit = body(await client.callTool({ name: 'highlights', arguments: { url: found.hits[0].id, query: 'seasoning cast iron' } }));
    assert.ok(lit.citations.length >= 1 && lit.citations.every((c: { warcFile?: string }) => c.warcFile), JSON.stringify(lit));
    for (const c of lit.citations as Array<{ start: number; end: number; text: string }>) assert.equal(page.markdown.slice(c.start, c.end), c.text);
    const links = body(await client.callTool({ name: 'links', arguments: { url: found.hits[0].url, direction: 'in' } }));
    assert.ok(links.inlinks.some((l: { anchor: string }) => l.anchor === 'looking after the pot'));
    const resource = await client.readResource({ uri: `trawl://page/${found.hits[0].id}` });
    assert.equal((resource.contents[0] as { text: string }).text, page.markdown);
  } finally {
    await client.close();
  }
  assert.ok(assertIamAllows(synth) > 0);
});
