import { errorMessage } from '../../errors.js';
import { FINAL_STATES, type UrlReason, type UrlState } from '../../ports/index.js';
import { commitCloud, givePageSlotsBack, queueAtHosts } from './cloud-commit.js';
import type { CloudContext } from './cloud-context.js';
import type { FetchOutcome } from '../stages/fetch-stage.js';
import type { PageTask } from './fetch-claimed.js';
import { taskBody } from './task-body.js';
import { fetchRecord, processStage } from '../stages/process-stage.js';
import type { RenderPass } from '../stages/process-content.js';
import { failedCapture, type RenderCapture, type RenderWanted } from '../stages/render-stage.js';

/** The page workflow's state as a step sees it: the page task, and the results of the steps before it. */
export type PageWorkflowInput = PageTask & {
  results?: {
    Extract?: { render?: RenderWanted };
    /** The Render step's capture, or the error Step Functions caught from it. */
    Render?: RenderCapture | { Error?: string; Cause?: string };
  };
};

/** Why a page step ended as it did where no URL reason says it: the step ran past its state timeout, or was put back after throttling. */
export type StepOutcome = 'step-timed-out' | 'processing-deferred';

export interface ExtractResult {
  urlId: string;
  /** The URL's state, or `render`: the workflow's Render step comes next. */
  state: UrlState | 'render';
  /** The URL's reason, the render decision's (free text), or the step's own outcome. */
  reason?: UrlReason | StepOutcome | (string & {});
  /** Where the extracted content went in S3, when there was any. */
  extracted?: string;
  links: number;
  /** The page needs rendering: the workflow takes the Render step, then extracts again (nothing was committed yet). */
  render?: RenderWanted;
}

/** What the Extract step does with the page: decide on rendering (first pass), or extract the render (after the Render step). */
async function renderPassOf(ctx: CloudContext, task: PageWorkflowInput): Promise<RenderPass> {
  const render = task.results?.Render;
  if (!render) return { decide: { host: (await ctx.store.getHost(task.row.host))?.state.render } };
  if ('ok' in render) return { capture: render };
  const reason = task.results?.Extract?.render?.reason ?? 'render';
  const error = `the Render step failed: ${render.Error ?? 'Error'} ${errorMessage(causeOf(render.Cause))}`;
  const failed = failedCapture(reason, ctx.clock(), error);
  return { capture: failed };
}

async function outcomeOf(ctx: CloudContext, task: PageTask): Promise<Extract<FetchOutcome, { kind: 'response' }>> {
  return {
    kind: 'response',
    res: { ...task.response, body: await taskBody(ctx, task) },
    contentHash: task.contentHash,
    bodyOwner: task.bodyOwner,
    previous: task.previous,
    at: task.at,
    warc: task.warc,
  };
}

/**
 * The page workflow's Extract state: markdown, metadata, links with context, SimHash and chunks
 * into DynamoDB (and `extracted/` in S3 where the deployment keeps snapshots); new URLs into the frontier. Repeating it (Express starts
 * at least once) rewrites the same items and sends nothing twice.
 */
export async function extractStage(ctx: CloudContext, task: PageWorkflowInput): Promise<ExtractResult> {
  // Three independent reads at once (a repeated start that finds the URL settled wastes one GET,
  // and the body's error only counts when the URL is still to be processed).
  const body = outcomeOf(ctx, task).then(
    (outcome) => ({ outcome }),
    (error: unknown) => ({ error }),
  );
  const [current, read, pass] = await Promise.all([ctx.store.getUrl(task.runId, task.row.urlId), body, renderPassOf(ctx, task)]);
  if (current && FINAL_STATES.has(current.state)) return { urlId: task.row.urlId, state: current.state, reason: current.reason, links: 0 };
  if ('error' in read) throw read.error;
  const result = await processStage(ctx, task.row, read.outcome, pass);
  if (result.renderWanted) return { urlId: task.row.urlId, state: 'render', reason: result.renderWanted.reason, links: 0, render: result.renderWanted };
  let extracted: string | undefined;
  if (ctx.extractedSnapshots && result.extract && result.page?.contentHash) {
    const { markdown, ...metadata } = result.extract;
    extracted = await ctx.objects.putExtracted(task.row.urlId, result.page.contentHash, {
      url: task.row.url,
      page: result.page,
      metadata,
      markdown,
      chunks: result.chunks ?? [],
      links: result.edges ?? [],
    });
  }
  await commitCloud(ctx, task.row, result, 0, task.counted === true);
  return { urlId: task.row.urlId, state: result.state, reason: result.reason, extracted, links: result.edges?.length ?? 0 };
}

/**
 * The page workflow's Catch: the fetch is still an interaction of the archive, recorded with
 * the error that stopped its processing, and the URL fails instead of hanging in flight.
 */
export async function recordFailureStage(
  ctx: CloudContext,
  task: PageTask & { results?: { Extract?: ExtractResult } },
  error: { Error?: string; Cause?: string },
): Promise<ExtractResult> {
  // A step after Extract failed (Summarize, Index, an extra step): Extract settled the URL and stored
  // the page; that final state stays, and the fetch is not recorded a second time.
  const extracted = task.results?.Extract;
  if (extracted && !extracted.render && extracted.state !== 'failed') {
    ctx.logger.error('a page step after Extract failed; the page stays stored', { url: task.row.url, state: extracted.state, error: error.Error });
    return extracted;
  }
  const outcome: FetchOutcome = { kind: 'response', res: { ...task.response, body: null }, contentHash: task.contentHash, at: task.at, warc: task.warc };
  const attempts = task.row.attempts + 1;
  // The state timed out while its Lambda may still run: the URL stays claimed (its lease lapses if the Lambda stopped).
  if (error.Error === 'States.Timeout') {
    ctx.logger.warn('a page step ran past its state timeout: the URL stays in flight until its claim lapses', { url: task.row.url });
    return { urlId: task.row.urlId, state: 'in_flight', reason: 'step-timed-out', links: 0 };
  }
  const transient = transientStepError(error);
  // Extract may have failed after its commit settled the URL (on a write after it): what the table holds decides.
  const current = transient ? await ctx.store.getUrl(task.runId, task.row.urlId) : undefined;
  if (current && current.state !== 'in_flight') {
    ctx.logger.warn('a page step failed after its URL settled; it stays as it is', { url: task.row.url, state: current.state, error: error.Error });
    return { urlId: task.row.urlId, state: current.state, reason: current.reason, links: 0 };
  }
  if (transient && attempts < ctx.settings.maxAttempts) return deferPage(ctx, task, outcome, attempts, error);
  const reason = `processing-failed: ${error.Error ?? 'Error'}`;
  const fetch = { ...fetchRecord(task.row, outcome), error: `${reason}: ${errorMessage(causeOf(error.Cause))}`.slice(0, 2000) };
  await ctx.store.commitFetch({
    runId: task.runId,
    urlId: task.row.urlId,
    state: 'failed',
    reason: 'processing-failed',
    attempts,
    fetch,
    fetchCounted: task.counted === true,
  });
  ctx.logger.error('page processing failed', { url: task.row.url, error: fetch.error });
  return { urlId: task.row.urlId, state: 'failed', reason: 'processing-failed', links: 0 };
}

/**
 * A page step throttled or out of time (AWS's capacity, not the page): the URL goes back to its
 * host's queue to be fetched again later, with its page slots; the fetch stays in the archive with
 * what stopped it.
 */
async function deferPage(
  ctx: CloudContext,
  task: PageTask,
  outcome: FetchOutcome,
  attempts: number,
  error: { Error?: string; Cause?: string },
): Promise<ExtractResult> {
  const fetch = {
    ...fetchRecord(task.row, outcome),
    error: `processing deferred: ${error.Error ?? 'Error'}: ${errorMessage(causeOf(error.Cause))}`.slice(0, 2000),
  };
  const notBefore = ctx.clock() + STEP_RETRY_MS * 2 ** (attempts - 1);
  await ctx.store.commitFetch({ runId: task.runId, urlId: task.row.urlId, state: 'queued', attempts, notBefore, fetch, fetchCounted: task.counted === true });
  await givePageSlotsBack(ctx.store, task.runId, task.row);
  await queueAtHosts(ctx, [{ ...task.row, state: 'queued' }]);
  ctx.logger.warn('a page step was throttled or ran out of time: the URL goes back to its host queue', { url: task.row.url, error: error.Error, attempts });
  return { urlId: task.row.urlId, state: 'queued', reason: 'processing-deferred', links: 0 };
}

/** A page step's retry waits this long after its first failure, doubling with each attempt. */
export const STEP_RETRY_MS = 60_000;

/**
 * Errors of a page step that say nothing about the page: AWS's throttles, Lambda's service errors,
 * a Lambda that timed out (and so stopped). Not the state's own timeout (`States.Timeout`): the
 * Lambda may still be running and settle the URL; if it does not, the URL's claim lapses and the
 * stall's recovery queues it again.
 */
const TRANSIENT_STEP_ERRORS =
  /^(Sandbox\.Timedout|Lambda\.|ThrottlingException|ProvisionedThroughputExceededException|RequestLimitExceeded|TooManyRequestsException|SlowDown|ServiceUnavailable|InternalServerError)/;

/** Whether a page step's error (Step Functions' `Error`) is one a later attempt may not meet. */
export function transientStepError(error: { Error?: string }): boolean {
  return TRANSIENT_STEP_ERRORS.test(error.Error ?? '');
}

/** Step Functions passes a Lambda error's cause as a JSON string ({errorMessage, errorType, ...}). */
function causeOf(cause: string | undefined): unknown {
  if (!cause) return 'no cause given';
  try {
    const parsed = JSON.parse(cause) as { errorMessage?: string };
    return parsed.errorMessage ?? cause;
  } catch {
    return cause;
  }
}
