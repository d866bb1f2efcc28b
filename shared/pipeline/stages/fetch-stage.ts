import { errorMessage } from '../../errors.js';
import type { FetchResponse } from '../../fetch/http-fetcher.js';
import type { FrontierRow, PageRecord, PageStore, WarcLocation } from '../../store/ports/index.js';
import type { FetchRequest } from '../../fetch/http-fetcher.js';
import type { CrawlContext } from './context.js';
import { contentHashOf } from '../../store/content-hash.js';

export type FetchOutcome =
  /** `bodyOwner`: the page that first fetched these bytes (this one unless it is a byte duplicate). */
  | { kind: 'response'; res: FetchResponse; contentHash?: string; bodyOwner?: string; previous?: PageRecord; at: number; warc?: WarcLocation }
  | { kind: 'error'; error: unknown; message: string; at: number; warc?: WarcLocation };

/** The host's part of a fetch: what it answered, or how the request failed (nothing stored yet). */
export type Fetched = { request: FetchRequest } & (
  { kind: 'response'; res: FetchResponse; previous?: PageRecord; at: number } | { kind: 'error'; error: unknown; message: string; at: number }
);

/**
 * Asks the host for one frontier URL (conditionally when a usable earlier copy is stored);
 * `earlierPages: false` when no earlier run can have stored one (the first run in a directory).
 */
export async function requestStage(
  ctx: Pick<CrawlContext, 'clock' | 'fetcher'> & { store: Pick<PageStore, 'getPage'> },
  row: FrontierRow,
  earlierPages = true,
): Promise<Fetched> {
  const at = ctx.clock();
  const previous = row.kind === 'page' && earlierPages ? await ctx.store.getPage(row.urlId) : undefined;
  const usable = previous && previous.status === 200 && !previous.truncated && previous.contentHash;
  const request: FetchRequest = {
    url: row.url,
    kind: row.kind,
    etag: usable ? previous.etag : undefined,
    lastModified: usable ? previous.lastModified : undefined,
  };
  try {
    return { kind: 'response', request, res: await ctx.fetcher.fetch(request), previous: usable ? previous : undefined, at };
  } catch (error) {
    return { kind: 'error', request, error, message: errorMessage(error), at };
  }
}

/** What storing an answer touches: the blob store, the archive and the page store's body claims. */
export type StoreStageContext = Pick<CrawlContext, 'blobs' | 'bodies' | 'archive' | 'fetcher'> & { store: Pick<PageStore, 'claimBody'> };

/** Stores what the host answered: the exchange in the WARC archive, the raw body in the content-addressed blob store unless the context keeps bodies in the archive only (claimed by its first page either way). */
export async function storeStage(ctx: StoreStageContext, row: FrontierRow, fetched: Fetched): Promise<FetchOutcome> {
  const { request, ...rest } = fetched;
  let outcome: FetchOutcome = rest;
  if (rest.kind === 'response') {
    const { res, at } = rest;
    // A body the disk cannot take fails the crawl (resumably), as any store failure does.
    const contentHash = !res.body || res.body.length === 0 ? undefined : ctx.bodies === 'archive' ? contentHashOf(res.body) : await ctx.blobs.put(res.body);
    // Claimed in fetch order: the first fetch owns a body, however its processing is scheduled.
    const bodyOwner =
      contentHash && row.kind === 'page' && res.status >= 200 && res.status < 300 ? await ctx.store.claimBody(contentHash, row.urlId, at) : undefined;
    outcome = { ...rest, contentHash, bodyOwner };
  }
  return { ...outcome, warc: await archiveStage(ctx, row.runId, request, outcome) };
}

/** Fetches one frontier URL and stores what came back (the raw body before anything refers to it). */
export async function fetchStage(ctx: CrawlContext, row: FrontierRow): Promise<FetchOutcome> {
  return storeStage(ctx, row, await requestStage(ctx, row));
}

/** Writes the exchange (or the failed attempt) to the WARC archive, when the context has one. */
export async function archiveStage(
  ctx: Pick<CrawlContext, 'archive' | 'fetcher'>,
  runId: number,
  request: FetchRequest,
  outcome: FetchOutcome,
): Promise<WarcLocation | undefined> {
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
