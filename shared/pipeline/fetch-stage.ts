import { errorMessage } from '../errors.js';
import type { FetchResponse } from '../fetch/http-fetcher.js';
import type { FrontierRow, PageRecord, WarcLocation } from '../store/ports/index.js';
import type { FetchRequest } from '../fetch/http-fetcher.js';
import type { CrawlContext } from './context.js';

export type FetchOutcome =
  /** `bodyOwner`: the page that first fetched these bytes (this one unless it is a byte duplicate). */
  | { kind: 'response'; res: FetchResponse; contentHash?: string; bodyOwner?: string; previous?: PageRecord; at: number; warc?: WarcLocation }
  | { kind: 'error'; error: unknown; message: string; at: number; warc?: WarcLocation };

/**
 * Fetches one frontier URL (conditionally when a usable earlier copy is stored) and puts the
 * raw body into the content-addressed blob store before anything refers to it.
 */
export async function fetchStage(ctx: CrawlContext, row: FrontierRow): Promise<FetchOutcome> {
  const at = ctx.clock();
  const previous = row.kind === 'page' ? await ctx.store.getPage(row.urlId) : undefined;
  const usable = previous && previous.status === 200 && !previous.truncated && previous.contentHash;
  const request: FetchRequest = {
    url: row.url,
    kind: row.kind,
    etag: usable ? previous.etag : undefined,
    lastModified: usable ? previous.lastModified : undefined,
  };
  let outcome: FetchOutcome;
  try {
    const res = await ctx.fetcher.fetch(request);
    const contentHash = res.body && res.body.length > 0 ? await ctx.blobs.put(res.body) : undefined;
    // Claimed at fetch time: the first fetch owns a body, however its processing is scheduled.
    const bodyOwner =
      contentHash && row.kind === 'page' && res.status >= 200 && res.status < 300 ? await ctx.store.claimBody(contentHash, row.urlId, at) : undefined;
    outcome = { kind: 'response', res, contentHash, bodyOwner, previous: usable ? previous : undefined, at };
  } catch (error) {
    outcome = { kind: 'error', error, message: errorMessage(error), at };
  }
  return { ...outcome, warc: await archiveStage(ctx, row.runId, request, outcome) };
}

/** Writes the exchange (or the failed attempt) to the WARC archive, when the context has one. */
export async function archiveStage(ctx: CrawlContext, runId: number, request: FetchRequest, outcome: FetchOutcome): Promise<WarcLocation | undefined> {
  if (!ctx.archive) return undefined;
  const res = outcome.kind === 'response' ? outcome.res : undefined;
  return ctx.archive.write({
    url: request.url,
    runId,
    kind: request.kind,
    fetcher: 'http',
    date: new Date(outcome.at),
    durationMs: res?.durationMs ?? 0,
    requestHeaders: ctx.fetcher.requestHeaders(request),
    response: res && { status: res.status, headers: res.headers, body: res.body, truncated: res.truncated, skipped: res.skipped },
    error: outcome.kind === 'error' ? outcome.message : undefined,
  });
}
