// A stalled run's recovery: nothing settled for a while, so some host's turn may be lost (its
// message dead-lettered, or its holder died between handing it on and sending it) or some URL's
// claim lapsed (a worker or page workflow that died). The recovery walks the run's unsettled URLs a
// bounded slice per Progress call, so its time is linear in them and one call's time is not: it
// gives each host with queued URLs and no live (or only an old) turn a new turn, and queues lapsed
// claims again (or fails them past their attempts).
import type { HostTurn } from '../../ports/index.js';
import type { CloudDeps } from './cloud-context.js';
import { runSettings } from './cloud-context.js';
import { inBatches } from '../../util/batches.js';
import { givePageSlotsBack } from './cloud-commit.js';

/** Progress checks in a row without a settled URL that make a stall. */
export const STALL_CHECKS = 5;
/** URL items the recovery reads in one Progress call: its time stays the same whatever the run's size. */
export const SWEEP_ITEMS_PER_CALL = 20_000;
/** URL items one read of a shard returns at most, and reads one call makes at most (an empty shard is a read too). */
const SWEEP_PAGE = 1_000;
const SWEEP_READS_PER_CALL = 100;
/**
 * A live turn not handed on for this long during a stall is taken as lost: longer than any wait a
 * turn sits out in the queue (a backed-off host's recheck, a failure's back-off, the visibility timeout).
 */
export const TURN_STALE_MS = 15 * 60_000;

/** Where a recovery is in the run's URLs, carried from one Progress call to the next. */
export interface Sweep {
  shard: number;
  cursor?: string;
  /** Turns given to hosts so far. */
  restarted: number;
  /** Lapsed claims queued again (or failed past their attempts) so far. */
  requeued: number;
}

/**
 * One slice of a recovery, from where `sweep` stopped (a new one when absent): `next` to go on
 * from, or `done` once the run's last shard is read. `limits`: the URL items a call reads and a
 * read returns; `claimsOnly`: lapsed claims only (the page budget is spent; hosts with URLs waiting
 * need no turn).
 */
export async function sweepStep(
  deps: CloudDeps,
  runId: number,
  sweep: Sweep | undefined,
  now: number,
  { limits = { items: SWEEP_ITEMS_PER_CALL, page: SWEEP_PAGE }, claimsOnly = false }: { limits?: { items: number; page: number }; claimsOnly?: boolean } = {},
): Promise<{ next: Sweep; done?: undefined } | { next?: undefined; done: Sweep }> {
  const at: Sweep = sweep ?? { shard: 0, restarted: 0, requeued: 0 };
  const shards = await deps.store.runShards(runId);
  const run = await deps.store.getRun(runId);
  const maxAttempts = run ? runSettings(run).maxAttempts : 4;
  const waiting = new Set<string>();
  const lapsedByHost = new Map<string, number>();
  let read = 0;
  let reads = 0;
  let { shard, cursor } = at;
  while (shard < shards && read < limits.items && reads < SWEEP_READS_PER_CALL) {
    const page = await deps.store.pendingUrls(runId, shard, limits.page, cursor);
    read += page.read;
    reads++;
    for (const u of page.urls) {
      if (u.state === 'queued') {
        if (!claimsOnly) waiting.add(u.host);
      } else if ((u.leaseUntil ?? 0) < now) {
        if (u.attempts + 1 >= maxAttempts) await deps.store.setUrlStates(runId, [u.urlId], 'failed', 'attempts-exhausted');
        else {
          await deps.store.releaseUrl(runId, u.urlId, u.attempts + 1);
          lapsedByHost.set(u.host, (lapsedByHost.get(u.host) ?? 0) + 1);
          // Its fetch died holding its page slots (a claim outlives the page workflow's longest run): they go back.
          await givePageSlotsBack(deps.store, runId, u);
        }
        at.requeued++;
      }
    }
    cursor = page.cursor;
    if (!cursor) shard++;
  }
  // Lapsed URLs are counted at their hosts again (which starts a turn where none is live); then every
  // host with URLs waiting whose turn is lost gets a new one.
  const counted = (await inBatches([...lapsedByHost], 16, ([host, n]) => deps.store.addHostWork(runId, host, n, now))).filter(
    (t): t is HostTurn => t !== undefined,
  );
  const given = new Set(counted.map((t) => t.host));
  // Read first (half a read unit a host), written only where the turn is missing or old.
  const candidates = [...new Set([...waiting, ...lapsedByHost.keys()])].filter((h) => !given.has(h));
  const records = await deps.store.hostTurns(runId, candidates);
  const staleMs = deps.turnStaleMs ?? TURN_STALE_MS;
  const lost = candidates.filter((h) => {
    const r = records.get(h);
    return !r?.closed && (r?.turn === undefined || (r.turnAt ?? 0) < now - staleMs);
  });
  const restarted = await inBatches(lost, 16, (host) => deps.store.restartTurn(runId, host, now, staleMs));
  const turns: Array<HostTurn | undefined> = [...counted, ...restarted];
  const started = turns.filter((t): t is HostTurn => t !== undefined);
  if (started.length) await deps.frontier.sendTurns(started);
  at.restarted += started.length;
  if (shard >= shards) {
    deps.logger.warn('stall recovery walked the run', { runId, restarted: at.restarted, requeued: at.requeued });
    return { done: at };
  }
  const { cursor: _old, ...next } = at;
  return { next: { ...next, shard, ...(cursor ? { cursor } : {}) } };
}

/** Dead-lettered turns Progress takes back each check, and how often a host's turn is given back from there. */
export const REDRIVE_PER_CHECK = 30;
export const MAX_REDRIVES = 3;

/**
 * The run's turns that reached the dead-letter queue (each failed every time it was taken, for a few
 * minutes) are given back to their hosts as new turns, a few times each: a host whose turn died
 * of a passing cause (a throttle, a timeout) is crawled on. Turns of other runs are left for theirs;
 * a host past MAX_REDRIVES keeps its turn in the queue for an operator (the DLQ's alarm). Returns how
 * many were given back.
 */
export async function redriveDeadTurns(deps: CloudDeps, runId: number, now: number): Promise<number> {
  const dead = await deps.frontier.deadTurns(REDRIVE_PER_CHECK);
  const turns: HostTurn[] = [];
  for (const { turn, receipt } of dead) {
    if (!turn || turn.runId !== runId) {
      await deps.frontier.settleDead(receipt, 'leave');
      continue;
    }
    const again = await deps.store.redriveTurn(turn, now, MAX_REDRIVES);
    const record = again ? undefined : await deps.store.hostTurn(runId, turn.host);
    // Given back, or no longer the host's turn (handed on, ended, closed): out of the dead letters.
    if (again || record?.turn !== turn.turn) {
      if (again) turns.push(again);
      await deps.frontier.settleDead(receipt, 'delete');
    } else await deps.frontier.settleDead(receipt, 'leave');
  }
  if (turns.length) {
    await deps.frontier.sendTurns(turns);
    deps.logger.warn('dead-lettered turns given back to their hosts', { runId, turns: turns.length });
  }
  return turns.length;
}
