import { cookiesOfHost } from '../../fetch/session-cookies.js';
import { errorMessage, RenderError } from '../../errors.js';
import type { ShellSignals } from '../../extract/shell-signals.js';
import { renderGained, type RenderDecision } from '../../render/decision.js';
import type { RenderOutput, RenderRequest } from '../../render/renderer.js';
import type { FetchRecord, FrontierRow, RenderInfo, WarcLocation } from '../../ports/index.js';
import type { CrawlContext } from './context.js';
import type { FetchOutcome } from './fetch-stage.js';
import { afterRender, renderIsEvidence } from '../../render/decision.js';
import { afterRequest, type HostState, type PolitenessConfig } from '../../politeness/host-state.js';
import { parseRetryAfter } from '../../politeness/retry-after.js';
import { robotsAllows, type RobotsPolicy } from '../../robots/robots-policy.js';

/** A page the extraction found to need rendering: why, and what it had as served (the gain is measured against it). */
export interface RenderWanted {
  reason: string;
  served: Pick<ShellSignals, 'textChars' | 'links'>;
}

/** The document the browser is given: the fetched response, as archived. */
export interface ServedDocument {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  /** Where the response record is (its WARC-Record-ID is referred to by the rendered records). */
  warc?: WarcLocation;
  fetchedAt: number;
}

/**
 * What one render produced, as the next extraction needs it (it crosses the page workflow as
 * JSON): the rendered DOM and screenshot by blob hash, where they sit in the archive, and counts.
 */
export interface RenderCapture {
  reason: string;
  at: number;
  ok: boolean;
  error?: string;
  /** The render brought text or links the served page lacked. */
  gained: boolean;
  renderedHash?: string;
  screenshotHash?: string;
  bytes: number;
  warc?: WarcLocation;
  durationMs: number;
  requests: number;
  blocked: Record<string, number>;
  settled: boolean;
  attempts: number;
  navigations: string[];
  throttled?: RenderOutput['throttled'];
}

/** A render that produced no DOM: its reason, when, why it failed, and whether a browser tried at all (`attempts`). */
export function failedCapture(reason: string, at: number, error: string, attempts = 0, durationMs = 0): RenderCapture {
  const blank = { gained: false, bytes: 0, requests: 0, blocked: {}, settled: false, navigations: [] };
  return { ...blank, reason, at, ok: false, error: error.slice(0, 2000), attempts, durationMs };
}

/** Renders one fetched page, keeps the DOM (and screenshot) as blobs and in the archive; a failed render is a capture with its error. */
export async function renderStage(
  ctx: CrawlContext,
  row: FrontierRow,
  doc: ServedDocument,
  wanted: RenderWanted,
  /** What the page's host lets it ask: robots.txt, and its turns (see `RenderRequest`). */
  host: Pick<RenderRequest, 'robotsAllows' | 'hostTurn'> = {},
): Promise<RenderCapture> {
  const at = ctx.clock();
  if (!ctx.renderer) return failedCapture(wanted.reason, at, 'no renderer in this context');
  let out: RenderOutput;
  try {
    out = await ctx.renderer.render({
      url: row.url,
      document: doc,
      screenshot: ctx.settings.screenshot,
      ...host,
      actions: ctx.pageActions?.(row.url),
      cookies: cookiesOfHost(ctx.sessionCookies, row.url),
    });
  } catch (err) {
    const failure = err instanceof RenderError ? err.failure : 'navigation';
    // Told once: the crawl's `render` event says it (the CLI prints it); the log keeps it at info.
    ctx.logger.info('render failed; the page is extracted as served', { url: row.url, failure, error: errorMessage(err) });
    // A browser that never started made no request; a crash or hang did, and rendered nothing.
    const attempts = failure === 'browser-missing' || failure === 'launch' || failure === 'closed' ? 0 : 1;
    return failedCapture(wanted.reason, at, `${failure}: ${errorMessage(err)}`, attempts, ctx.clock() - at);
  }
  const html = Buffer.from(out.html, 'utf8');
  const renderedHash = await ctx.blobs.put(html);
  const screenshotHash = out.screenshot ? await ctx.blobs.put(out.screenshot) : undefined;
  const gained = renderGained(wanted.served, out);
  const warc = await ctx.archive?.writeRendered({
    url: row.url,
    runId: row.runId,
    date: new Date(at),
    refersTo: doc.warc?.recordId,
    refersToDate: new Date(doc.fetchedAt),
    html,
    screenshot: out.screenshot,
    fields: {
      reason: wanted.reason,
      'duration-ms': out.durationMs,
      requests: out.requests,
      ...Object.fromEntries(Object.entries(out.blocked).map(([k, v]) => [`blocked-${k}`, v])),
      settled: out.settled,
      gained,
      // What the page's actions did, in order: their kinds, times and errors (their texts and scripts are the crawl's settings).
      ...(out.actions ? { actions: JSON.stringify(out.actions) } : {}),
    },
  });
  return {
    reason: wanted.reason,
    at,
    ok: true,
    gained,
    renderedHash,
    screenshotHash,
    bytes: html.length,
    warc,
    durationMs: out.durationMs,
    requests: out.requests,
    blocked: out.blocked as Record<string, number>,
    settled: out.settled,
    attempts: out.attempts,
    navigations: out.navigations,
    throttled: out.throttled,
  };
}

/** The page's render information from a capture. */
export function renderInfo(capture: RenderCapture): RenderInfo {
  const { reason, gained, durationMs, requests, blocked, settled, attempts, renderedHash, screenshotHash, error } = capture;
  if (!capture.ok) return { outcome: 'failed', reason, durationMs, error };
  return { outcome: 'rendered', reason, gained, durationMs, requests, blocked, settled, attempts, renderedHash, screenshotHash };
}

/** The browser's interaction record: the archive's index entry for the rendered records. */
export function renderRecord(row: FrontierRow, capture: RenderCapture): FetchRecord {
  return {
    runId: row.runId,
    urlId: row.urlId,
    url: row.url,
    kind: 'page',
    fetcher: 'browser',
    warc: capture.warc,
    status: capture.ok ? 200 : undefined,
    fetchedAt: capture.at,
    durationMs: capture.durationMs,
    contentHash: capture.renderedHash,
    bytes: capture.bytes,
    truncated: false,
    notModified: false,
    error: capture.ok ? undefined : `render failed: ${capture.error ?? 'unknown'}`,
  };
}

/** The render decision a page record keeps when the page was not rendered. */
export function notRendered(decision: RenderDecision, available: boolean): RenderInfo {
  return { outcome: 'not-rendered', reason: decision.render && !available ? `${decision.reason}; no browser available` : decision.reason };
}

/** The fetched response as the browser is given it. */
export function servedDocument(outcome: Extract<FetchOutcome, { kind: 'response' }>): ServedDocument {
  const { res } = outcome;
  return { status: res.status, headers: res.headers, body: res.body ?? Buffer.alloc(0), warc: outcome.warc, fetchedAt: outcome.at };
}

/** Robots.txt of the page's host applied to the requests its page makes to that host. */
export function robotsCheck(policy: RobotsPolicy | undefined): ((url: string) => boolean) | undefined {
  if (!policy || policy.kind === 'unreachable') return undefined;
  return (href) => {
    const { pathname, search } = new URL(href);
    return robotsAllows(policy, pathname + search);
  };
}

/**
 * The host after a render: the render was a visit like any request (the next waits its delay; a
 * 429/503 the page met backs the host off, Retry-After honoured), and its gain is counted when the
 * render is evidence (`renderIsEvidence`).
 */
export function hostAfterRender(
  state: HostState,
  capture: RenderCapture,
  page: { runId: number; url: string },
  politeness: PolitenessConfig,
  now: number,
): HostState {
  if (capture.attempts === 0 && !capture.ok) return state;
  const status = capture.throttled?.status ?? 200;
  const retryAfterMs = parseRetryAfter(capture.throttled?.retryAfter, now);
  const next = afterRequest(state, { kind: 'response', status, retryAfterMs, at: now }, politeness);
  // Only a render that ran to the end (or gained) counts for or against rendering the host's pages.
  return renderIsEvidence(capture) ? { ...next, render: afterRender(state.render, page.runId, capture.gained, page.url) } : next;
}

/** A stored page's render as a capture again (re-extraction reads the rendered DOM it kept). */
export function storedCapture(info: RenderInfo | undefined, at: number): RenderCapture | undefined {
  if (info?.outcome !== 'rendered' || !info.renderedHash) return undefined;
  return {
    reason: info.reason,
    at,
    ok: true,
    gained: info.gained ?? false,
    renderedHash: info.renderedHash,
    screenshotHash: info.screenshotHash,
    bytes: 0,
    durationMs: info.durationMs ?? 0,
    requests: info.requests ?? 0,
    blocked: info.blocked ?? {},
    settled: info.settled ?? true,
    attempts: info.attempts ?? 1,
    navigations: [],
  };
}
