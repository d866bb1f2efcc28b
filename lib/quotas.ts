import { CrawlConfigError } from '../shared/errors.js';
import { RANK_ROUNDS_MAX } from '../shared/graph/sharded-rank.js';

/**
 * AWS quotas and limits the stack must fit, checked when it is synthesized so that a prop or a
 * crawls.json combination that would break one fails `cdk synth`, naming it, instead of failing a
 * run days later. Figures: Step Functions quotas (Standard history 25,000 events; Express 5
 * minutes), SQS FIFO (message group id ≤ 128 characters), DynamoDB (item ≤ 400 KB).
 */
export const STANDARD_HISTORY_EVENTS = 25_000;
/** Wait (entered, exited), Progress (entered, scheduled, started, succeeded, exited), RunOver (entered, exited). */
export const EVENTS_PER_POLL = 9;
/** A poll that also rebuilds the full-text generation: RebuildText's entered, scheduled, started, succeeded, exited. */
export const EVENTS_PER_POLL_WITH_TEXT_REBUILD = EVENTS_PER_POLL + 5;
/**
 * A run's end: FinalizeStart, FinalizeRun, a Catch's FailRun and its MarkRunFailed (5 events each), seven Distributed
 * Maps over the shards, the changes' partitions and the archive's parts (entered, map run started and succeeded, exited, with room: 6 each), and
 * each ranking round (its Map, RankCheck's 5, the Ranked choice's 2) up to the rounds' cap.
 */
export const FINALIZE_EVENTS = 20 + 7 * 6 + RANK_ROUNDS_MAX * (6 + 5 + 2);
/** InitRun, Discover, the run's end and the execution's own events, with room to spare. */
const EVENTS_OUTSIDE_POLLS = 60 + FINALIZE_EVENTS;
export const EXPRESS_LIMIT_SECONDS = 300;
export const SQS_GROUP_ID_MAX = 128;
/** SQS's rule for an event source: the queue's visibility timeout is at least six times the function's timeout. */
export const VISIBILITY_PER_TIMEOUT = 6;

/**
 * History events a run of `maxMinutes` writes polling every `pollSeconds`, counted as if every poll
 * rebuilt the full-text generation when the loop can (`textRebuild`): the worst case it must fit.
 */
export function runHistoryEvents(maxMinutes: number, pollSeconds: number, textRebuild = false): number {
  return Math.ceil((maxMinutes * 60) / pollSeconds) * eventsPerPoll(textRebuild) + EVENTS_OUTSIDE_POLLS;
}

function eventsPerPoll(textRebuild: boolean): number {
  return textRebuild ? EVENTS_PER_POLL_WITH_TEXT_REBUILD : EVENTS_PER_POLL;
}

/** Fails when the longest run a crawl allows would pass the Standard history quota before its deadline. */
export function checkRunHistory(where: string, maxMinutes: number, pollSeconds: number, textRebuild = false): void {
  const events = runHistoryEvents(maxMinutes, pollSeconds, textRebuild);
  if (events <= STANDARD_HISTORY_EVENTS) return;
  const perPoll = eventsPerPoll(textRebuild);
  const longest = Math.floor((((STANDARD_HISTORY_EVENTS - EVENTS_OUTSIDE_POLLS) / perPoll) * pollSeconds) / 60);
  const poll = Math.ceil((maxMinutes * 60 * perPoll) / (STANDARD_HISTORY_EVENTS - EVENTS_OUTSIDE_POLLS));
  throw new CrawlConfigError(
    `${where}: a run of maxMinutes ${maxMinutes} polled every ${pollSeconds} s writes ${events} history events, past Step Functions' ${STANDARD_HISTORY_EVENTS} for a Standard execution: use maxMinutes ≤ ${longest} or pollInterval ≥ ${poll} s`,
  );
}

/** One retrier of a task: waits between attempts are interval × rate^k, capped by maxDelay. */
export interface RetryBudget {
  intervalSeconds: number;
  backoffRate: number;
  maxAttempts: number;
  maxDelaySeconds?: number;
  /** The retried errors include the task's timeout: each retry may take the whole timeout again. */
  retriesTimeouts?: boolean;
  /** How long an attempt that fails with these errors may run first (a step that waits inside its Lambda before giving up). */
  failedAttemptSeconds?: number;
}

/**
 * The longest a task can take: one attempt to its timeout, every retry's wait, every failed
 * attempt's own time (its timeout for timeout retries, `failedAttemptSeconds` for errors raised
 * after waiting in the Lambda).
 */
export function taskWorstSeconds(timeoutSeconds: number, retriers: readonly RetryBudget[]): number {
  let total = timeoutSeconds;
  for (const r of retriers) {
    for (let k = 0; k < r.maxAttempts; k++) total += Math.min(r.intervalSeconds * r.backoffRate ** k, r.maxDelaySeconds ?? Infinity);
    if (r.retriesTimeouts) total += r.maxAttempts * timeoutSeconds;
    else if (r.failedAttemptSeconds) total += r.maxAttempts * r.failedAttemptSeconds;
  }
  return total;
}

/** Fails when the page workflow's longest path, retries included, could pass the Express limit (its Catch would then never run). */
export function checkExpressBudget(where: string, steps: ReadonlyArray<{ name: string; worstSeconds: number }>): void {
  const total = steps.reduce((s, x) => s + x.worstSeconds, 0);
  if (total <= EXPRESS_LIMIT_SECONDS) return;
  throw new CrawlConfigError(
    `${where}: the page workflow's longest path can take ${Math.ceil(total)} s with its retries (${steps.map((s) => `${s.name} ${Math.ceil(s.worstSeconds)} s`).join(', ')}), past the ${EXPRESS_LIMIT_SECONDS} s an Express execution may run: shorten a step's timeout (extraPageSteps[].timeout) or drop a step`,
  );
}

/** EventBridge: a rule target's constant input is at most 8,192 characters. */
export const EVENTBRIDGE_INPUT_MAX = 8192;

/** Fails when a crawl's run input (its seeds, limits, profile) is too long for its schedule's rule target. */
export function checkScheduleInput(where: string, input: unknown): void {
  const length = JSON.stringify(input).length;
  if (length <= EVENTBRIDGE_INPUT_MAX) return;
  throw new CrawlConfigError(
    `${where}: its run input is ${length} characters, past the ${EVENTBRIDGE_INPUT_MAX} EventBridge allows a rule's target: list fewer seeds (each site's sitemaps are found from its robots.txt) or split the crawl into several`,
  );
}
