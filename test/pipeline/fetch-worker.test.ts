// The fetch worker's stage against a real HTTP server on loopback and the emulators:
// robots.txt first, the host's delay between requests, redelivered messages fetched once.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createLogger } from '../../shared/log/logger.js';
import { RUN_CACHE_MS, withRun, type CloudDeps } from '../../shared/pipeline/cloud/cloud-context.js';
import { fetchWorker, frontierMessageStage } from '../../shared/pipeline/cloud/fetch-worker.js';
import { DynamoCrawlStore } from '../../shared/store/aws/dynamo-store.js';
import { S3BlobStore, S3Objects } from '../../shared/store/aws/s3-store.js';
import { SqsFrontier } from '../../shared/store/aws/sqs-frontier.js';
import type { FrontierRow } from '../../shared/store/ports/index.js';
import { urlId } from '../../shared/url/canonical.js';
import { serve, frontierRow } from '../helpers.js';
import { startEmulators, type Emulators } from '../cloud/emulators.js';

let emu: Emulators;
let site: { origin: string; close: () => Promise<void> };
const requests: string[] = [];
const requestedAt = new Map<string, number>();
before(async () => {
  emu = await startEmulators();
  site = await serve((req, res) => {
    requests.push(req.url ?? '');
    requestedAt.set(req.url ?? '', Date.now());
    if (req.url === '/robots.txt') res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nDisallow: /private\n');
    else res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>gone</h1>');
  });
});
after(async () => {
  await site.close();
  await emu.stop();
});

async function setup(): Promise<{ deps: CloudDeps; message: (path: string) => Promise<FrontierRow> }> {
  const names = await emu.provision(`fetch-worker-${Date.now()}`);
  const objects = new S3Objects(emu.clients.s3, names.bucket);
  const blobs = new S3BlobStore(objects);
  const store = new DynamoCrawlStore(emu.clients.doc, names.table, { blobs });
  const deps: CloudDeps = { store, blobs, objects, frontier: new SqsFrontier(emu.clients.sqs, names.queueUrl), logger: createLogger('silent') };
  const run = await store.createRun([`${site.origin}/`], { allowPrivateNetwork: true, delayMs: 400 }, Date.now());
  const host = new URL(site.origin).host;
  return {
    deps,
    async message(path) {
      const url = `${site.origin}${path}`;
      const row = frontierRow({ runId: run.id, urlId: urlId(url), url, host });
      await store.addUrls([row]);
      return row;
    },
  };
}

test('reads robots.txt first, keeps the host delay, refuses what robots.txt disallows, fetches a redelivered URL once', async () => {
  requests.length = 0;
  const { deps, message } = await setup();
  const gone = await message('/gone');
  const once = (row: FrontierRow) => withRun(deps, row.runId, (ctx) => fetchWorker(ctx, row));
  const first = await once(gone);
  assert.equal(first.outcome, 'robots-fetched');
  assert.ok(first.action === 'later' && first.delayMs > 0 && first.delayMs <= 400, JSON.stringify(first));
  assert.deepEqual(requests, ['/robots.txt']);
  const waited = await frontierMessageStage(deps, gone, { maxInlineWaitMs: 1000, maxTotalWaitMs: 5000 });
  assert.deepEqual([waited.action, waited.outcome], ['delete', 'http-404']);
  assert.deepEqual(requests, ['/robots.txt', '/gone']);
  // SQS delivers the message again (a lost delete): the URL has settled, nothing is fetched.
  assert.deepEqual(await once(gone), { action: 'delete', outcome: 'already-settled' });
  const next = await once(await message('/other'));
  // The host's 400 ms delay holds: the next URL waits what is left of it, or, when a loaded
  // machine took longer than the delay to get here, it is fetched at least 400 ms after /gone.
  if (next.action === 'later') assert.ok(next.outcome === 'host-not-ready' && next.delayMs > 0 && next.delayMs <= 400, JSON.stringify(next));
  else {
    assert.deepEqual([next.action, next.outcome], ['delete', 'http-404']);
    assert.ok(requestedAt.get('/other')! - requestedAt.get('/gone')! >= 400, 'the host delay was kept');
  }
  const fetched = requests.slice();
  const refused = await frontierMessageStage(deps, await message('/private/x'), { maxInlineWaitMs: 1000, maxTotalWaitMs: 5000 });
  assert.deepEqual([refused.action, refused.outcome], ['delete', 'robots']);
  assert.deepEqual(requests, fetched, 'a path robots.txt disallows is never requested');
  const history = await deps.store.fetchHistory(urlId(`${site.origin}/private/x`));
  assert.match(history[0]!.error ?? '', /robots/);
});

test('a message of a run past its deadline is dropped without a request, whatever its execution says', async () => {
  const { deps } = await setup();
  const run = await deps.store.createRun([`${site.origin}/`], { allowPrivateNetwork: true, delayMs: 0, endsBy: Date.now() - 1 }, Date.now() - 60_000);
  const url = `${site.origin}/late`;
  const row = frontierRow({ runId: run.id, urlId: urlId(url), url, host: new URL(site.origin).host });
  await deps.store.addUrls([row]);
  requests.length = 0;
  const verdict = await withRun(deps, run.id, (ctx) => fetchWorker(ctx, row));
  assert.deepEqual(verdict, { action: 'delete', outcome: 'run-past-deadline' });
  assert.deepEqual(requests, [], 'nothing was asked of the site');
});

test("a container reads a run's RUN item once in RUN_CACHE_MS, sees a stop after it, and reads a run with targets every time", async () => {
  const { deps, message } = await setup();
  const row = await message('/cached');
  let reads = 0;
  const getRun = deps.store.getRun.bind(deps.store);
  const counted: CloudDeps = {
    ...deps,
    store: Object.assign(Object.create(deps.store) as typeof deps.store, { getRun: (id: number) => (reads++, getRun(id)) }),
  };
  for (let i = 0; i < 5; i++) await withRun(counted, row.runId, async () => undefined);
  assert.equal(reads, 1, 'five invocations, one read of the RUN item');
  await deps.store.setRunStatus(row.runId, 'interrupted', Date.now());
  assert.equal(
    (await withRun(counted, row.runId, (ctx) => fetchWorker(ctx, row))).outcome !== 'run-interrupted',
    true,
    'within RUN_CACHE_MS the cached status holds',
  );
  await new Promise((r) => setTimeout(r, RUN_CACHE_MS + 50));
  assert.deepEqual(await withRun(counted, row.runId, (ctx) => fetchWorker(ctx, row)), { action: 'delete', outcome: 'run-interrupted' });
  assert.equal(reads, 2);
  // Discover widens a targets run's scope while its links are crawled: its RUN item is read each time.
  const targets = await deps.store.createRun([], { allowPrivateNetwork: true, targets: ['search:bread'] }, Date.now());
  reads = 0;
  for (let i = 0; i < 3; i++) await withRun(counted, targets.id, async () => undefined);
  assert.equal(reads, 3);
});
