import type { HostTurn, WorkflowStarter } from '../../ports/index.js';
import { errorMessage, MalformedMessageError, nextStep } from '../../errors.js';
import { parseHostTurn } from '../../ports/frontier-message.js';
import { withRun, type CloudDeps } from './cloud-context.js';
import { takeTurn } from './host-turn.js';
import { InvocationWarcs } from './invocation-warcs.js';
import { recordFailureStage } from './page-workflow.js';

export { claimRetryMs, HOST_LEASE_MS, URL_LEASE_MS, type TurnStep } from './host-turn.js';
export type { PageTask } from './fetch-claimed.js';
import type { PageTask } from './fetch-claimed.js';

export interface WaitPolicy {
  /** A host ready within this long is waited for in the handler instead of handing the message back. */
  maxInlineWaitMs: number;
  /** Stop waiting in the handler once this much time has gone by (stay well inside the Lambda timeout). */
  maxTotalWaitMs: number;
  /**
   * When the handler must be done (by the context's clock): a further step is taken only while a
   * fetch at the run's timeout, and the hand-on after it, still fit before it. Absent: no deadline.
   */
  endsAt?: number;
  sleep?: (ms: number) => Promise<void>;
}

/**
 * What a message keeps after its last step's fetch: handing its turn on, then the batch's tail
 * (uploading its WARC files, starting every page's workflow, settling a start refused).
 */
export const HAND_ON_RESERVE_MS = 15_000;

/**
 * Waits longer than this are handed back to the queue instead of slept in the handler. A second of
 * the worker (512 MB, arm64) costs $6.7 per million; a hand-back costs two SQS requests ($1 per
 * million) and a re-delivery: sleeping is only cheaper below ~200 ms (the cloud bench's cost meter). A
 * host then waits whole seconds (SQS visibility), never less than its delay.
 */
export const MAX_INLINE_WAIT_MS = 200;

/**
 * How long a handler with `remainingMs` left may wait for hosts and go on taking steps: a host ready
 * within MAX_INLINE_WAIT_MS is waited for, waiting stops 20 s short of the timeout, and a step is
 * taken only while its fetch fits before the handler's end.
 */
export function waitPolicyFor(remainingMs = 60_000, now = Date.now()): WaitPolicy {
  return { maxInlineWaitMs: MAX_INLINE_WAIT_MS, maxTotalWaitMs: Math.max(0, remainingMs - 20_000), endsAt: now + remainingMs };
}

/**
 * A turn handed back this many times is sent again as a fresh copy instead: SQS counts every
 * receive towards the dead-letter queue's limit, and only failures should reach it (a host leased
 * for a long render hands its turn back every second).
 */
export const RENEW_AFTER_RECEIVES = 4;

/**
 * How long a turn that failed waits before it is received again: 5 s, doubling with each receive,
 * at most a minute. With the queue's redrive limit a message that always fails reaches the
 * dead-letter queue in a few minutes, and its host waits seconds, not the visibility timeout.
 */
export function failureBackoffMs(receives: number): number {
  return Math.min(60_000, 5_000 * 2 ** Math.max(0, receives - 1));
}

/**
 * What to do with a turn's message: delete it (starting the page workflow of the pages fetched, and
 * sending the next turn when the host has more), or hand it back for later (its turn still live).
 */
export type TurnVerdict =
  { action: 'delete'; outcome: string; pages?: PageTask[]; next?: HostTurn } | { action: 'later'; delayMs: number; outcome: string; pages?: PageTask[] };

/** A dispatch message as the queue delivered it. */
export interface ReceivedMessage {
  body: string;
  receipt: string;
  id: string;
  group?: string;
  /** SQS's ApproximateReceiveCount. */
  receives?: number;
}

/** What became of a received message: its verdict, dead-lettered (malformed: never retried), or its URL failed for good. */
export type MessageSettlement =
  (TurnVerdict & { turn: HostTurn }) | { action: 'dead-lettered'; reason: string } | { action: 'url-failed'; turn: HostTurn; reason: string };

/**
 * A delivered message body to its settlement. A body that is not a host turn is dead-lettered
 * with its reason; an error whose next step is failing the URL settles it; any other error is
 * thrown so the queue redelivers the message (the handler hands it back with a short back-off first).
 */
export async function settleFrontierMessage(
  deps: CloudDeps & { pageWorkflow: WorkflowStarter },
  message: ReceivedMessage,
  policy: WaitPolicy,
): Promise<MessageSettlement> {
  let turn: HostTurn;
  try {
    turn = parseHostTurn(message.body);
  } catch (err) {
    if (!(err instanceof MalformedMessageError)) throw err;
    await deps.frontier.deadLetter(message.body, err.message, message.group ?? 'malformed', message.id);
    return { action: 'dead-lettered', reason: err.message };
  }
  try {
    return { ...(await handleFrontierMessage(deps, turn, message, policy)), turn };
  } catch (err) {
    if (nextStep(err) === 'fail-url') return { action: 'url-failed', turn, reason: errorMessage(err) };
    throw err;
  }
}

/**
 * One received turn, from receipt to what happens to it: short waits for the host here, longer
 * ones hand the message back (a fresh copy once it was handed back often); a fetched page starts
 * the page workflow, and the next turn is sent.
 */
export async function handleFrontierMessage(
  deps: CloudDeps & { pageWorkflow: WorkflowStarter },
  turn: HostTurn,
  message: Pick<ReceivedMessage, 'receipt' | 'id' | 'receives'>,
  policy: WaitPolicy,
): Promise<TurnVerdict> {
  const verdict = await frontierMessageStage(deps, turn, policy);
  // The pages the message fetched, whether its turn goes on or waits. Pages whose records are in the
  // invocation's shared WARC files are started by the invocation, once those are uploaded.
  if (!deps.warcs) for (const page of verdict.pages ?? []) await startPageWorkflow(deps, page);
  if (verdict.action === 'later') {
    // A turn that waits (the host's delay or back-off, a spent page budget) is alive: its time is
    // renewed, so the stall's recovery never takes it for lost and sends its host a second one.
    await deps.store.keepTurn(turn, 0, (deps.clock ?? Date.now)());
    if ((message.receives ?? 1) < RENEW_AFTER_RECEIVES) {
      await deps.frontier.handBack(message.receipt, verdict.delayMs);
      return verdict;
    }
    // Renewed: this message is deleted, its copy waits in the queue (received at once, then handed back for the wait).
    await deps.frontier.sendTurns([{ ...turn, copy: message.id }]);
    return { action: 'delete', outcome: `${verdict.outcome}; renewed` };
  }
  if (verdict.action === 'delete' && verdict.next) await deps.frontier.sendTurns([verdict.next]);
  return verdict;
}

/**
 * A batch of turns taken at once (`take`, handed the pages list its turns fill): they share one
 * WARC file a run, uploaded when they are all done; then the pages they fetched start their
 * workflows. Resolves with `take`'s result and how many pages were refused a start (each settled
 * as its workflow's Catch would: back to its host's queue after a throttle, failed otherwise). An
 * upload that fails fails the batch, as a worker that died: its URLs' claims lapse and a stalled
 * run's recovery queues them again.
 */
export async function takeBatch<D extends CloudDeps & { pageWorkflow: WorkflowStarter }, T>(
  deps: D,
  take: (deps: D & { warcs: InvocationWarcs }, fetched: PageTask[]) => Promise<T>,
): Promise<{ result: T; refused: number }> {
  const warcs = new InvocationWarcs(deps.objects);
  const fetched: PageTask[] = [];
  let result: T;
  try {
    result = await take({ ...deps, warcs }, fetched);
  } finally {
    await warcs.close();
  }
  // The batch's requests are counted here, once a run and minute, not by each page's commit.
  for (const page of fetched) page.counted = true;
  const starts = await Promise.allSettled(fetched.map((page) => startPageWorkflow(deps, page)));
  const started = fetched.filter((_, i) => starts[i]!.status === 'fulfilled');
  try {
    await deps.store.countRequests(
      started.map((p) => ({ runId: p.row.runId, fetchedAt: p.at, status: p.response.status, notModified: p.response.status === 304 })),
    );
  } catch (err) {
    // A minute of the activity series short, never a batch failed after its pages went on.
    deps.logger.warn('the batch’s requests could not be counted in the run’s activity', { pages: started.length, error: errorMessage(err) });
  }
  let refused = 0;
  for (const [i, start] of starts.entries()) {
    if (start.status === 'fulfilled') continue;
    refused++;
    // Its request is counted with its failure's record instead.
    const page = { ...fetched[i]!, counted: false };
    const error = { Error: (start.reason as Error | undefined)?.name ?? 'Error', Cause: JSON.stringify({ errorMessage: errorMessage(start.reason) }) };
    deps.logger.error('a page workflow did not start', { url: page.row.url, error: error.Error, cause: errorMessage(start.reason) });
    try {
      await withRun(deps, page.row.runId, (ctx) => recordFailureStage(ctx, page, error));
    } catch (err) {
      // Not settled either: its URL's claim lapses, and a stalled run's recovery queues it again.
      deps.logger.error('a page whose workflow did not start could not be settled', { url: page.row.url, error: errorMessage(err) });
    }
  }
  return { result, refused };
}

/** Starts a fetched page's workflow (its WARC record uploaded), named after the page's attempt. */
export async function startPageWorkflow(deps: { pageWorkflow: WorkflowStarter }, page: PageTask): Promise<void> {
  const row = page.row;
  await deps.pageWorkflow.start(`r${row.runId}-${row.urlId}-${row.attempts}-${Date.now().toString(36)}`, page);
}

/** Steps of one host's turn one message takes in a row at most (each at the host's own pace), so a message's time stays bounded. */
export const MAX_STEPS_A_MESSAGE = 20;

/**
 * One turn to its verdict: short waits for the host happen here, long ones are for the caller to
 * hand back. A host ready again within `maxInlineWaitMs` after a fetch keeps this worker: its turn
 * takes its next steps here (up to MAX_STEPS_A_MESSAGE), without a round trip through the queue.
 * The turn keeps its number through them and is handed on once, when the message is done with it:
 * a message redelivered after its holder died finds its turn still live, or its successor named.
 */
export async function frontierMessageStage(deps: CloudDeps, turn: HostTurn, policy: WaitPolicy): Promise<TurnVerdict> {
  const sleep = policy.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  let waited = 0;
  let steps = 0;
  const pages: PageTask[] = [];
  const outcomes: string[] = [];
  const withPages = () => ({ outcome: outcomes.join(', '), ...(pages.length ? { pages } : {}) });
  // One context for the message however long it waits: one run read, one fetcher, one WARC file.
  return withRun(deps, turn.runId, async (ctx) => {
    // A step after a wait of `delayMs` fits when its fetch (at the run's timeout) and the hand-on still end in time.
    const fits = (delayMs: number) => policy.endsAt === undefined || ctx.clock() + delayMs + ctx.settings.timeoutMs + HAND_ON_RESERVE_MS <= policy.endsAt;
    for (;;) {
      const step = await takeTurn(ctx, turn);
      const inline = (delayMs: number) => delayMs <= policy.maxInlineWaitMs && waited + delayMs <= policy.maxTotalWaitMs && fits(delayMs);
      if (step.action === 'later') {
        if (inline(step.delayMs)) {
          await sleep(step.delayMs);
          waited += step.delayMs;
          continue;
        }
        // Steps taken before are counted, their pages go on; the turn (still live) waits in the queue as this message.
        if (steps > 0) ctx.logger.debug('turn waits after its steps', { host: turn.host, outcomes: outcomes.join(', ') });
        return { ...step, outcome: [...outcomes, step.outcome].join(', '), ...(pages.length ? { pages } : {}) };
      }
      pages.push(...(step.pages ?? []));
      outcomes.push(step.outcome);
      if (step.action === 'done') return { action: 'delete', ...withPages() };
      const delayMs = Math.max(0, (step.readyAt ?? Infinity) - ctx.clock());
      if (++steps >= MAX_STEPS_A_MESSAGE || !inline(delayMs)) {
        const next = await handOnLast(deps, turn, ctx.clock());
        return { action: 'delete', ...withPages(), ...(next ? { next } : {}) };
      }
      if (delayMs > 0) await sleep(delayMs);
      waited += delayMs;
    }
  });
}

/**
 * Hands a turn on when its message is done with it. A turn no longer live whose successor is the
 * live one was handed on by a holder that died before sending it: the successor is sent again (a
 * copy SQS still holds is dropped as a duplicate within its 5-minute window).
 */
async function handOnLast(deps: CloudDeps, turn: HostTurn, now: number): Promise<HostTurn | undefined> {
  const next = await deps.store.passTurn(turn, 0, now);
  if (next) return next;
  const record = await deps.store.hostTurn(turn.runId, turn.host);
  return record?.turn === turn.turn + 1 ? { ...turn, turn: record.turn } : undefined;
}
