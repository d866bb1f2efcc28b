// Run control on the emulators: when a run is over, and what a stalled run does.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { GetQueueAttributesCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { createLogger } from '../../shared/log/logger.js';
import type { CloudDeps } from '../../shared/pipeline/cloud/cloud-context.js';
import { initRun, progressStage, STALL_CHECKS, type ProgressState, type RunState } from '../../shared/pipeline/cloud/run-control.js';
import { RUN_END_GRACE_MS } from '../../shared/pipeline/cloud/run-deadline.js';
import { DynamoCrawlStore } from '../../shared/store/aws/dynamo-store.js';
import { S3BlobStore, S3Objects } from '../../shared/store/aws/s3-store.js';
import { FRONTIER_QUEUE, SqsFrontier } from '../../shared/store/aws/sqs-frontier.js';
import type { FrontierRow, HostTurn } from '../../shared/ports/index.js';
import { sweepStep, TURN_STALE_MS, type Sweep } from '../../shared/pipeline/cloud/stall-recovery.js';
import { startEmulators, type Emulators } from '../../support/cloud/emulators.js';
import { frontierRow } from '../../support/helpers.js';

let emu: Emulators;
let n = 0;
before(async () => {
  emu = await startEmulators();
});
after(() => emu.stop());

async function setup(now: () => number): Promise<{ deps: CloudDeps; queueUrl: string; dlqUrl: string; state: RunState }> {
  const names = await emu.provision(`run-control-${++n}`);
  const objects = new S3Objects(emu.clients.s3, names.bucket);
  const blobs = new S3BlobStore(objects);
  const store = new DynamoCrawlStore(emu.clients.doc, names.table, { blobs });
  const deps: CloudDeps = { store, blobs, objects, frontier: new SqsFrontier(emu.clients.sqs, names.queueUrl), logger: createLogger('silent'), clock: now };
  const run = await store.createRun(['http://a.test/'], {}, now());
  const row = (id: string): FrontierRow => frontierRow({ runId: run.id, urlId: id, url: `http://a.test/${id}` });
  await store.addUrls([row('a'), row('b')]);
  return { deps, queueUrl: names.queueUrl, dlqUrl: names.dlqUrl, state: { runId: run.id, crawl: 'c', deadline: now() + 60_000, maxPages: 10 } };
}

test('a run is drained when every URL it enqueued has settled', async () => {
  const { deps, state } = await setup(Date.now);
  assert.equal((await progressStage(deps, state)).reason, 'running');
  for (const id of ['a', 'b']) await deps.store.commitFetch({ runId: state.runId, urlId: id, state: 'done', attempts: 1 });
  const p = await progressStage(deps, state);
  assert.deepEqual([p.done, p.reason, p.enqueued, p.settled], [true, 'drained', 2, 2]);
});

test('a run past its deadline ends', async () => {
  let now = 1_000;
  const { deps, state } = await setup(() => now);
  now = state.deadline;
  assert.deepEqual(await progressStage(deps, state).then((p) => [p.done, p.reason]), [true, 'deadline']);
});

const turnsIn = async (queueUrl: string): Promise<HostTurn[]> => {
  const res = await emu.clients.sqs.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10 }));
  return (res.Messages ?? []).map((m) => JSON.parse(m.Body!) as HostTurn);
};

test('a stalled run gives its hosts whose turn was lost a new one, and goes idle', async () => {
  const { deps, queueUrl, state } = await setup(Date.now);
  let p: ProgressState = await progressStage(deps, state);
  for (let i = 0; i < STALL_CHECKS; i++) p = await progressStage(deps, p);
  assert.equal(p.restarted, 1);
  assert.equal(p.stalledChecks, 0);
  assert.equal(p.sweep, undefined, 'a small run is walked in one call');
  assert.deepEqual(await turnsIn(queueUrl), [{ runId: state.runId, host: 'a.test', turn: 1 }]);
  assert.ok((await deps.store.getRun(state.runId))?.idleSince, 'the run is idle from its first stall');
});

test('a run whose page budget is spent and whose last fetch lost its claim ends: the stall queues the claim again with its page slot, and the run ends on its budget', async () => {
  let now = Date.now();
  const { deps, queueUrl, state } = await setup(() => now);
  const budget = { ...state, maxPages: 1 };
  assert.ok(await deps.store.claimPageSlot(state.runId, 1));
  // The page workflow of the budget's last page died: its URL stays in flight until its claim lapses.
  await deps.store.claimUrl(state.runId, 'a', now, 1000);
  let p: ProgressState = await progressStage(deps, budget);
  assert.equal(p.done, false, 'a fetch is in flight');
  now += 5000;
  for (let i = 0; i < STALL_CHECKS && !p.done; i++) p = await progressStage(deps, p);
  assert.equal(p.requeued, 1, 'the lapsed claim is queued again');
  assert.equal((await deps.store.runProgress(state.runId))?.pages, 0, 'with the page slot its dead fetch held');
  assert.deepEqual(await turnsIn(queueUrl), [{ runId: state.runId, host: 'a.test', turn: 1 }], 'its host gets a turn, no other is restarted');
  // Its turn fetches it again under the budget, and the run ends on it.
  assert.ok(await deps.store.claimPageSlot(state.runId, 1));
  await deps.store.claimUrl(state.runId, 'a', now, 1000);
  await deps.store.commitFetch({ runId: state.runId, urlId: 'a', state: 'done', attempts: 2 });
  p = await progressStage(deps, p);
  assert.deepEqual([p.done, p.reason], [true, 'budget']);
  assert.equal((await deps.store.getRun(state.runId))?.idleSince, undefined, 'a spent budget is not idleness');
});

test('a recovery walks a run a slice a call, queues lapsed claims again with one more attempt, and fails them past their attempts', async () => {
  let now = Date.now();
  const { deps, queueUrl, state } = await setup(() => now);
  const row = (id: string, host: string): FrontierRow => frontierRow({ runId: state.runId, urlId: id.padEnd(32, '0'), url: `http://${host}/${id}`, host });
  const rows = Array.from({ length: 40 }, (_, i) => row(`c${i}`, `h${i % 8}.test`));
  await deps.store.addUrls(rows);
  // Two claims that lapsed (a worker died mid-fetch): one with tries left, one on its last.
  await deps.store.claimUrl(state.runId, rows[0]!.urlId, now, 1000);
  await deps.store.claimUrl(state.runId, rows[1]!.urlId, now, 1000);
  await deps.store.releaseUrl(state.runId, rows[1]!.urlId, 3);
  await deps.store.claimUrl(state.runId, rows[1]!.urlId, now, 1000);
  now += 5000;
  let sweep: Sweep | undefined;
  let calls = 0;
  const turns: HostTurn[] = [];
  for (;;) {
    const step = await sweepStep(deps, state.runId, sweep, now, { limits: { items: 10, page: 5 } });
    calls++;
    turns.push(...(await turnsIn(queueUrl)));
    if (step.done) {
      assert.equal(step.done.requeued, 2);
      break;
    }
    sweep = step.next;
  }
  assert.ok(calls >= 4, `42 URLs at 10 a call take several calls (${calls})`);
  assert.deepEqual([...new Set(turns.map((t) => t.host))].sort(), ['a.test', ...Array.from({ length: 8 }, (_, i) => `h${i}.test`)].sort());
  const lapsed = await deps.store.getUrl(state.runId, rows[0]!.urlId);
  assert.deepEqual([lapsed?.state, lapsed?.attempts], ['queued', 1]);
  assert.deepEqual(
    [(await deps.store.getUrl(state.runId, rows[1]!.urlId))?.state, (await deps.store.getUrl(state.runId, rows[1]!.urlId))?.reason],
    ['failed', 'attempts-exhausted'],
  );
});

test("a turn handed back past the queue's receive limit lands in its DLQ whole; its URLs stay queued and a stall gives the host a new turn", async () => {
  let now = Date.now();
  const { deps, queueUrl, dlqUrl, state } = await setup(() => now);
  // The emulated queue is the template's: its visibility and redrive come from the construct's settings.
  const attrs = (await emu.clients.sqs.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['All'] }))).Attributes!;
  assert.equal(Number(attrs.VisibilityTimeout), FRONTIER_QUEUE.visibilityTimeoutSeconds);
  assert.equal((JSON.parse(attrs.RedrivePolicy!) as { maxReceiveCount: number }).maxReceiveCount, FRONTIER_QUEUE.maxReceiveCount);
  const turn = await deps.store.addHostWork(state.runId, 'a.test', 2, now);
  assert.ok(turn);
  await deps.frontier.sendTurns([turn]);
  // A turn that fails every time: the worker hands it back each time it gets it.
  let received = 0;
  for (;;) {
    const res = await emu.clients.sqs.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, WaitTimeSeconds: 1 }));
    const m = res.Messages?.[0];
    if (!m) break;
    received++;
    assert.ok(received <= FRONTIER_QUEUE.maxReceiveCount, 'past the receive limit the message must leave the queue');
    await deps.frontier.handBack(m.ReceiptHandle!, 0);
  }
  assert.ok(received > 1, `received ${received} times`);
  const dead = await emu.clients.sqs.send(new ReceiveMessageCommand({ QueueUrl: dlqUrl, WaitTimeSeconds: 1 }));
  assert.deepEqual(
    (dead.Messages ?? []).map((m) => JSON.parse(m.Body!) as HostTurn),
    [turn],
  );
  // Nothing was lost: the URLs are still queued; a stall after the lost turn went stale gives the host a new one.
  now += TURN_STALE_MS + 1;
  let p: ProgressState = await progressStage(deps, { ...state, deadline: now + 60_000 });
  for (let i = 0; i < STALL_CHECKS; i++) p = await progressStage(deps, p);
  assert.equal(p.restarted, 1);
  assert.deepEqual(await turnsIn(queueUrl), [{ runId: state.runId, host: 'a.test', turn: 2 }]);
});

test('a run whose execution died: later schedules skip it until its deadline and grace pass, then mark it failed and start', async () => {
  let now = Date.parse('2026-11-01T00:00:00Z');
  const { deps } = await setup(() => now);
  const input = { crawl: 'nightly', seeds: ['http://127.0.0.1:9/'], settings: { allowPrivateNetwork: true }, maxMinutes: 60 };
  const first = await initRun(deps, input);
  assert.ok('runId' in first);
  assert.equal((await deps.store.getRun(first.runId))?.config.endsBy, now + 60 * 60_000, 'the deadline travels with the run');
  // Its execution is gone (no state ever ends the run): the next schedules find it running.
  now += 60 * 60_000 + RUN_END_GRACE_MS - 1;
  assert.deepEqual(await initRun(deps, input), { crawl: 'nightly', skipped: first.runId });
  now += 2;
  const next = await initRun(deps, input);
  assert.ok('runId' in next && next.runId !== first.runId, JSON.stringify(next));
  assert.equal((await deps.store.getRun(first.runId))?.status, 'failed');
  assert.equal((await deps.store.getRun(next.runId))?.status, 'running');
});
