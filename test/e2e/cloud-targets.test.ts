// A scheduled cloud crawl that starts from a web search query, a subreddit and a URL, through the
// synthesized run state machine (InitRun → HasTargets → Discover → the progress loop) on the
// emulators: the Discover function reads the backends' keys from the deployment's secret (a local
// Secrets Manager), archives the calls in DynamoDB and S3, stores the targets' pages and edges,
// widens the run's scope and sends the seeds with the links; the links are crawled; the replay of
// the targets from the table and the bucket returns the content the crawl used.
import { after, before, test } from 'node:test';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import assert from 'node:assert/strict';
import { GetObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { handler as initRun } from '../../functions/init-run/index.js';
import { handler as discover } from '../../functions/discover-targets/index.js';
import { DynamoCrawlStore } from '../../shared/store/aws/dynamo-store.js';
import { edgesOf } from '../../shared/store/aws/dynamo-items.js';
import { S3BlobStore, S3Objects } from '../../shared/store/aws/s3-store.js';
import { replayApi } from '../../shared/targets/target-fetch.js';
import type { FetchedContent } from '../../shared/targets/content.js';
import { urlId } from '../../shared/url/canonical.js';
import { serve, tempDir } from '../../support/helpers.js';
import { startEmulators, type Emulators } from '../../support/cloud/emulators.js';
import { cloudCrawl, tableItems, type CloudCrawl } from '../../support/cloud/harness.js';
import { startSecretsServer, type SecretsServer } from '../../support/cloud/secrets-server.js';
import { synthApp, type Synthesized } from '../../support/synth.js';
import { KEYS, startApiServers, type ApiServers } from '../targets/api-servers.js';

const QUERY = 'search:fire sprinkler inspection Minneapolis';
const SEARCH_KEY = 'search:fire sprinkler inspection minneapolis';
const SUB_KEY = 'reddit:r/minneapolis';

let emu: Emulators;
let synth: Synthesized;
let names: Awaited<ReturnType<Emulators['provision']>>;
let api: ApiServers;
let secrets: SecretsServer;
let site: Awaited<ReturnType<typeof serve>>;
let seedSite: Awaited<ReturnType<typeof serve>>;
let run: CloudCrawl;
let items: Array<Record<string, unknown>>;
const served: string[] = [];

const html = (title: string, body: string) =>
  `<!doctype html><html><head><title>${title}</title></head><body><main><h1>${title}</h1>${body}</main></body></html>`;

before(async () => {
  emu = await startEmulators();
  // The deployed stack of a crawl with search and social seeds: the one that has the secret Discover reads.
  const crawls = join(tempDir().dir, 'crawls.json');
  writeFileSync(crawls, JSON.stringify({ crawls: [{ name: 'targets', schedule: 'rate(1 day)', seeds: [QUERY, 'r/Minneapolis'] }] }));
  synth = synthApp({ bundle: false, crawlsFile: crawls });
  names = await emu.provision('targets');
  site = await serve((req, res) => {
    const path = req.url ?? '/';
    served.push(path);
    if (path === '/robots.txt') return void res.writeHead(404).end();
    if (path.startsWith('/deeper/')) return void res.writeHead(200, { 'content-type': 'text/html' }).end(html('Deeper', '<p>The end.</p>'));
    res
      .writeHead(200, { 'content-type': 'text/html' })
      .end(html(`Page ${path}`, `<p>Sprinkler inspections in Minneapolis, page ${path}.</p><p><a href="/deeper${path}">More</a></p>`));
  });
  seedSite = await serve((_req, res) => void res.writeHead(200, { 'content-type': 'text/html' }).end(html('Seed', '<p>A plain seed.</p>')));
  api = await startApiServers(() => site.origin);
  secrets = await startSecretsServer();
  // The Brave key reaches the Discover function only through the secret: the fake API refuses a request without it.
  const arn = secrets.put('trawl/targets', JSON.stringify({ TRAWL_BRAVE_API_KEY: KEYS.brave, TRAWL_BRAVE_URL: api.origin, TRAWL_REDDIT_URL: api.origin }));
  Object.assign(process.env, { TARGETS_SECRET_ARN: arn, AWS_ENDPOINT_URL_SECRETS_MANAGER: secrets.origin });
  run = await cloudCrawl(
    emu,
    synth,
    names,
    {
      crawl: 'targets',
      seeds: [QUERY, 'r/Minneapolis', `${seedSite.origin}/`],
      settings: { allowPrivateNetwork: true, delayMs: 0, maxRps: 0, targetLimit: 3 },
    },
    { workers: 2, pollMs: 200, timeoutMs: 180_000 },
  );
  items = await tableItems(emu, names.table);
});

after(async () => {
  delete process.env.TARGETS_SECRET_ARN;
  delete process.env.AWS_ENDPOINT_URL_SECRETS_MANAGER;
  await api?.close();
  await secrets?.close();
  await site?.close();
  await seedSite?.close();
  synth?.cleanup();
  await emu?.stop();
});

test('the run takes the Discover step: the search and the subreddit are archived interactions, with the key from the secret', async () => {
  assert.equal(run.output.status, 'finished');
  assert.ok(run.timings.byFunction.get('discover-targets')?.length === 1, 'Discover ran once');
  assert.ok(secrets.reads >= 1);
  assert.equal(process.env.TRAWL_BRAVE_API_KEY, undefined, 'the key is in no environment variable');
  const fetches = items.filter((i) => i.type === 'FETCH' && (i.kind === 'search' || i.kind === 'social'));
  assert.deepEqual(fetches.map((f) => [f.url, f.kind, f.status, (f.headers as Record<string, string>)['x-trawl-backend']]).sort(), [
    [SUB_KEY, 'social', 200, 'reddit'],
    [SEARCH_KEY, 'search', 200, 'brave'],
  ]);
  const brave = api.requests.find((r) => r.path.startsWith('/res/v1/web/search'));
  assert.equal(brave?.headers['x-subscription-token'], KEYS.brave);
  // The WARC records of the calls keep the exchange, with the key redacted.
  const listed = await emu.clients.s3.send(new ListObjectsV2Command({ Bucket: names.bucket, Prefix: 'warc/' }));
  let warcs = '';
  for (const o of (listed.Contents ?? []).filter((c) => c.Key!.endsWith('.warc.gz'))) {
    const body = await emu.clients.s3.send(new GetObjectCommand({ Bucket: names.bucket, Key: o.Key! }));
    const bytes = Buffer.from(await body.Body!.transformToByteArray());
    warcs += (await import('node:zlib')).gunzipSync(bytes).toString('latin1');
  }
  assert.match(warcs, /WARC-Target-URI: http:\/\/127\.0\.0\.1:\d+\/res\/v1\/web\/search\?q=fire/);
  assert.match(warcs, /x-subscription-token: \[redacted\]/i);
  assert.ok(!warcs.includes(KEYS.brave), 'the key never reaches the archive');
});

test('the results and the links in the posts are crawled at depth 1 with their target as source, and their own links in the widened scope', () => {
  const urls = items.filter((i) => i.type === 'URL');
  const at = (path: string) => urls.find((u) => u.url === `${site.origin}${path}`);
  for (const n of [1, 2, 3])
    assert.deepEqual([at(`/results/${n}`)?.depth, at(`/results/${n}`)?.discoveredFrom, at(`/results/${n}`)?.state], [1, SEARCH_KEY, 'done']);
  assert.deepEqual([at('/linked/1')?.depth, at('/linked/1')?.discoveredFrom, at('/linked/1')?.state], [1, SUB_KEY, 'done']);
  assert.deepEqual([at('/posts/2')?.discoveredFrom, at('/posts/2')?.state], [SUB_KEY, 'done']);
  // Fetched: the /deeper/ pages are the same bytes, so whichever came first is stored and the others are its duplicates.
  assert.ok(['done', 'duplicate'].includes(String(at('/deeper/results/1')?.state)), 'the result host is in scope');
  assert.ok(served.includes('/deeper/posts/2'));
  assert.ok(
    urls.some((u) => u.url === `${seedSite.origin}/` && u.state === 'done'),
    'the URL seed is crawled too',
  );
  const runItem = items.find((i) => i.type === 'RUN');
  assert.deepEqual([...(runItem?.scope as Set<string>)], [site.origin]);
  assert.deepEqual(runItem?.seeds, [`${seedSite.origin}/`]);
});

test('the targets are pages with edges: the link graph says where each URL came from', () => {
  const page = items.find((i) => i.type === 'PAGE' && i.url === SEARCH_KEY);
  assert.equal(page?.mime, 'application/vnd.trawl.search-results+json');
  const edges = edgesOf(items.find((i) => i.type === 'LINKS' && i.urlId === urlId(SEARCH_KEY) && i.snapshot === page?.contentHash));
  assert.deepEqual(
    edges.map((e) => [e.toUrl, e.anchor]).sort(),
    [1, 2, 3].map((n) => [`${site.origin}/results/${n}`, `fire sprinkler inspection Minneapolis — result ${n}`]),
  );
  const post = items
    .filter((i) => i.type === 'LINKS' && i.urlId === urlId(SUB_KEY))
    .flatMap((i) => edgesOf(i))
    .find((e) => e.toUrl === `${site.origin}/posts/2`);
  assert.equal(post?.anchor, 'Post 2 in Minneapolis');
});

test('the replay of the targets from the table and the bucket returns the content the crawl used, with every API closed', async () => {
  await api.close();
  const objects = new S3Objects(emu.clients.s3, names.bucket);
  const blobs = new S3BlobStore(objects);
  const store = new DynamoCrawlStore(emu.clients.doc, names.table, { blobs });
  for (const [target, key] of [
    [QUERY, SEARCH_KEY],
    ['r/Minneapolis', SUB_KEY],
  ] as const) {
    const page = items.find((i) => i.type === 'PAGE' && i.url === key)!;
    const used = JSON.parse((await blobs.get(String(page.contentHash)))!.toString('utf8')) as FetchedContent;
    assert.deepEqual(await replayApi({ store, blobs }, target, key), used);
  }
});

test('a secret that is not JSON fails the targets, not the run: the seeds are still sent', async () => {
  const other = await emu.provision('bad-secret');
  const arn = secrets.put('trawl/broken', 'not json');
  const saved = { ...process.env };
  Object.assign(process.env, { TABLE_NAME: other.table, BUCKET_NAME: other.bucket, QUEUE_URL: other.queueUrl, TARGETS_SECRET_ARN: arn });
  try {
    const state = await initRun({ crawl: 'broken', seeds: ['r/Minneapolis', `${seedSite.origin}/`], settings: { allowPrivateNetwork: true } });
    assert.ok('runId' in state);
    assert.equal(state.discover, true);
    const out = await discover(state);
    assert.equal(out.discovered.length, 1);
    assert.match(out.discovered[0]!.error ?? '', /the secret arn:aws:secretsmanager:.*trawl\/broken-AbCdEf could not be read as JSON/);
    const urls = (await tableItems(emu, other.table)).filter((i) => i.type === 'URL');
    assert.deepEqual(
      urls.map((u) => [u.url, u.state]),
      [[`${seedSite.origin}/`, 'queued']],
    );
  } finally {
    for (const k of ['TABLE_NAME', 'BUCKET_NAME', 'QUEUE_URL', 'TARGETS_SECRET_ARN']) process.env[k] = saved[k];
  }
});
