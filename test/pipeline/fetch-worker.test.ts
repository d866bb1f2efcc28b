// The fetch worker's stage, turn by turn, against a real HTTP server on loopback and the emulators:
// robots.txt first, the host's delay between requests, a host's URLs in priority order, one turn a
// host at a time (a duplicate turn sends nothing on), the turns end with the host's queue.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createLogger } from '../../shared/log/logger.js';
import { RUN_CACHE_MS, withRun, type CloudDeps } from '../../shared/pipeline/cloud/cloud-context.js';
import { frontierMessageStage, handleFrontierMessage } from '../../shared/pipeline/cloud/fetch-worker.js';
import { takeTurn } from '../../shared/pipeline/cloud/host-turn.js';
import { queueAtHosts } from '../../shared/pipeline/cloud/cloud-commit.js';
import { DynamoCrawlStore } from '../../shared/store/aws/dynamo-store.js';
import { S3BlobStore, S3Objects } from '../../shared/store/aws/s3-store.js';
import { SqsFrontier } from '../../shared/store/aws/sqs-frontier.js';
import type { FrontierRow, HostTurn } from '../../shared/ports/index.js';
import { urlId } from '../../shared/url/canonical.js';
import { PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { FRONTIER_INDEX, hostQueueKey, keys, QUEUE_PARTS, queueOrder, shardOf } from '../../shared/store/aws/table-layout.js';
import { serve, frontierRow } from '../../support/helpers.js';
import { startEmulators, type Emulators } from '../../support/cloud/emulators.js';

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
    else if (req.url?.startsWith('/ok')) res.writeHead(200, { 'content-type': 'text/html' }).end(`<title>${req.url}</title><p>A page at ${req.url}.</p>`);
    else res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>gone</h1>');
  });
});
after(async () => {
  await site.close();
  await emu.stop();
});

const wait = { maxInlineWaitMs: 1000, maxTotalWaitMs: 5000 };

async function setup(config: Record<string, unknown> = {}) {
  const names = await emu.provision(`fetch-worker-${Date.now()}`);
  const objects = new S3Objects(emu.clients.s3, names.bucket);
  const blobs = new S3BlobStore(objects);
  const store = new DynamoCrawlStore(emu.clients.doc, names.table, { blobs });
  const sent: HostTurn[] = [];
  const sqs = new SqsFrontier(emu.clients.sqs, names.queueUrl);
  // The turns sent, as the tests hand them on (the queue itself is the contract suite's).
  const frontier = Object.assign(Object.create(sqs) as SqsFrontier, { sendTurns: async (t: HostTurn[]) => void sent.push(...t) });
  const deps: CloudDeps = { store, blobs, objects, frontier, logger: createLogger('silent') };
  const run = await store.createRun([`${site.origin}/`], { allowPrivateNetwork: true, delayMs: 400, ...config }, Date.now());
  const host = new URL(site.origin).host;
  return {
    deps,
    run,
    host,
    sent,
    /** Queues URLs at the site's host (priority as given); a host without a live turn gets one (in `sent`). */
    async queue(...paths: Array<string | [string, number]>): Promise<FrontierRow[]> {
      const rows = paths.map((p) => {
        const [path, priority] = typeof p === 'string' ? [p, 0] : p;
        const url = `${site.origin}${path}`;
        return frontierRow({ runId: run.id, urlId: urlId(url), url, host, priority });
      });
      await store.addUrls(rows);
      await withRun(deps, run.id, (ctx) => queueAtHosts(ctx, rows));
      return rows;
    },
  };
}

test('reads robots.txt first, keeps the host delay, refuses what robots.txt disallows without a request, and hands the turn on', async () => {
  requests.length = 0;
  const { deps, queue, sent } = await setup();
  await queue('/gone');
  const [first] = sent.splice(0);
  assert.deepEqual(first && { turn: first.turn }, { turn: 1 }, 'the host got its first turn');
  const once = (t: HostTurn) => withRun(deps, t.runId, (ctx) => takeTurn(ctx, t));
  const robots = await once(first!);
  assert.equal(robots.outcome, 'robots-fetched');
  assert.ok(robots.action === 'later' && robots.delayMs > 0 && robots.delayMs <= 400, JSON.stringify(robots));
  assert.deepEqual(requests, ['/robots.txt']);
  const fetched = await frontierMessageStage(deps, first!, wait);
  assert.deepEqual([fetched.action, fetched.outcome], ['delete', 'http-404']);
  assert.deepEqual(requests, ['/robots.txt', '/gone']);
  // The queue read showed its last URL: the turn ended with it, nothing more was sent.
  assert.equal(fetched.action === 'delete' && fetched.next, undefined);
  // New URLs give the host a new turn; the host's 400 ms delay holds for it.
  await queue('/other', '/private/x');
  const [second] = sent.splice(0);
  assert.ok(second && second.turn === 2, JSON.stringify(second));
  const next = await once(second);
  if (next.action === 'later') assert.ok(next.outcome === 'host-not-ready' && next.delayMs > 0 && next.delayMs <= 400, JSON.stringify(next));
  // The turn is still live (a step keeps its number): its message takes the host's next URLs, one delay apart.
  const done = await frontierMessageStage(deps, second, wait);
  assert.ok(requestedAt.get('/other')! - requestedAt.get('/gone')! >= 400, 'the host delay was kept');
  assert.ok(done.action === 'delete' && !done.next, JSON.stringify(done));
  assert.ok(!requests.includes('/private/x'), 'a path robots.txt disallows is never requested');
  const history = await deps.store.fetchHistory(urlId(`${site.origin}/private/x`));
  assert.match(history[0]!.error ?? '', /robots/);
});

test("a host's URLs are fetched in priority order, one turn at a time; a duplicate of a turn handed on sends nothing", async () => {
  requests.length = 0;
  const { deps, queue, sent, run, host } = await setup({ delayMs: 0 });
  await queue(['/low', 0.1], ['/high', 2], ['/mid', 1]);
  const turn = sent.splice(0)[0]!;
  const duplicate = { ...turn };
  // A host with no delay is ready again at once: one message takes its turns in a row, handing each on.
  const v = await frontierMessageStage(deps, turn, wait);
  assert.ok(v.action === 'delete' && !v.next, JSON.stringify(v));
  assert.deepEqual(
    requests.filter((r) => r !== '/robots.txt'),
    ['/high', '/mid', '/low'],
  );
  assert.equal((await deps.store.hostTurn(run.id, host))?.turn, undefined);
  // Handed back past the inline wait: a message whose later turn must wait goes back as that turn.
  const slow = await setup({ delayMs: 600 });
  await slow.queue('/s1', '/s2');
  const first = slow.sent.splice(0)[0]!;
  const taken = await frontierMessageStage(slow.deps, first, { maxInlineWaitMs: 200, maxTotalWaitMs: 5000 });
  assert.equal(taken.action, 'later', 'robots.txt first: the URL waits for the host');
  await new Promise((r) => setTimeout(r, 700));
  const fetched = await frontierMessageStage(slow.deps, first, { maxInlineWaitMs: 200, maxTotalWaitMs: 5000 });
  assert.ok(fetched.action === 'delete' && fetched.next?.turn === 2 && fetched.pages === undefined, JSON.stringify(fetched));
  // The first turn, delivered again after it was handed on: nothing left to take, nothing sent on.
  const again = await frontierMessageStage(deps, duplicate, wait);
  assert.ok(again.action === 'delete' && !again.next, JSON.stringify(again));
  assert.equal((await deps.store.hostTurn(run.id, host))?.turn, undefined, 'the host has no live turn once its queue is empty');
  assert.equal((await deps.store.hostTurn(run.id, host))?.queued, 0);
});

test("a message takes no step whose fetch would end past its handler's deadline: its turn is handed on", async () => {
  requests.length = 0;
  const { deps, queue, sent } = await setup({ delayMs: 0, timeoutMs: 5000 });
  await queue('/d1', '/d2', '/d3');
  const turn = sent.splice(0)[0]!;
  // The handler ends in 14 s: its first step is its own; a second (a 5 s fetch and the 10 s hand-on) would end past it.
  const v = await frontierMessageStage(deps, turn, { ...wait, endsAt: Date.now() + 14_000 });
  assert.ok(v.action === 'later' && v.outcome === 'robots-fetched', JSON.stringify(v));
  assert.deepEqual(requests, ['/robots.txt'], 'robots.txt was the one step taken; the turn waits in the queue');
  // With time to spare, the message, delivered again, takes the host's pages in a row.
  const w = await frontierMessageStage(deps, turn, { ...wait, endsAt: Date.now() + 60_000 });
  assert.ok(w.action === 'delete' && !w.next, JSON.stringify(w));
  assert.deepEqual(requests.slice(1).sort(), ['/d1', '/d2', '/d3']);
});

test('a turn handed back to wait is renewed at its host, so a stall never takes it for lost', async () => {
  const slow = await setup({ delayMs: 600 });
  await slow.queue('/w1');
  const turn = slow.sent.splice(0)[0]!;
  const sentAt = (await slow.deps.store.hostTurn(slow.run.id, turn.host))!.turnAt!;
  await new Promise((r) => setTimeout(r, 20));
  const handedBack: number[] = [];
  slow.deps.frontier.handBack = async (_receipt: string, ms: number) => void handedBack.push(ms);
  const pageWorkflow = { start: async () => assert.fail('no page is fetched while the host waits') };
  const v = await handleFrontierMessage(
    { ...slow.deps, pageWorkflow },
    turn,
    { receipt: 'r', id: 'm', receives: 1 },
    { maxInlineWaitMs: 200, maxTotalWaitMs: 5000 },
  );
  assert.equal(v.action, 'later', JSON.stringify(v));
  assert.equal(handedBack.length, 1, 'the message waits in the queue');
  assert.ok((await slow.deps.store.hostTurn(slow.run.id, turn.host))!.turnAt! > sentAt, "the turn's time is renewed");
});

test('a message whose turn must wait after its steps starts the page workflows of the pages it fetched', async () => {
  const { deps, queue, sent } = await setup({ delayMs: 0, maxPages: 1 });
  await queue('/ok1', '/ok2');
  const turn = sent.splice(0)[0]!;
  deps.frontier.handBack = async () => undefined;
  const started: string[] = [];
  const pageWorkflow = { start: async (_name: string, page: { row: { url: string } }) => void started.push(new URL(page.row.url).pathname) };
  // robots.txt, then one page (the budget's one), then the other finds the budget spent: the turn waits.
  const v = await handleFrontierMessage({ ...deps, pageWorkflow } as never, turn, { receipt: 'r', id: 'm', receives: 1 }, wait);
  assert.deepEqual([v.action, v.outcome.split(', ').at(-1)], ['later', 'max-pages'], JSON.stringify(v));
  assert.equal(started.length, 1, 'the page fetched goes on to its workflow');
  assert.ok(['/ok1', '/ok2'].includes(started[0]!));
});

test('a parked host closes its queue: its URLs settle in one write, later ones too, and no turn is given again', async () => {
  const { deps, queue, sent, run, host } = await setup();
  await deps.store.putHostState({
    host,
    nextAllowedAt: 0,
    backoffUntil: 9e12,
    backoffStep: 0,
    consecutiveFailures: 1,
    crawlDelayMs: 0,
    parkedReason: 'HTTP 429 asked to wait 7200 s',
  });
  await queue('/a', '/b', '/c');
  const turn = sent.splice(0)[0]!;
  const before = (await deps.store.summary(run.id)).urlsByState;
  const verdict = await withRun(deps, run.id, (ctx) => takeTurn(ctx, turn));
  assert.deepEqual(verdict, { action: 'done', outcome: 'host-parked' });
  const after = await deps.store.summary(run.id);
  assert.equal(after.urlsByState.queued ?? 0, (before.queued ?? 0) - 3);
  assert.equal(after.skipsByReason['host-parked'], 3);
  assert.deepEqual(
    (await deps.store.seenUrls(run.id)).map((u) => [u.state, u.reason]),
    [
      ['skipped', 'host-parked'],
      ['skipped', 'host-parked'],
      ['skipped', 'host-parked'],
    ],
  );
  await queue('/d');
  assert.deepEqual(sent, [], 'a closed queue gets no turn');
  assert.equal((await deps.store.summary(run.id)).skipsByReason['host-parked'], 4);
  assert.equal(await deps.store.restartTurn(run.id, host, Date.now() + 3_600_000, 1), undefined);
});

test('a turn of a run past its deadline is dropped without a request, whatever its execution says', async () => {
  const { deps } = await setup();
  const run = await deps.store.createRun([`${site.origin}/`], { allowPrivateNetwork: true, delayMs: 0, endsBy: Date.now() - 1 }, Date.now() - 60_000);
  requests.length = 0;
  const verdict = await withRun(deps, run.id, (ctx) => takeTurn(ctx, { runId: run.id, host: new URL(site.origin).host, turn: 1 }));
  assert.deepEqual(verdict, { action: 'done', outcome: 'run-past-deadline' });
  assert.deepEqual(requests, [], 'nothing was asked of the site');
});

test("a container reads a run's RUN item once in RUN_CACHE_MS, sees a stop after it, and reads a run with targets every time", async () => {
  const { deps, run, host } = await setup();
  let reads = 0;
  const getRun = deps.store.getRun.bind(deps.store);
  const counted: CloudDeps = {
    ...deps,
    store: Object.assign(Object.create(deps.store) as typeof deps.store, { getRun: (id: number) => (reads++, getRun(id)) }),
  };
  const turn = { runId: run.id, host, turn: 1 };
  for (let i = 0; i < 5; i++) await withRun(counted, run.id, async () => undefined);
  assert.equal(reads, 1, 'five invocations, one read of the RUN item');
  await deps.store.setRunStatus(run.id, 'interrupted', Date.now());
  assert.notEqual((await withRun(counted, run.id, (ctx) => takeTurn(ctx, turn))).outcome, 'run-interrupted', 'within RUN_CACHE_MS the cached status holds');
  await new Promise((r) => setTimeout(r, RUN_CACHE_MS + 50));
  assert.deepEqual(await withRun(counted, run.id, (ctx) => takeTurn(ctx, turn)), { action: 'done', outcome: 'run-interrupted' });
  assert.equal(reads, 2);
  // Discover widens a targets run's scope while its links are crawled: its RUN item is read each time.
  const targets = await deps.store.createRun([], { allowPrivateNetwork: true, targets: ['search:bread'] }, Date.now());
  reads = 0;
  for (let i = 0; i < 3; i++) await withRun(counted, targets.id, async () => undefined);
  assert.equal(reads, 3);
});

test("a host's queue is read in order across its parts, and a run made before parts keeps one", async () => {
  const { deps, run, host } = await setup();
  const store = deps.store as DynamoCrawlStore;
  const rows = Array.from({ length: 24 }, (_, i) => {
    const url = `${site.origin}/p${i}`;
    return frontierRow({ runId: run.id, urlId: urlId(url), url, host, priority: (i * 7) % 24, depth: i % 3 });
  });
  await store.addUrls(rows);
  const partsUsed = new Set(rows.map((r) => shardOf(r.urlId, QUEUE_PARTS)));
  assert.ok(partsUsed.size > 1, 'the URLs fall in several parts');
  const expected = [...rows].sort((a, b) => (queueOrder(a.priority, a.depth, a.urlId) < queueOrder(b.priority, b.depth, b.urlId) ? -1 : 1));
  // Each part is asked for a share of 8 (three): the first three are exact.
  const first = await store.nextQueued(run.id, host, 8);
  assert.deepEqual(
    first.slice(0, 3).map((q) => q.urlId),
    expected.slice(0, 3).map((r) => r.urlId),
    'the first three of the whole queue, in order',
  );
  assert.equal(first.length, 8);
  // A short queue answers whole, however its URLs fall in the parts.
  const few = await store.nextQueued(run.id, host, 30);
  assert.deepEqual(
    few.map((q) => q.urlId),
    expected.map((r) => r.urlId),
    'all 24 in order when the limit passes them',
  );
  // Six URLs in one part and one in another: the full part is asked again, so seven of a limit of 8 come back.
  const other = 'skewed.example';
  const skewed = Array.from({ length: 200 }, (_, i) => `https://${other}/s${i}`)
    .map((url) => frontierRow({ runId: run.id, urlId: urlId(url), url, host: other, priority: 0 }))
    .filter((r) => shardOf(r.urlId, QUEUE_PARTS) === 0)
    .slice(0, 6);
  const lone = Array.from({ length: 50 }, (_, i) => `https://${other}/l${i}`)
    .map((url) => frontierRow({ runId: run.id, urlId: urlId(url), url, host: other, priority: 0 }))
    .find((r) => shardOf(r.urlId, QUEUE_PARTS) === 1)!;
  await store.addUrls([...skewed, lone]);
  assert.equal((await store.nextQueued(run.id, other, 8)).length, 7, 'a short answer means the queue holds no more');
  // A RUN item written before parts (no `queueParts`): its host's queue is one partition.
  const names = await emu.provision(`fetch-worker-old-${Date.now()}`);
  const oldRun = { id: 7 };
  const runItem = { ...keys.run(oldRun.id), type: 'RUN', id: oldRun.id, status: 'running', seeds: [], config: {}, startedAt: Date.now(), shards: 32 };
  await emu.clients.doc.send(new PutCommand({ TableName: names.table, Item: runItem }));
  const fresh = new DynamoCrawlStore(emu.clients.doc, names.table, { blobs: deps.blobs });
  await fresh.addUrls(rows.slice(0, 3).map((r) => ({ ...r, runId: oldRun.id })));
  const queued = await emu.clients.doc.send(
    new QueryCommand({
      TableName: names.table,
      IndexName: FRONTIER_INDEX.name,
      KeyConditionExpression: 'QPK = :q',
      ExpressionAttributeValues: { ':q': hostQueueKey(oldRun.id, host) },
    }),
  );
  assert.equal(queued.Items?.length, 3, 'one partition, as the run was made');
  assert.equal((await fresh.nextQueued(oldRun.id, host, 10)).length, 3);
});
