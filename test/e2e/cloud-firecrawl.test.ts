// The Firecrawl-compatible routes on the cloud's search API, and the cloud's structured extraction,
// end to end: the unmodified Firecrawl SDK (through a SigV4 signing proxy on loopback, as a client
// that cannot sign reaches an IAM-authorised Function URL) starts a crawl of a pond shop; the run
// state machine and the page workflow (aws-local-stepfunctions) fetch it into DynamoDB (dynalite)
// and S3 (s3rver), and the workflow's Summarize step fills the construct's extract schema with a
// Bedrock model on loopback (its Converse wire format) that reads each page's chunks. The SDK then
// reads the crawl's documents, scrapes (a fresh page during the crawl, stored ones after) and maps.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import Firecrawl, { type CrawlJob, type Document } from '@mendable/firecrawl-js';
import { leafPointers } from '../../shared/enrich/schema-extract.js';
import { STORED_JSON_WAIT_MS } from '../../shared/api/routes/firecrawl.js';
import { FIRECRAWL_WAIT_MS } from '../../functions/search-runtime.js';
import { DynamoEnrichStore } from '../../shared/store/aws/dynamo-enrich.js';
import { DynamoCrawlStore } from '../../shared/store/aws/dynamo-store.js';
import { S3BlobStore, S3Objects } from '../../shared/store/aws/s3-store.js';
import { canonicalize, urlId } from '../../shared/url/canonical.js';
import { TAGS_SYSTEM } from '../../shared/enrich/prompts.js';
import { startEmulators, type Emulators } from '../../support/cloud/emulators.js';
import { cloudCrawl, templateVariable, type CloudCrawl } from '../../support/cloud/harness.js';
import { callSearchApi, signingProxy } from '../../support/cloud/api-call.js';
import { synthApp, type Synthesized } from '../../support/synth.js';
import { letterVector, modelServer } from '../enrich/model-servers.js';
import { PRODUCTS, productPage, readProduct, SCHEMA, startShop, UNLISTED } from '../enrich/shop-site.js';

const SETTINGS = { allowPrivateNetwork: true, delayMs: 0, maxRps: 0 };
const PROMPT = 'the product this page sells';
/** The integrator's role session, as the signing proxy signs its requests. */
const CALLER = 'arn:aws:sts::123456789012:assumed-role/Integrator/firecrawl-sdk';

let emu: Emulators;
let synth: Synthesized;
let names: Awaited<ReturnType<Emulators['provision']>>;
let shop: Awaited<ReturnType<typeof startShop>>;
let bedrock: Awaited<ReturnType<typeof modelServer>>;
let proxy: Awaited<ReturnType<typeof signingProxy>>;
let sdk: Firecrawl;
let crawl: CloudCrawl;
let crawlId = '';
/** A product scraped with maxAge 0 while the crawl ran: its own one-page run. */
let fresh: Document | undefined;
let freshMs = 0;
/** An unlisted product scraped with json to a schema of the request's own, while the crawl ran. */
let otherJson: Document | undefined;
/** Model requests before that scrape. */
let asked = 0;
const OTHER = { type: 'object', properties: { name: { type: 'string' }, currency: { type: 'string' } }, required: ['name', 'currency'] };

/** Waits until at most `n` runs are running. */
async function untilRunning(n: number): Promise<void> {
  for (let i = 0; i < 300; i++) {
    const runs = (await callSearchApi('/runs')).json().runs as Array<{ status: string }>;
    if (runs.filter((r) => r.status === 'running').length <= n) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`more than ${n} runs still running after 30 s`);
}

const converse = (text: string) => ({
  body: {
    output: { message: { role: 'assistant', content: [{ text }] } },
    stopReason: 'end_turn',
    usage: { inputTokens: 900, outputTokens: 90, totalTokens: 990 },
  },
});

const productUrl = (slug: string) => `${shop.origin}/product/${slug}`;
const expected = (p: (typeof PRODUCTS)[number]) => ({
  name: p.name,
  price: Number(p.price),
  currency: p.currency,
  inStock: p.stock === 'In stock',
  specs: p.specs.map(([name, value]) => ({ name, value })),
});

before(async () => {
  emu = await startEmulators();
  const enrichment = { provider: 'bedrock', dimension: 512, extractSchema: SCHEMA, extractPrompt: PROMPT };
  synth = synthApp({ bundle: false, context: { startCrawls: true, startCrawlSettings: SETTINGS, enrichment } });
  names = await emu.provision('firecrawl');
  shop = await startShop();
  // Bedrock on loopback: summaries and tags as any model's, products read from the chunks each question carries.
  bedrock = await modelServer(
    {
      '/model/[^/]+/converse': (body) => {
        const system = body.system[0].text as string;
        const user = body.messages.at(-1).content[0].text as string;
        if (system.startsWith('You extract structured data')) return converse(JSON.stringify(readProduct(user)));
        if (system.startsWith('You answer a question about one web page'))
          return converse(/Flow/.test(user) ? 'It moves water at the flow rate in its table [1].' : 'not in this page');
        return converse(system === TAGS_SYSTEM ? '["#ponds", "#garden", "#water"]' : 'A product for garden ponds, with its price and specification.');
      },
      '/model/[^/]+/invoke': (body) => ({ body: { embedding: letterVector(body.inputText as string, body.dimensions as number), inputTextTokenCount: 12 } }),
    },
    'h2',
  );
  proxy = await signingProxy(CALLER);
  // The SDK's key is not what authorises it here: the proxy signs every request as the integrator.
  sdk = new Firecrawl({ apiKey: 'signed-by-the-proxy', apiUrl: proxy.origin });
  // Every function reads the construct's enrichment settings from its environment, as the template sets them.
  const variables = ['TRAWL_PROVIDER', 'TRAWL_CHAT_MODEL', 'TRAWL_EMBED_MODEL', 'TRAWL_EMBED_DIMENSION', 'TRAWL_EXTRACT_SCHEMA', 'TRAWL_EXTRACT_PROMPT'];
  const environment = Object.fromEntries(variables.map((v) => [v, String(templateVariable(synth, 'summarizepage', v))]));
  crawl = await cloudCrawl(
    emu,
    synth,
    names,
    { crawl: 'firecrawl', seeds: [`${shop.origin}/`], settings: SETTINGS },
    {
      workers: 2,
      pollMs: 200,
      timeoutMs: 240_000,
      environment: { ...environment, TRAWL_BEDROCK_ENDPOINT: bedrock.origin },
      startWith: async () => {
        const started = await sdk.startCrawl(`${shop.origin}/`, { limit: 20, scrapeOptions: { formats: ['markdown', 'links', 'rawHtml'] } });
        crawlId = started.id;
        return started.id.split('~')[0]!;
      },
      whileRunning: async () => {
        const t0 = performance.now();
        fresh = await sdk.scrape(productUrl('filter'), { formats: ['markdown', 'html'], maxAge: 0 });
        freshMs = performance.now() - t0;
        // A caller has two API crawls running at most: the scrape's run ends first.
        await untilRunning(1);
        asked = bedrock.seen.length;
        otherJson = await sdk.scrape(productUrl(UNLISTED.slug), {
          formats: [{ type: 'json', schema: OTHER, prompt: 'the currency it is priced in' }],
        });
      },
    },
  );
});

after(async () => {
  await crawl?.close();
  await proxy?.close();
  await Promise.all([shop?.close(), bedrock?.close()]);
  synth?.cleanup();
  await emu?.stop();
});

test('the template gives the search API the extract schema, and a timeout a scrape waits inside', () => {
  assert.deepEqual(JSON.parse(String(templateVariable(synth, 'searchapi', 'TRAWL_EXTRACT_SCHEMA'))), SCHEMA);
  const fn = Object.entries(synth.template.Resources).find(([id, r]) => r.Type === 'AWS::Lambda::Function' && id.toLowerCase().includes('searchapi'))![1];
  assert.ok(Number(fn.Properties.Timeout) * 1000 >= FIRECRAWL_WAIT_MS + STORED_JSON_WAIT_MS + 10_000, `search API timeout ${String(fn.Properties.Timeout)} s`);
});

test('a crawl started by the Firecrawl SDK runs on the cloud path; its status lists the documents from DynamoDB and the WARC in S3', async () => {
  assert.equal(crawl.output.status, 'finished');
  assert.match(crawlId, /^[0-9a-f-]{36}~mrl$/, 'the job id and the formats the crawl asked for');
  const status = (await sdk.getCrawlStatus(crawlId)) as CrawlJob;
  assert.equal(status.status, 'completed');
  const byUrl = new Map(status.data.map((d) => [d.metadata?.url, d]));
  assert.equal(byUrl.size, PRODUCTS.length + 1, [...byUrl.keys()].join(' '));
  PRODUCTS.forEach((p, i) => {
    const doc = byUrl.get(productUrl(p.slug));
    assert.ok(doc, p.slug);
    assert.match(doc.markdown!, new RegExp(`Price: ${p.price.replace('.', '\\.')} ${p.currency}`));
    // rawHtml: the response record the fetch worker archived, read back from the run's WARC in S3.
    assert.equal(doc.rawHtml, productPage(p, i));
    assert.ok(doc.links!.includes(`${shop.origin}/`));
    assert.equal(doc.metadata?.statusCode, 200);
    assert.equal(doc.metadata?.title, p.name);
    assert.equal(doc.html, undefined, 'only the formats the crawl asked for');
  });
});

test('a fresh scrape during the crawl is its own one-page run, answered once its page is stored and extracted', () => {
  assert.ok(fresh, 'the scrape answered');
  assert.match(fresh.markdown!, /Price: 210\.00 EUR/);
  assert.match(fresh.html!, /<h1>Pressure filter<\/h1>/);
  assert.doesNotMatch(fresh.html!, /<script/);
  assert.equal(fresh.metadata?.sourceURL, productUrl('filter'));
  assert.ok(freshMs < 60_000, `answered in ${Math.round(freshMs)} ms`);
});

test("the Summarize step fills the construct's schema: each product's values, from chunks its extraction stored, in DynamoDB and in search hits", async () => {
  const objects = new S3Objects(emu.clients.s3, names.bucket);
  const enrich = new DynamoEnrichStore(emu.clients.doc, names.table, new S3BlobStore(objects), objects);
  const store = new DynamoCrawlStore(emu.clients.doc, names.table, { blobs: new S3BlobStore(objects) });
  for (const p of PRODUCTS) {
    const id = urlId(canonicalize(productUrl(p.slug))!);
    const x = (await enrich.enrichCandidate(id))?.enrichment?.extracted;
    assert.ok(x && !x.error, `${p.slug}: ${JSON.stringify(x)}`);
    assert.deepEqual(x.data, expected(p));
    assert.equal(x.provider, 'bedrock');
    assert.equal(x.inputTokens, 900, 'the tokens Bedrock counted');
    const chunks = new Map((await store.chunks(id)).map((c) => [c.id, c.text]));
    assert.deepEqual(Object.keys(x.sources!).sort(), leafPointers(x.data).sort());
    for (const ids of Object.values(x.sources!)) for (const c of ids) assert.ok(chunks.has(c), `${p.slug}: chunk ${c} is the page's`);
    assert.match(chunks.get(x.sources!['/price']![0]!)!, new RegExp(`Price: ${p.price.replace('.', '\\.')}`));
  }
  const hits = (await callSearchApi(`/search?q=${encodeURIComponent('pond pump flow')}&mode=text`)).json().hits as Array<{
    url: string;
    extracted?: { data: { price: number } };
  }>;
  assert.equal(hits.find((h) => h.url === productUrl('pond-pump'))?.extracted?.data.price, 89.9);
});

test("the cloud's json format: the deployment's schema answered from the store; another extracted by a one-page run that carries it", async () => {
  const pump = PRODUCTS.find((p) => p.slug === 'pond-pump')!;
  const before = (await callSearchApi('/runs')).json().runs.length as number;
  const doc = await sdk.scrape(productUrl(pump.slug), { formats: ['markdown', { type: 'json', schema: SCHEMA, prompt: PROMPT }] });
  assert.deepEqual(doc.json, expected(pump));
  assert.match(doc.markdown!, /Pond pump 3000/);
  assert.equal((await callSearchApi('/runs')).json().runs.length, before, 'answered from the store');
  // Another schema and prompt: a run of its own extracted the page to them, with the deployment's model.
  assert.equal(before, 3, 'the crawl, the fresh scrape and the json scrape');
  const values = otherJson?.json as { name?: string; currency?: string } | undefined;
  assert.deepEqual([values?.name, values?.currency], [UNLISTED.name, UNLISTED.currency], JSON.stringify(otherJson));
  const question = bedrock.seen
    .slice(asked)
    .find((r) => String(r.body.system?.[0]?.text).startsWith('You extract structured data') && JSON.stringify(r.body).includes(`Title: ${UNLISTED.name}`));
  assert.match(JSON.stringify(question?.body), /the currency it is priced in/, "the run asked with the request's prompt");
  assert.doesNotMatch(JSON.stringify(question?.body), /inStock/, "and the request's schema, not the deployment's");
});

test('a stored page is scraped from DynamoDB and S3 with includeTags, and mapped, with no run', async () => {
  const runs = (await callSearchApi('/runs')).json().runs.length as number;
  const tagged = await sdk.scrape(productUrl('pond-pump'), { formats: ['markdown'], includeTags: ['table'] });
  assert.match(tagged.markdown!, /Flow/);
  assert.doesNotMatch(tagged.markdown!, /Price:/, 'only the table');
  // Highlights, summary and attributes from the table and the bucket, each passage citing the WARC
  // record in S3; lockdown answers with no run (the site's log is the run count: none is started).
  const lit = await sdk.scrape(productUrl('pond-pump'), {
    formats: ['markdown', 'summary', { type: 'highlights', query: 'flow rate' }, { type: 'attributes', selectors: [{ selector: 'h1', attribute: 'class' }] }],
    lockdown: true,
  });
  assert.match(lit.highlights!, /Flow/, lit.highlights);
  const cites = (lit.metadata as { highlights?: Array<{ start: number; end: number; text: string; warcFile?: string }> }).highlights!;
  assert.ok(cites.length >= 1 && cites.every((c) => c.warcFile && lit.markdown!.slice(c.start, c.end) === c.text), JSON.stringify(cites));
  assert.ok(lit.summary && lit.summary.length > 10);
  assert.equal(lit.attributes?.[0]?.selector, 'h1');
  await assert.rejects(sdk.scrape(`${shop.origin}/never-crawled`, { formats: ['markdown'], lockdown: true }), /not in the archive/);
  // The question format with the deployment's Bedrock model, from the stored page's passages (no run).
  const asked = await sdk.scrape(productUrl('pond-pump'), { formats: [{ type: 'question', question: 'What is its flow rate?' }] });
  assert.equal(asked.answer, 'It moves water at the flow rate in its table [1].');
  const sent = bedrock.seen.find((r) => String(r.body.system?.[0]?.text).startsWith('You answer a question about one web page'));
  assert.match(JSON.stringify(sent?.body), /Flow/, 'the passages went to the model');
  // Search over the deployment's own index: the page that answers first, described by its passages for the query.
  const found = await sdk.search('pond pump flow rate', { limit: 3 });
  const first = found.web?.[0] as { url?: string; description?: string } | undefined;
  assert.equal(first?.url, productUrl('pond-pump'), JSON.stringify(found.web));
  assert.match(first?.description ?? '', /[Ff]low/, 'a passage of the page as its description');
  const map = await sdk.map(`${shop.origin}/`);
  for (const p of PRODUCTS)
    assert.ok(
      map.links.some((l) => l.url === productUrl(p.slug)),
      p.slug,
    );
  // A crawl's own webhook is refused before anything starts: the cloud's crawl events are on its bus.
  await assert.rejects(sdk.startCrawl(`${shop.origin}/`, { webhook: 'https://hooks.example/trawl' }), /event bus .*EventBridge rule/);
  assert.equal((await callSearchApi('/runs')).json().runs.length, runs, 'no run was started');
});
