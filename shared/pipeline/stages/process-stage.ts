import { nextStep, PageProcessingError } from '../../errors.js';
import { isThrottle, type ResponseEvent } from '../../politeness/host-state.js';
import { parseRetryAfter } from '../../politeness/retry-after.js';
import type { FetchResponse } from '../../fetch/http-fetcher.js';
import type { FetchCommit, FetchRecord, FrontierRow, RecordKind, UrlReason, UrlState } from '../../ports/index.js';
import type { CrawlContext } from './context.js';
import type { FetchOutcome } from './fetch-stage.js';
import { contentOf, contentResult, type ContentResult, type RenderPass } from './process-content.js';
import { renderRecord } from './render-stage.js';
import { GONE_STATUSES } from '../../changes/page-change.js';
import type { LinkCandidate } from './admission.js';
import { urlId } from '../../url/canonical.js';

/** What one fetch means for the crawl: the URL's new state, what to store, and what to crawl next. */
export interface ProcessResult extends Omit<ContentResult, 'duplicateOf'> {
  state: UrlState;
  reason?: UrlReason;
  /** Put the URL back in the queue (throttled or transient failure with attempts left). */
  retry: boolean;
  fetch?: FetchRecord;
  /** What the host's politeness state learns; undefined when no request reached it. */
  hostEvent?: ResponseEvent;
  notModified: boolean;
  /** The browser's interaction record, when the page was rendered (or the render was tried). */
  rendered?: FetchRecord;
}

/** What the store commits for one processed fetch: the result's records, with the runtime's own attempt, delay and discoveries. */
export function toFetchCommit(
  result: ProcessResult,
  where: Pick<FetchCommit, 'runId' | 'urlId' | 'attempts' | 'notBefore' | 'discovered' | 'reprioritized'>,
): FetchCommit {
  const { state, reason, fetch, rendered, page, edges, extract, chunks, aliases } = result;
  return { ...where, state, reason, fetch, rendered, page, edges, extract, chunks, aliases };
}

/** What an interaction was once its response is known: a PDF, raw bytes of another type, or the kind asked for. */
function recordKind(row: FrontierRow, outcome: FetchOutcome): RecordKind {
  if (outcome.kind !== 'response') return row.kind;
  if (outcome.res.contentClass === 'pdf') return 'pdf';
  if (outcome.res.skipped || (outcome.res.contentClass === 'text' && row.kind === 'page')) return 'raw';
  return row.kind;
}

/** The interaction record of one fetch outcome. */
export function fetchRecord(row: FrontierRow, outcome: FetchOutcome): FetchRecord {
  const base = {
    runId: row.runId,
    urlId: row.urlId,
    url: row.url,
    rawUrl: row.rawUrl,
    kind: recordKind(row, outcome),
    fetcher: 'http' as const,
    warc: outcome.warc,
    fetchedAt: outcome.at,
  };
  if (outcome.kind === 'error') return { ...base, durationMs: 0, bytes: 0, truncated: false, notModified: false, error: outcome.message };
  const { res } = outcome;
  return {
    ...base,
    status: res.status,
    durationMs: res.durationMs,
    contentHash: outcome.contentHash,
    bytes: res.body?.length ?? 0,
    truncated: res.truncated,
    notModified: res.status === 304,
    headers: res.headers,
    error: res.skipped ? `skipped: content type ${res.mime || 'unknown'} is not on the allow-list` : undefined,
  };
}

function empty(state: UrlState, reason?: UrlReason): ProcessResult {
  return { state, reason, retry: false, aliases: [], candidates: [], notModified: false };
}

/** A transient failure: queued again while attempts are left (as `retries` says), else failed. */
function retryOrFail(retry: boolean, reason: UrlReason): ProcessResult {
  return retry ? { ...empty('queued', reason), retry: true } : empty('failed', reason);
}

type Answer = Pick<FetchOutcome, 'kind'> & ({ kind: 'response'; res: FetchResponse } | { kind: 'error'; error: unknown; message: string });

/** Whether a fetch's URL goes back to the queue: 429, 5xx or a transient network error, with attempts left. The host's side decides with this as soon as the host answers. */
export function retries(ctx: CrawlContext, row: FrontierRow, answer: Answer): boolean {
  const transient = answer.kind === 'error' ? nextStep(answer.error) === 'retry' : isThrottle(answer.res.status) || answer.res.status >= 500;
  return transient && row.attempts + 1 < ctx.settings.maxAttempts;
}

/** What an answer (or a failed request) teaches its host's politeness state. */
export function hostEventOf(ctx: CrawlContext, answer: Answer): ResponseEvent {
  if (answer.kind === 'response') return responseEvent(ctx, answer.res);
  const kind = nextStep(answer.error) === 'park-host' ? 'refused' : 'network-error';
  return { kind, message: answer.message, at: ctx.clock() };
}

/** A request that got no response: what happens next is the error's own step (`nextStep`). */
function onError(ctx: CrawlContext, row: FrontierRow, outcome: Extract<FetchOutcome, { kind: 'error' }>): ProcessResult {
  const hostEvent = hostEventOf(ctx, outcome);
  switch (nextStep(outcome.error)) {
    case 'park-host':
      return { ...empty('failed', 'address-refused'), hostEvent };
    case 'fail-url':
      return { ...empty('failed', 'fetch-error'), hostEvent };
    case 'retry':
      return { ...retryOrFail(retries(ctx, row, outcome), 'network-error'), hostEvent };
    case 'stop-run':
      throw outcome.error;
  }
}

async function onNotModified(ctx: CrawlContext, row: FrontierRow, outcome: Extract<FetchOutcome, { kind: 'response' }>): Promise<ProcessResult> {
  const previous = outcome.previous!;
  // Unchanged: nothing is re-parsed; the stored outlinks carry the crawl on.
  const follow = !previous.nofollow || ctx.settings.followNofollow;
  const candidates = follow
    ? (await ctx.store.outlinks(row.urlId)).map((e) => ({ href: e.toUrl, depth: row.depth + 1, kind: 'page' as const, nofollow: e.nofollow, from: row.urlId }))
    : [];
  return { ...empty('done', 'unchanged'), page: { ...previous, runId: row.runId, fetchedAt: outcome.at }, candidates, notModified: true };
}

function onRedirect(row: FrontierRow, location: string | undefined): ProcessResult {
  if (!location) return empty('failed', 'redirect-without-location');
  // A redirect to the same URL with its query in another order: the key says "seen", so following
  // it would end the URL with no page; it fails as the loop it is to the frontier.
  if (urlId(location) === row.urlId) return empty('failed', 'redirect-loop');
  // The target goes through the frontier like any URL: robots, scope, address guard, and
  // "already fetched" all apply to each hop.
  return {
    ...empty('done', 'redirect'),
    aliases: [{ urlId: row.urlId, url: row.url, targetUrl: location, reason: 'redirect' }],
    candidates: [{ href: location, depth: row.depth, kind: row.kind, redirects: row.redirects + 1, structural: true, from: row.urlId }],
  };
}

/** What a response teaches the host's politeness state. */
export function responseEvent(ctx: CrawlContext, res: { status: number; headers: Record<string, string> }): ResponseEvent {
  return { kind: 'response', status: res.status, retryAfterMs: parseRetryAfter(res.headers['retry-after'], ctx.clock()), at: ctx.clock() };
}

/** Whether an outcome carries a body to parse (2xx, read): the part the cloud hands to the page workflow. */
export function needsContent(outcome: FetchOutcome): outcome is Extract<FetchOutcome, { kind: 'response' }> {
  if (outcome.kind !== 'response') return false;
  const { res } = outcome;
  return res.status >= 200 && res.status < 300 && !res.skipped;
}

/**
 * The links the page's stored snapshot had and this answer drops (a new body without them, or a
 * 404/410): asked for in this run like any link (scope, robots, budget), so a page no page links
 * any more is found still served (`orphaned`) or gone (`removed`) instead of guessed at.
 */
async function lostLinks(
  ctx: CrawlContext,
  row: FrontierRow,
  outcome: Extract<FetchOutcome, { kind: 'response' }>,
  result: ProcessResult,
): Promise<LinkCandidate[]> {
  const previous = outcome.previous;
  if (!previous || row.kind !== 'page' || result.notModified || result.retry || result.renderWanted) return [];
  if (previous.nofollow && !ctx.settings.followNofollow) return [];
  const gone = GONE_STATUSES.has(outcome.res.status);
  if (!gone && (!result.page?.contentHash || result.page.contentHash === previous.contentHash)) return [];
  const kept = new Set((result.edges ?? []).map((e) => e.toId));
  return (await ctx.store.outlinks(row.urlId))
    .filter((e) => !kept.has(e.toId) && e.toId !== row.urlId && (!e.nofollow || ctx.settings.followNofollow))
    .map((e) => ({ href: e.toUrl, depth: row.depth + 1, kind: 'page' as const, nofollow: e.nofollow }));
}

/** Turns a fetch outcome into the URL's fate, the records to store and the URLs to consider next. */
export async function processStage(ctx: CrawlContext, row: FrontierRow, outcome: FetchOutcome, pass: RenderPass = {}): Promise<ProcessResult> {
  const fetch = fetchRecord(row, outcome);
  if (outcome.kind === 'error') return { ...onError(ctx, row, outcome), fetch };
  const result = await byStatus(ctx, row, outcome, pass);
  if (pass.capture) result.rendered = renderRecord(row, pass.capture);
  const lost = await lostLinks(ctx, row, outcome, result);
  if (lost.length) result.candidates = [...result.candidates, ...lost];
  // The interaction stays in the archive; its record says why the page could not be processed.
  const failed = result.failure
    ? { ...fetch, error: `processing failed (${result.failure.stage}): ${result.failure.message.replace(/^[^:]+: /, '')}`.slice(0, 2000) }
    : fetch;
  return { ...result, fetch: failed, hostEvent: hostEventOf(ctx, outcome) };
}

async function byStatus(ctx: CrawlContext, row: FrontierRow, outcome: Extract<FetchOutcome, { kind: 'response' }>, pass: RenderPass): Promise<ProcessResult> {
  const { res } = outcome;
  if (res.status === 304 && outcome.previous) return onNotModified(ctx, row, outcome);
  if (res.status >= 300 && res.status < 400) {
    const location = res.location ? (ctx.canonicalize(res.location) ?? undefined) : undefined;
    return onRedirect(row, location);
  }
  if (isThrottle(res.status) || res.status >= 500) return retryOrFail(retries(ctx, row, outcome), `http-${res.status}`);
  if (res.status >= 400 || res.status < 200) return empty('failed', `http-${res.status}`);
  if (res.skipped) return empty('skipped', 'content-type');
  let content;
  try {
    content = await contentOf(ctx, row, outcome, pass);
  } catch (err) {
    // A stage that failed before anything of the page was kept (sitemap, feed, decoding).
    content = contentResult({ failure: err instanceof PageProcessingError ? err : new PageProcessingError('process', err) });
  }
  if (content.failure) {
    ctx.logger.warn('page processing failed; the URL fails and the crawl goes on', {
      url: row.url,
      stage: content.failure.stage,
      error: content.failure.message,
    });
    return { ...empty('failed', 'processing-failed'), page: content.page, failure: content.failure };
  }
  const state: UrlState = content.duplicateOf ? 'duplicate' : 'done';
  return {
    ...empty(state, content.duplicateOf ? 'duplicate-body' : undefined),
    page: content.page,
    edges: content.edges,
    extract: content.extract,
    chunks: content.chunks,
    aliases: content.aliases,
    candidates: content.candidates,
    renderWanted: content.renderWanted,
  };
}
