// A turn at a host: the fetch worker's stage for one dispatch message. Under the host's politeness
// claim, the turn takes its host's next queued URL by priority (robots.txt first), fetches it and
// hands the turn on; a host whose queue is empty ends its turn; one parked, past its page cap or
// backed off past the run's patience closes its queue, the URLs left there settled in one write.
import { readyAt, type HostState } from '../../politeness/host-state.js';
import { robotsAllows } from '../../robots/robots-policy.js';
import type { FrontierRow, HostRecord, HostTurn, QueueClosing } from '../../ports/index.js';
import { originOf } from '../../url/canonical.js';
import { enqueueCandidates } from './cloud-commit.js';
import { rememberRunChange, type CloudContext } from './cloud-context.js';
import { fetchClaimed, type PageTask } from './fetch-claimed.js';
import { robotsTurn } from '../stages/robots-stage.js';
import { robotsRefusalCommit } from '../stages/run-records.js';

/** A claim on a host outlives any one request (timeouts included) but not a crashed worker for long. */
export const HOST_LEASE_MS = 90_000;
/** How soon a turn whose host another worker holds looks again. */
const LEASED_RETRY_MS = 1_000;
/** URLs of a host's queue a turn reads at once: a few claimed elsewhere or refused by robots.txt still leave one to fetch. */
export const TURN_CANDIDATES = 8;
/** The queue index lags its table by a moment: a turn that finds it empty while URLs are counted looks again this soon. */
const INDEX_CATCH_UP_MS = 1_000;
/** ...and past this long with a live turn and an empty index, the count is wrong (a lost decrement): the turn ends and the count is zeroed. */
export const INDEX_LAG_MAX_MS = 60_000;
/**
 * A backed-off host's turn comes back after the run's idle bound (`maxIdleWaitMs`, at least this), to
 * see whether the run has gone idle meanwhile: then its URLs are deferred and the run can end.
 */
export const IDLE_RECHECK_MIN_MS = 1_000;

/**
 * A claimed URL stays claimed through its fetch and its page workflow; only a crash leaves a
 * claim to lapse, and then the stall recovery queues the URL again.
 */
export const URL_LEASE_MS = 10 * 60_000;

/** A turn that finds the run's page budget spent waits this long before it looks again. */
export const PAGES_FULL_WAIT_MS = 60_000;

/**
 * One step of a turn: it goes on (`next`: the URLs it took are counted out of the host's queue, the
 * turn stays live; `readyAt` is when the host takes its next request), it is over (`done`: the
 * host's queue is empty or closed, or the turn was not live), or it waits (`later`).
 */
export type TurnStep =
  | { action: 'next'; outcome: string; pages?: PageTask[]; readyAt?: number }
  | { action: 'done'; outcome: string; pages?: PageTask[] }
  | { action: 'later'; delayMs: number; outcome: string };

/** How long to wait before asking for a refused host claim again: until the host is ready, and at least a second while another worker holds it. */
export function claimRetryMs(claim: { readyAt: number; leased: boolean }, now: number): number {
  return Math.max(claim.leased ? LEASED_RETRY_MS : 1, claim.readyAt - now);
}

const later = (delayMs: number, outcome: string): TurnStep => ({ action: 'later', delayMs: Math.max(1, delayMs), outcome });
const done = (outcome: string): TurnStep => ({ action: 'done', outcome });

/**
 * One turn at a host, under the host's politeness claim (a conditional write on the host item,
 * whatever the run): what keeps every host at its delay, Crawl-delay and back-off, across runs.
 */
export async function takeTurn(ctx: CloudContext, turn: HostTurn): Promise<TurnStep> {
  const now = ctx.clock();
  if (ctx.run.status !== 'running') return done(`run-${ctx.run.status}`);
  // A run past its deadline is over, whether or not its execution lived to say so.
  const endsBy = ctx.run.config.endsBy;
  if (typeof endsBy === 'number' && now >= endsBy) return done('run-past-deadline');
  // The page budget was found spent a moment ago: the turn waits (a slot given back lets it go on),
  // without a write; the run ends once its fetches in flight are done, and its turns are dropped then.
  if (ctx.run.pagesFullAt !== undefined && now - ctx.run.pagesFullAt < PAGES_FULL_WAIT_MS) return later(PAGES_FULL_WAIT_MS, 'max-pages');
  const claim = await ctx.store.claimHost(turn.host, ctx.workerId, now, HOST_LEASE_MS);
  if (!claim.claimed && claim.parkedReason) return closeQueue(ctx, turn, 0, { state: 'skipped', reason: 'host-parked' }, 'host-parked');
  if (!claim.claimed) {
    const wait = claimRetryMs(claim, now);
    if (claim.backedOff && wait > ctx.settings.maxIdleWaitMs) {
      // Backed off past the run's patience: once the run is idle its URLs wait for a later run.
      if (ctx.run.idleSince !== undefined) return closeQueue(ctx, turn, 0, { state: 'deferred', reason: 'backed-off', notBefore: claim.readyAt }, 'backed-off');
      return later(Math.min(wait, Math.max(ctx.settings.maxIdleWaitMs, IDLE_RECHECK_MIN_MS)), 'host-backed-off');
    }
    return later(wait, claim.leased ? 'host-leased' : 'host-not-ready');
  }
  let state: HostState = { ...claim.record.state, host: turn.host };
  try {
    return await underClaim(ctx, turn, claim.record, (next) => {
      state = next;
    });
  } finally {
    try {
      await ctx.store.releaseHost(state, ctx.workerId);
    } finally {
      // The step's claims not counted with a page slot (robots.txt first, a non-page URL, a budget spent).
      await ctx.store.flushCounters();
    }
  }
}

async function underClaim(ctx: CloudContext, turn: HostTurn, host: HostRecord, setState: (s: HostState) => void): Promise<TurnStep> {
  let state: HostState = { ...host.state, host: turn.host };
  if (state.parkedReason) return closeQueue(ctx, turn, 0, { state: 'skipped', reason: 'host-parked' }, 'host-parked');
  const queued = await ctx.store.nextQueued(turn.runId, turn.host, TURN_CANDIDATES);
  if (queued.length === 0) return drained(ctx, turn);
  const now = ctx.clock();
  const ready = queued.filter((q) => q.notBefore <= now);
  if (ready.length === 0) return later(Math.min(...queued.map((q) => q.notBefore)) - now, 'not-before');
  let taken = 0;
  for (const q of ready) {
    // Counted with the page slot it goes on to claim: one write for both.
    const row = await ctx.store.claimUrl(turn.runId, q.urlId, ctx.clock(), ctx.urlLeaseMs ?? URL_LEASE_MS, true);
    // Claimed or settled since the index was read: the next one.
    if (!row) continue;
    taken++;
    const robots = await robotsTurn(ctx, turn.runId, { origin: originOf(row.url), host: turn.host, state, stored: host });
    state = robots.state;
    setState(state);
    if (robots.load.requested) {
      // robots.txt was this turn's request: the URL goes back to its place and waits for the host.
      await ctx.store.releaseUrl(turn.runId, row.urlId);
      taken--;
      if (robots.sitemaps.length) await enqueueCandidates(ctx, robots.sitemaps);
      if (state.parkedReason) return closeQueue(ctx, turn, taken, { state: 'skipped', reason: 'host-parked' }, 'host-parked');
      return later(readyAt(state) - ctx.clock(), 'robots-fetched');
    }
    const { pathname, search } = new URL(row.url);
    if (robots.load.policy.kind !== 'unreachable' && !robotsAllows(robots.load.policy, pathname + search)) {
      // No request was made: the next URL of the host may go in this same turn.
      await ctx.store.commitFetch(robotsRefusalCommit(row, ctx.clock()));
      continue;
    }
    return fetchInTurn(ctx, turn, row, { state, setState, taken, maybeLast: queued.length < TURN_CANDIDATES });
  }
  return handOn(ctx, turn, taken, taken ? 'robots' : 'claimed-elsewhere', { maybeLast: queued.length < TURN_CANDIDATES });
}

/** The page and host budgets, then the fetch of the claimed URL, then the turn handed on. */
async function fetchInTurn(
  ctx: CloudContext,
  turn: HostTurn,
  row: FrontierRow,
  at: { state: HostState; setState: (s: HostState) => void; taken: number; maybeLast: boolean },
): Promise<TurnStep> {
  const countsAsPage = row.kind === 'page';
  if (countsAsPage && !(await ctx.store.claimPageSlot(row.runId, ctx.settings.maxPages))) {
    // The page budget is spent: the URL goes back to its place, as in an embedded crawl that hit
    // --max-pages, and the run says so for a while, so every other turn waits without a write. The
    // URLs this step took are counted out first (the robots.txt refusals before it).
    await ctx.store.releaseUrl(row.runId, row.urlId);
    if (at.taken > 1) await ctx.store.keepTurn(turn, at.taken - 1, ctx.clock());
    const fullAt = ctx.clock();
    await ctx.store.markPagesFull(row.runId, fullAt);
    // This container's next turns see it in their cached RUN item: one write a container, not one a turn.
    rememberRunChange(ctx.store, row.runId, { pagesFullAt: fullAt });
    return later(PAGES_FULL_WAIT_MS, 'max-pages');
  }
  // The host's page slot and the turn kept, in one write: the step needs no keepTurn after its fetch.
  const slot = countsAsPage ? await ctx.store.keepTurnWithSlot(turn, at.taken, ctx.clock(), ctx.settings.maxPagesPerHost) : undefined;
  // A turn no longer live still fetches the URL it claimed, as it always did: its hand-on finds it stale.
  if (slot === 'full' || (slot === 'stale' && !(await ctx.store.claimHostSlot(row.runId, row.host, ctx.settings.maxPagesPerHost)))) {
    await ctx.store.releasePageSlot(row.runId);
    await ctx.store.setUrlStates(row.runId, [row.urlId], 'skipped', 'max-pages-per-host');
    return closeQueue(ctx, turn, at.taken, { state: 'skipped', reason: 'max-pages-per-host' }, 'max-pages-per-host');
  }
  const kept = slot === 'kept';
  let after = at.state;
  const fetched = await fetchClaimed(ctx, row, at.state, (next) => {
    after = next;
    at.setState(next);
  });
  const handed = await handOn(ctx, turn, kept ? 0 : at.taken, fetched.outcome, { maybeLast: at.maybeLast, kept });
  return { ...handed, ...(fetched.page ? { pages: [fetched.page] } : {}), ...(handed.action === 'next' ? { readyAt: readyAt(after) } : {}) } as TurnStep;
}

/**
 * After a turn's step that took `taken` URLs out of its host's queue: the turn goes on (the URLs
 * counted out, the turn still live, handed on by the caller when it stops taking steps), or it ends
 * when nothing is left (`maybeLast`: the queue read showed fewer URLs than it asked for).
 */
async function handOn(
  ctx: CloudContext,
  turn: HostTurn,
  taken: number,
  outcome: string,
  { maybeLast, kept = false }: { maybeLast: boolean; kept?: boolean },
): Promise<TurnStep> {
  if (maybeLast && (await ctx.store.endTurn(turn, taken))) return done(outcome);
  // `kept`: the step's page slot kept the turn a moment ago (its URLs counted out then).
  if (kept || (await ctx.store.keepTurn(turn, taken, ctx.clock()))) return { action: 'next', outcome };
  // Not live: a duplicate of a turn already handed on; its work is done, nothing more is sent.
  return done(`${outcome}; stale-turn`);
}

/** The host's queue reads empty: the turn ends, unless URLs are counted that the index does not show yet. */
async function drained(ctx: CloudContext, turn: HostTurn): Promise<TurnStep> {
  if (await ctx.store.endTurn(turn, 0)) return done('host-drained');
  const record = await ctx.store.hostTurn(turn.runId, turn.host);
  if (record?.turn !== turn.turn) return done('stale-turn');
  if (ctx.clock() - (record.turnAt ?? 0) > INDEX_LAG_MAX_MS) {
    ctx.logger.warn('a host queue counted URLs its index did not show for a minute: its count is reset', { runId: turn.runId, host: turn.host });
    await ctx.store.endTurn(turn, 0, true);
    return done('host-drained');
  }
  return later(INDEX_CATCH_UP_MS, 'queue-catching-up');
}

/** Closes the host's queue for the run (parked, capped or deferred): the URLs left there settle at once. */
async function closeQueue(ctx: CloudContext, turn: HostTurn, taken: number, closing: QueueClosing, outcome: string): Promise<TurnStep> {
  const settled = await ctx.store.closeHostQueue(turn, taken, closing);
  if (settled === undefined) return done(`${outcome}; stale-turn`);
  if (settled > 0) ctx.logger.info('a host queue closed for the run', { runId: turn.runId, host: turn.host, reason: closing.reason, urls: settled });
  return done(outcome);
}
