// The run's end as the run machine takes it, step by step on the emulators (DynamoDB, S3): the
// shards' collect steps (a few URL items a step, so each shard takes several), the ranking
// phases a shard each, the rounds until RankCheck says they converged, and the write. The ranks,
// inlinks, linking hosts, sources and top pages equal those FinalizeRun computes alone on a copy
// of the same run; queued URLs are settled as FinalizeRun alone settles them (in the run's counters).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { DynamoCrawlStore } from '../../shared/store/aws/dynamo-store.js';
import { DynamoGraph } from '../../shared/store/aws/dynamo-graph.js';
import { S3BlobStore, S3Objects } from '../../shared/store/aws/s3-store.js';
import { SqsFrontier } from '../../shared/store/aws/sqs-frontier.js';
import { createLogger } from '../../shared/log/logger.js';
import {
  finalizeStart,
  finalizeStep,
  finishRanks,
  type FinalizeDeps,
  type FinalizeEvent,
  type FinalizePlan,
} from '../../shared/pipeline/cloud/run-finalize.js';
import { finalizeRun } from '../../shared/pipeline/cloud/run-control.js';
import { urlId } from '../../shared/url/canonical.js';
import { startEmulators, type Emulators } from '../../support/cloud/emulators.js';
import { tableItems } from '../../support/cloud/harness.js';
import { frontierRow } from '../../support/helpers.js';
import { edge, page } from '../store-records.js';

let emu: Emulators;
before(async () => {
  emu = await startEmulators();
});
after(() => emu.stop());

const url = (i: number) => `http://h${i % 4}.test/p${i}`;

/** A run of 90 URLs: 70 stored pages on four hosts with seeded links, 10 redirects to them, 10 still queued. */
async function seeded(name: string): Promise<{ deps: FinalizeDeps; table: string; runId: number }> {
  const names = await emu.provision(name);
  const objects = new S3Objects(emu.clients.s3, names.bucket);
  const store = new DynamoCrawlStore(emu.clients.doc, names.table, { blobs: new S3BlobStore(objects) });
  const graph = new DynamoGraph(emu.clients.doc, names.table);
  const run = await store.createRun([url(0)], {}, 1);
  await store.addUrls(Array.from({ length: 90 }, (_, i) => frontierRow({ runId: run.id, urlId: urlId(url(i)), url: url(i), host: `h${i % 4}.test` })));
  let x = 7;
  const rand = () => (x = (Math.imul(x, 1103515245) + 12345) >>> 0) / 2 ** 32;
  for (let i = 0; i < 70; i++) {
    const targets = i % 9 === 0 ? [] : Array.from({ length: 1 + Math.floor(rand() * 8) }, () => Math.floor(rand() * 82));
    await store.commitFetch({
      runId: run.id,
      urlId: urlId(url(i)),
      state: 'done',
      attempts: 1,
      page: page({ runId: run.id, urlId: urlId(url(i)), contentHash: `c${i}`, fetchedAt: 1, url: url(i), host: `h${i % 4}.test`, title: `Page ${i}` }),
      edges: targets.map((t) => edge(urlId(url(i)), `c${i}`, urlId(url(t)), { toUrl: url(t) })),
    });
  }
  for (let i = 70; i < 80; i++)
    await store.commitFetch({
      runId: run.id,
      urlId: urlId(url(i)),
      state: 'done',
      reason: 'redirect',
      attempts: 1,
      aliases: [{ urlId: urlId(url(i)), url: url(i), targetUrl: url(i - 70), reason: 'redirect' }],
    });
  const deps: FinalizeDeps = {
    store,
    blobs: new S3BlobStore(objects),
    objects,
    frontier: new SqsFrontier(emu.clients.sqs, names.queueUrl),
    logger: createLogger('silent'),
    ranks: graph,
    urls: store,
  };
  return { deps, table: names.table, runId: run.id };
}

const ending = (runId: number) => ({
  runId,
  crawl: 'c',
  deadline: 0,
  maxPages: 1000,
  enqueued: 90,
  settled: 80,
  pages: 70,
  lastSettled: 80,
  stalledChecks: 0,
  resent: 0,
  done: true,
  reason: 'deadline' as const,
});

/** The ranks and the queued URLs' states a run's end left in its table. */
async function ended(table: string) {
  const items = await tableItems(emu, table);
  const pages = items.filter((i) => i.SK === 'PAGE').map((i) => [i.url, Number(i.pagerank), i.inlinks, i.inlinkHosts] as const);
  const inlinks = items.filter((i) => i.SK === 'INLINKS').map((i) => [i.urlId, i.count, [...(i.sources as string[])].sort()] as const);
  const top = (items.find((i) => i.SK === 'TOP')?.pages as Array<{ url: string }>).map((p) => p.url);
  const states = items.filter((i) => String(i.SK).startsWith('URL#')).map((i) => [i.urlId, i.state, i.reason] as const);
  const sort = <T extends readonly unknown[]>(a: T[]) => a.sort((p, q) => String(p[0]).localeCompare(String(q[0])));
  return { pages: sort(pages), inlinks: sort(inlinks), top, states: sort(states) };
}

test('the run’s end shard by shard, a few URL items a step, ranks and settles the run as FinalizeRun alone does', { timeout: 120_000 }, async () => {
  const alone = await seeded('alone');
  await alone.deps.store.setRunStatus(alone.runId, 'finished', 2);
  await alone.deps.store.settleQueued(alone.runId, 'host-too-slow');
  assert.equal(await (alone.deps.ranks as DynamoGraph).computeRanks(alone.runId), 70);

  const spread = await seeded('spread');
  const plan = await finalizeStart(spread.deps, ending(spread.runId), { spreadPages: 0 });
  assert.equal(plan.spread, true);
  assert.equal(plan.settle, 'host-too-slow');
  let steps = 0;
  const counts: number[] = [];
  for (const shard of plan.shards) {
    let event: FinalizeEvent & { action: 'collect' } = { action: 'collect', runId: spread.runId, shard, limit: 2 };
    for (;;) {
      event = (await finalizeStep(spread.deps, event)) as typeof event;
      steps++;
      if (!event.cursor) break;
    }
    counts.push(event.base!);
  }
  assert.ok(steps > plan.shards.length + 20, `a shard is read in several steps (${steps} steps for ${plan.shards.length} shards)`);
  assert.equal(
    counts.reduce((a, b) => a + b, 0),
    70,
  );
  for (const action of ['gather', 'link', 'degrees'] as const)
    for (const shard of plan.shards) await finalizeStep(spread.deps, { action, runId: spread.runId, shard, counts });
  let finalize: FinalizePlan & { collected: { counts: number[] } } = { ...plan, collected: { counts } };
  for (;;) {
    finalize = { ...((await finalizeStep(spread.deps, { action: 'rank-check', runId: spread.runId, finalize })) as FinalizePlan), collected: { counts } };
    if (finalize.done) break;
    const deltas: number[] = [];
    for (const shard of plan.shards)
      deltas.push((await finalizeStep(spread.deps, { action: 'rank', runId: spread.runId, shard, round: finalize.round, counts })) as number);
    finalize = { ...finalize, deltas };
  }
  assert.ok(finalize.round > 5, `${finalize.round} rounds`);
  // The write loops too: a slice of the shard a call, while it answers a cursor.
  let writes = 0;
  for (const shard of plan.shards) {
    let event: FinalizeEvent & { action: 'write' } = { action: 'write', runId: spread.runId, shard, round: finalize.round, counts, limit: 1 };
    for (;;) {
      const next = (await finalizeStep(spread.deps, event)) as { cursor?: string };
      writes++;
      if (!next.cursor) break;
      event = { ...event, cursor: next.cursor };
    }
  }
  assert.equal(
    writes,
    counts.reduce((n, c) => n + Math.max(1, c), 0),
    'a call a page, at a slice of one',
  );
  assert.equal(await finishRanks(spread.deps, spread.runId), 70);

  const [a, b] = [await ended(alone.table), await ended(spread.table)];
  assert.equal(b.pages.length, 70);
  for (const [i, p] of b.pages.entries()) {
    const q = a.pages[i]!;
    assert.deepEqual([p[0], p[2], p[3]], [q[0], q[2], q[3]]);
    assert.ok(Math.abs(p[1] - q[1]) < 1e-12, `${String(p[0])}: ${p[1]} vs ${q[1]}`);
  }
  assert.deepEqual(b.inlinks, a.inlinks);
  assert.deepEqual(b.top, a.top);
  assert.deepEqual(b.states, a.states);
  // Settled in the counters, one write: the items still read queued, every read shows them skipped.
  assert.equal(b.states.filter((s) => s[1] === 'queued').length, 10, 'no URL item was rewritten to settle it');
  for (const { deps, runId } of [alone, spread]) {
    const seen = await deps.store.seenUrls(runId);
    assert.equal(seen.filter((u) => u.state === 'skipped' && u.reason === 'host-too-slow').length, 10);
    assert.equal((await deps.store.summary(runId)).skipsByReason['host-too-slow'], 10);
    assert.deepEqual(await deps.store.queuedUrls(runId), []);
  }
});

test('a failed end of a run ended shard by shard ends it failed without a step that reads the whole run', { timeout: 60_000 }, async () => {
  const failed = await seeded('failed-spread');
  const plan = await finalizeStart(failed.deps, ending(failed.runId), { spreadPages: 0 });
  const out = await finalizeRun(
    { ...failed.deps, graph: failed.deps.ranks as DynamoGraph },
    { ...ending(failed.runId), finalize: plan, finalizeError: { Error: 'States.TaskFailed', Cause: 'a rank step failed' } },
  );
  assert.equal(out.status, 'failed');
  assert.equal(out.wacz, undefined, 'no WACZ of the whole run');
  const urls = (await tableItems(emu, failed.table)).filter((i) => String(i.SK).startsWith('URL#'));
  assert.equal(urls.filter((i) => i.state === 'queued').length, 10, 'its queued URLs were not read to settle them');
  const report = JSON.parse((await failed.deps.objects.get(out.report))!.toString()) as { reason: string; error: { Cause: string } };
  assert.deepEqual([report.reason, report.error.Cause], ['failed', 'a rank step failed']);
  assert.equal((await failed.deps.store.getRun(failed.runId))!.status, 'failed');
});
