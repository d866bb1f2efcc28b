import type { FetchResponse } from '../../fetch/http-fetcher.js';
import { afterRequest, readyAt, type HostState } from '../../politeness/host-state.js';
import { robotsAllows } from '../../robots/robots-policy.js';
import { SETTLED_STATES, type FrontierRow, type HostRecord, type PageRecord, type WarcLocation, type WorkflowStarter } from '../../store/ports/index.js';
import { originOf } from '../../url/canonical.js';
import { errorMessage, MalformedMessageError, nextStep } from '../../errors.js';
import { parseFrontierMessage } from '../../store/frontier-message.js';
import { commitCloud, enqueueCandidates } from './cloud-commit.js';
import { withRun, type CloudContext, type CloudDeps } from './cloud-context.js';
import { politenessConfig } from '../stages/context.js';
import { fetchStage } from '../stages/fetch-stage.js';
import { needsContent, processStage } from '../stages/process-stage.js';
import { robotsTurn } from '../stages/robots-stage.js';
import { pageSlotsAfter, robotsRefusalCommit } from '../stages/run-records.js';

/** A claim on a host outlives any one request (timeouts included) but not a crashed worker for long. */
export const HOST_LEASE_MS = 90_000;
/** How soon a message for a host another worker holds is looked at again. */
const LEASED_RETRY_MS = 1_000;

/** How long to wait before asking for a refused host claim again: until the host is ready, and at least a second while another worker holds it. */
export function claimRetryMs(claim: { readyAt: number; leased: boolean }, now: number): number {
  return Math.max(claim.leased ? LEASED_RETRY_MS : 1, claim.readyAt - now);
}

/**
 * A claimed URL stays claimed through its fetch and its page workflow; only a crash leaves a
 * claim to lapse, and then the redelivered message fetches the URL again.
 */
export const URL_LEASE_MS = 10 * 60_000;

/** Everything the page workflow needs to extract a fetched page; the body is read back from its WARC record (`taskBody`). */
export interface PageTask {
  runId: number;
  row: FrontierRow;
  response: Omit<FetchResponse, 'body'>;
  contentHash?: string;
  /** The page that first fetched these bytes, claimed at fetch time. */
  bodyOwner?: string;
  previous?: PageRecord;
  at: number;
  warc?: WarcLocation;
}

/** What to do with the frontier message: delete it (maybe starting the page workflow), or hand it back for later. */
export type WorkerVerdict = { action: 'delete'; outcome: string; page?: PageTask } | { action: 'later'; delayMs: number; outcome: string };

/**
 * The fetch worker's stage: one frontier message, under the host's politeness claim. The
 * claim (a conditional write on the host item) is what keeps every host at its delay,
 * Crawl-delay and back-off, whatever the number of workers.
 */
export async function fetchWorker(ctx: CloudContext, message: FrontierRow): Promise<WorkerVerdict> {
  const now = ctx.clock();
  if (ctx.run.status !== 'running') return { action: 'delete', outcome: `run-${ctx.run.status}` };
  // A run past its deadline is over, whether or not its execution lived to say so.
  const endsBy = ctx.run.config.endsBy;
  if (typeof endsBy === 'number' && now >= endsBy) return { action: 'delete', outcome: 'run-past-deadline' };
  const current = await ctx.store.getUrl(message.runId, message.urlId);
  if (!current || SETTLED_STATES.has(current.state)) return { action: 'delete', outcome: 'already-settled' };
  if (current.notBefore > now) return { action: 'later', delayMs: current.notBefore - now, outcome: 'not-before' };
  const claim = await ctx.store.claimHost(message.host, ctx.workerId, now, HOST_LEASE_MS);
  if (!claim.claimed && claim.parkedReason) {
    // A parked host may have a back-off far away: its URLs settle now, as in the embedded crawl.
    await ctx.store.setUrlStates(message.runId, [message.urlId], 'skipped', 'host-parked');
    return { action: 'delete', outcome: 'host-parked' };
  }
  if (!claim.claimed) {
    // Another worker is at the host (its request takes seconds at most, the lease is only a crash guard): look again soon.
    const delayMs = claimRetryMs(claim, now);
    return { action: 'later', delayMs, outcome: claim.leased ? 'host-leased' : 'host-not-ready' };
  }
  let state: HostState = { ...claim.record.state, host: message.host };
  try {
    return await underClaim(ctx, current, claim.record, (next) => {
      state = next;
    });
  } finally {
    await ctx.store.releaseHost(state, ctx.workerId);
  }
}

async function underClaim(ctx: CloudContext, row: FrontierRow, host: HostRecord, setState: (s: HostState) => void): Promise<WorkerVerdict> {
  let state: HostState = { ...host.state, host: row.host };
  if (state.parkedReason) {
    await ctx.store.setUrlStates(row.runId, [row.urlId], 'skipped', 'host-parked');
    return { action: 'delete', outcome: 'host-parked' };
  }
  const turn = await robotsTurn(ctx, row.runId, { origin: originOf(row.url), host: row.host, state, stored: host });
  const { load } = turn;
  state = turn.state;
  setState(state);
  if (load.requested) {
    // robots.txt was a request to the host: the page waits its turn like any other request. Its
    // sitemaps are enqueued when it is read (every URL of the host takes this turn, from the store).
    if (turn.sitemaps.length) await enqueueCandidates(ctx, turn.sitemaps);
    if (state.parkedReason) {
      await ctx.store.setUrlStates(row.runId, [row.urlId], 'skipped', 'host-parked');
      return { action: 'delete', outcome: 'host-parked' };
    }
    return { action: 'later', delayMs: Math.max(1, readyAt(state) - ctx.clock()), outcome: 'robots-fetched' };
  }
  const { pathname, search } = new URL(row.url);
  if (load.policy.kind !== 'unreachable' && !robotsAllows(load.policy, pathname + search)) {
    await ctx.store.commitFetch(robotsRefusalCommit(row, ctx.clock()));
    return { action: 'delete', outcome: 'robots' };
  }
  const claimed = await ctx.store.claimUrl(row.runId, row.urlId, ctx.clock(), ctx.urlLeaseMs ?? URL_LEASE_MS);
  // Claimed by a worker that may have crashed: try again once its claim can have lapsed.
  if (!claimed) return { action: 'later', delayMs: 60_000, outcome: 'claimed-elsewhere' };
  const countsAsPage = claimed.kind === 'page';
  if (countsAsPage && !(await ctx.store.claimPageSlot(row.runId, ctx.settings.maxPages))) {
    // The page budget is spent: the URL stays queued, as in an embedded crawl that hit --max-pages.
    await ctx.store.setUrlStates(row.runId, [row.urlId], 'queued', 'max-pages');
    return { action: 'delete', outcome: 'max-pages' };
  }
  if (countsAsPage && !(await ctx.store.claimHostSlot(row.runId, row.host, ctx.settings.maxPagesPerHost))) {
    await ctx.store.releasePageSlot(row.runId);
    await ctx.store.setUrlStates(row.runId, [row.urlId], 'skipped', 'max-pages-per-host');
    return { action: 'delete', outcome: 'max-pages-per-host' };
  }
  return fetchClaimed(ctx, claimed, state, setState);
}

async function fetchClaimed(ctx: CloudContext, row: FrontierRow, state: HostState, setState: (s: HostState) => void): Promise<WorkerVerdict> {
  const politeness = politenessConfig(ctx.settings);
  const outcome = await fetchStage(ctx, row);
  if (needsContent(outcome)) {
    setState(afterRequest(state, { kind: 'response', status: outcome.res.status, at: ctx.clock() }, politeness));
    const { body: _body, ...response } = outcome.res;
    return {
      action: 'delete',
      outcome: `http-${outcome.res.status}`,
      page: {
        runId: row.runId,
        row,
        response,
        contentHash: outcome.contentHash,
        bodyOwner: outcome.bodyOwner,
        previous: outcome.previous,
        at: outcome.at,
        warc: outcome.warc,
      },
    };
  }
  const result = await processStage(ctx, row, outcome);
  const next = result.hostEvent ? afterRequest(state, result.hostEvent, politeness) : state;
  setState(next);
  const countsAsPage = row.kind === 'page';
  const slots = pageSlotsAfter(countsAsPage, { retry: result.retry, answered: result.fetch?.status !== undefined });
  if (slots.releaseRunSlot) await ctx.store.releasePageSlot(row.runId);
  // The host slot was claimed before the fetch: given back unless the page used it.
  if (countsAsPage && !slots.usesHostSlot) await ctx.store.releaseHostSlot(row.runId, row.host);
  await commitCloud(ctx, row, result, readyAt(next));
  if (next.parkedReason) ctx.logger.warn('host parked', { host: row.host, reason: next.parkedReason });
  return { action: 'delete', outcome: result.reason ?? result.state };
}

export interface WaitPolicy {
  /** A host ready within this long is waited for in the handler instead of handing the message back. */
  maxInlineWaitMs: number;
  /** Stop waiting in the handler once this much time has gone by (stay well inside the Lambda timeout). */
  maxTotalWaitMs: number;
  sleep?: (ms: number) => Promise<void>;
}

/**
 * Waits longer than this are handed back to the queue instead of slept in the handler. A second of
 * the worker (512 MB, arm64) costs $6.7 per million; a hand-back costs two SQS requests ($1 per
 * million) and a re-delivery: sleeping is only cheaper below ~200 ms (the cloud bench's cost meter). A
 * host then waits whole seconds (SQS visibility), never less than its delay.
 */
export const MAX_INLINE_WAIT_MS = 200;

/** How long a handler with `remainingMs` left may wait for hosts: a host ready within MAX_INLINE_WAIT_MS is waited for, and waiting stops a minute short of the timeout. */
export function waitPolicyFor(remainingMs = 120_000): WaitPolicy {
  return { maxInlineWaitMs: MAX_INLINE_WAIT_MS, maxTotalWaitMs: Math.max(0, remainingMs - 60_000) };
}

/** A frontier message as the queue delivered it. */
export interface ReceivedMessage {
  body: string;
  receipt: string;
  id: string;
  group?: string;
}

/** What became of a received message: its verdict, dead-lettered (malformed: never retried), or its URL failed for good. */
export type MessageSettlement =
  (WorkerVerdict & { row: FrontierRow }) | { action: 'dead-lettered'; reason: string } | { action: 'url-failed'; row: FrontierRow; reason: string };

/**
 * A delivered message body to its settlement. A body that is not a frontier row is dead-lettered
 * with its reason; an error whose next step is failing the URL settles it; any other error is
 * thrown so the queue redelivers the message.
 */
export async function settleFrontierMessage(
  deps: CloudDeps & { pageWorkflow: WorkflowStarter },
  message: ReceivedMessage,
  policy: WaitPolicy,
): Promise<MessageSettlement> {
  let row: FrontierRow;
  try {
    row = parseFrontierMessage(message.body);
  } catch (err) {
    if (!(err instanceof MalformedMessageError)) throw err;
    await deps.frontier.deadLetter(message.body, err.message, message.group ?? 'malformed', message.id);
    return { action: 'dead-lettered', reason: err.message };
  }
  try {
    return { ...(await handleFrontierMessage(deps, row, message.receipt, policy)), row };
  } catch (err) {
    if (nextStep(err) === 'fail-url') return { action: 'url-failed', row, reason: errorMessage(err) };
    throw err;
  }
}

/**
 * One received frontier message, from receipt to what happens to it: short waits for the host
 * here, longer ones hand the message back; a fetched page starts the page workflow.
 */
export async function handleFrontierMessage(
  deps: CloudDeps & { pageWorkflow: WorkflowStarter },
  message: FrontierRow,
  receipt: string,
  policy: WaitPolicy,
): Promise<WorkerVerdict> {
  const verdict = await frontierMessageStage(deps, message, policy);
  if (verdict.action === 'later') await deps.frontier.handBack(receipt, verdict.delayMs);
  else if (verdict.page) await deps.pageWorkflow.start(`r${message.runId}-${message.urlId}-${message.attempts}-${Date.now().toString(36)}`, verdict.page);
  return verdict;
}

/** One frontier message to its verdict: short waits for the host happen here, long ones are for the caller to hand back. */
export async function frontierMessageStage(deps: CloudDeps, message: FrontierRow, policy: WaitPolicy): Promise<WorkerVerdict> {
  const sleep = policy.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  let waited = 0;
  // One context for the message however long it waits: one run read, one fetcher, one WARC file.
  return withRun(deps, message.runId, async (ctx) => {
    for (;;) {
      const verdict = await fetchWorker(ctx, message);
      if (verdict.action !== 'later' || verdict.delayMs > policy.maxInlineWaitMs || waited + verdict.delayMs > policy.maxTotalWaitMs) return verdict;
      await sleep(verdict.delayMs);
      waited += verdict.delayMs;
    }
  });
}
