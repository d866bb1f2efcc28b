// The hostile web through the cloud path (synthesized state machines, real handlers, emulators):
// the run ends on its own, normal pages are stored, hostile ones are recorded with their reasons.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startWeb, type SyntheticWeb } from '../../support/web/server.js';
import { startEmulators, type Emulators } from '../../support/cloud/emulators.js';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { cloudCrawl, tableItems, type CloudCrawl } from '../../support/cloud/harness.js';
import { synthApp, type Synthesized } from '../../support/synth.js';
import { DynamoCrawlStore } from '../../shared/store/aws/dynamo-store.js';
import { S3BlobStore, S3Objects } from '../../shared/store/aws/s3-store.js';
import type { FrontierRow } from '../../shared/ports/index.js';

let emu: Emulators;
let synth: Synthesized;
let web: SyntheticWeb;
let crawl: CloudCrawl;
let items: Array<Record<string, unknown>>;
let bucket: string;
let table: string;
let store: DynamoCrawlStore;
/** The run's URLs as the store shows them: a closed host queue's URLs and what the run's end left queued read settled (their items were not rewritten). */
let urls: Map<string, FrontierRow>;

const SETTINGS = { allowPrivateNetwork: true, delayMs: 0, backoffBaseMs: 200, maxRps: 0, maxHostFailures: 4, maxIdleWaitMs: 300 };

before(async () => {
  emu = await startEmulators();
  synth = synthApp({ bundle: false });
  const names = await emu.provision('hostile');
  web = await startWeb({ articles: 6, blogHosts: 1, crawlDelaySeconds: 0, hostile: true });
  // No wall-clock budget (a loaded machine takes minutes longer): the run must end by itself, drained.
  crawl = await cloudCrawl(emu, synth, names, { crawl: 'hostile', seeds: web.seeds(), settings: SETTINGS }, { workers: 4, pollMs: 200, timeoutMs: 1_200_000 });
  items = await tableItems(emu, names.table);
  bucket = names.bucket;
  table = names.table;
  store = new DynamoCrawlStore(emu.clients.doc, table, { blobs: new S3BlobStore(new S3Objects(emu.clients.s3, bucket)) });
  const runId = Number(crawl.output.runId);
  urls = new Map();
  for (const i of items.filter((i) => i.type === 'URL' && i.runId === runId)) urls.set(String(i.url), (await store.getUrl(runId, String(i.urlId)))!);
});

after(async () => {
  await web?.close();
  synth?.cleanup();
  await emu?.stop();
});

const urlItem = (host: string, path: string) => urls.get(`${web.origins[host]}${path}`);
const hostItem = (host: string) => items.find((i) => i.type === 'HOST' && i.host === new URL(web.origins[host]!).host);

test('the run ends on its own, finished, in bounded time', async () => {
  assert.equal(crawl.output.status, 'finished');
  // Drained: every URL settled, none left for the run's deadline to cut (hostile hosts hold nothing open).
  const report = await emu.clients.s3.send(new GetObjectCommand({ Bucket: bucket, Key: String(crawl.output.report) }));
  assert.equal((JSON.parse(await report.Body!.transformToString()) as { reason: string }).reason, 'drained');
});

test('every normal page is stored', () => {
  for (let k = 1; k <= 6; k++) assert.equal(urlItem('blog1', `/articles/${k}`)?.state, 'done', `article ${k}`);
  assert.equal(urlItem('heavy', '/fine')?.state, 'done');
});

test('heavy pages are processed within their bounds; broken ones fail with the stage', () => {
  assert.equal(urlItem('heavy', '/deep')?.state, 'done');
  const deepId = urlItem('heavy', '/deep')!.urlId;
  const extract = items.find((i) => i.type === 'EXTRACT' && i.urlId === deepId) as { metadata: { cuts: Array<{ bound: string }> } };
  assert.deepEqual(
    extract.metadata.cuts.map((c) => c.bound),
    ['maxDepth'],
  );
  for (const [path, stage] of [
    ['/bad.pdf', 'pdf'],
    ['/broken-sitemap.xml.gz', 'sitemap'],
  ] as const) {
    const row = urlItem('heavy', path);
    assert.deepEqual([row?.state, row?.reason], ['failed', 'processing-failed'], path);
    const fetch = items.find((i) => i.type === 'FETCH' && i.urlId === row!.urlId && typeof i.error === 'string');
    assert.match(String(fetch?.error), new RegExp(`^processing failed \\(${stage}\\)`));
  }
});

test('hosts beyond the caps are parked with the reason; their URLs settle at once', () => {
  assert.match(String((hostItem('glacial')?.state as { parkedReason?: string }).parkedReason), /Crawl-delay of 999999999 s is above the 60 s cap/);
  assert.match(String((hostItem('daily')?.state as { parkedReason?: string }).parkedReason), /Crawl-delay of 86400 s/);
  assert.match(String((hostItem('never')?.state as { parkedReason?: string }).parkedReason), /HTTP 429 asked to wait 7200 s/);
  for (const host of ['glacial', 'daily', 'never']) assert.deepEqual([urlItem(host, '/')?.state, urlItem(host, '/')?.reason], ['skipped', 'host-parked'], host);
  assert.deepEqual(
    web.log.filter((e) => e.host === 'daily' || e.host === 'glacial').map((e) => e.target),
    ['/robots.txt', '/robots.txt'],
  );
});

test('a host backed off past the idle bound has its URLs deferred with the time they may be asked', () => {
  const later = urlItem('later', '/');
  assert.equal(later?.state, 'deferred');
  // Measured from the host's last answer, not from now: a loaded machine may reach this line minutes after the crawl.
  const answered = Math.max(...items.filter((i) => i.type === 'FETCH' && String(i.url ?? '').startsWith(web.origins.later!)).map((i) => Number(i.fetchedAt)));
  assert.ok(Number(later?.notBefore) > answered + 400_000, `deferred until ${Number(later?.notBefore) - answered} ms after the last answer`);
  assert.equal([...urls.values()].filter((u) => u.state === 'queued' || u.state === 'in_flight').length, 0);
});

test('reads the UTF-8 page with stray bytes as UTF-8', () => {
  const page = items.find((i) => i.type === 'PAGE' && i.url === `${web.origins.jp}/kiji`);
  assert.equal(page?.title, '日本語のページ');
});

test("the run's summary, kept as counters while URLs move, equals a count of its URLs as the store shows them", async () => {
  const runId = Number(crawl.output.runId);
  const summary = await store.summary(runId);
  const byState: Record<string, number> = {};
  const byReason: Record<string, number> = {};
  for (const u of urls.values()) {
    byState[String(u.state)] = (byState[String(u.state)] ?? 0) + 1;
    if (['skipped', 'blocked', 'failed', 'duplicate'].includes(String(u.state)))
      byReason[String(u.reason ?? 'none')] = (byReason[String(u.reason ?? 'none')] ?? 0) + 1;
  }
  assert.ok(urls.size > 20);
  assert.deepEqual(summary.urlsByState, byState);
  assert.deepEqual(summary.skipsByReason, byReason);
  // Parked: the run's hosts whose politeness state holds a reason to park them.
  const runHosts = new Set([...urls.values()].map((u) => String(u.host)));
  const parked = items
    .filter((i) => i.type === 'HOST' && runHosts.has(String(i.host)) && (i.state as { parkedReason?: string }).parkedReason)
    .map((i) => ({ host: String(i.host), reason: String((i.state as { parkedReason: string }).parkedReason) }))
    .sort((a, b) => a.host.localeCompare(b.host));
  assert.ok(parked.length >= 3);
  assert.deepEqual(summary.hostsParked, parked);
});
