import { errorMessage } from '../../errors.js';
import type { FetchResponse } from '../../fetch/http-fetcher.js';
import type { ArchivedAnswer, FrontierRow, FrontierStore, PageRecord, PageStore, WarcLocation } from '../../ports/index.js';
import { responseFromArchive } from '../../archive/replay.js';
import type { FetchRequest, LargeBodies } from '../../fetch/http-fetcher.js';
import type { CrawlContext } from './context.js';
import { contentHashOf } from '../../ports/content-hash.js';

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
 * With `largeBodies`, a large body waits for a slot, which the caller gives up (`request.largeBody.release`).
 */
export async function requestStage(
  ctx: Pick<CrawlContext, 'clock' | 'fetcher'> & { store: Pick<PageStore, 'getPage'> },
  row: FrontierRow,
  earlierPages = true,
  largeBodies?: LargeBodies,
): Promise<Fetched> {
  const at = ctx.clock();
  const previous = row.kind === 'page' && earlierPages ? await ctx.store.getPage(row.urlId) : undefined;
  const usable = previous && previous.status === 200 && !previous.truncated && previous.contentHash;
  const request: FetchRequest = {
    url: row.url,
    kind: row.kind,
    etag: usable ? previous.etag : undefined,
    lastModified: usable ? previous.lastModified : undefined,
    largeBody: largeBodies && { ...largeBodies },
  };
  try {
    return { kind: 'response', request, res: await ctx.fetcher.fetch(request), previous: usable ? previous : undefined, at };
  } catch (error) {
    return { kind: 'error', request, error, message: errorMessage(error), at };
  }
}

/** What storing an answer touches: the blob store, the archive and the page store's body claims. */
export type StoreStageContext = Pick<CrawlContext, 'blobs' | 'bodies' | 'archive' | 'fetcher'> & { store: Pick<PageStore, 'claimBody'> };

/**
 * Stores what the host answered: the exchange in the WARC archive (unless `archived` says where
 * `archiveAnswer` wrote it already), the raw body in the content-addressed blob store unless the
 * context keeps bodies in the archive only (claimed by its first page either way).
 */
export async function storeStage(
  ctx: StoreStageContext,
  row: FrontierRow,
  fetched: Fetched,
  archived?: Promise<WarcLocation | undefined>,
): Promise<FetchOutcome> {
  const { request, ...rest } = fetched;
  let outcome: FetchOutcome = rest;
  if (rest.kind === 'response') {
    const { res, at } = rest;
    // A body the disk cannot take fails the crawl (resumably), as any store failure does.
    // An error's page or a type trawl does not keep is in the archive only: nothing reads it from the blob store.
    const archiveOnly = ctx.bodies === 'archive' || res.contentClass === null;
    const contentHash = !res.body || res.body.length === 0 ? undefined : archiveOnly ? contentHashOf(res.body) : await ctx.blobs.put(res.body);
    // Claimed in fetch order: the first fetch owns a body, however its processing is scheduled.
    const bodyOwner =
      contentHash && row.kind === 'page' && res.status >= 200 && res.status < 300 ? await ctx.store.claimBody(contentHash, row.urlId, at) : undefined;
    outcome = { ...rest, contentHash, bodyOwner };
  }
  return { ...outcome, warc: await (archived ?? archiveStage(ctx, row.runId, request, outcome)) };
}

/** What `archiveAnswer` touches: the archive, and the store's journal of answers not yet committed. */
export type ArchiveAnswerContext = Pick<CrawlContext, 'archive' | 'fetcher'> & { store: Pick<FrontierStore, 'answered'> };

/**
 * Archives the exchange as soon as the host has answered (the page may then wait in a processing
 * queue before its commit) and journals a `final` answer (no retry follows) in the store, so a
 * crawl killed before the commit processes it from the archive on resume instead of asking the host
 * again. An answer read back from the archive (`existing`) is journaled again, not rewritten.
 * Returns where the record is, for `storeStage`, which also meets a failed write.
 */
export function archiveAnswer(
  ctx: ArchiveAnswerContext,
  row: FrontierRow,
  fetched: Fetched,
  final: boolean,
  existing?: WarcLocation,
): Promise<WarcLocation | undefined> {
  const { request, ...outcome } = fetched;
  const journal =
    final && outcome.kind === 'response'
      ? (warc: WarcLocation) =>
          ctx.store.answered?.(row.runId, row.urlId, { warc, at: outcome.at, durationMs: outcome.res.durationMs, wireBytes: outcome.res.wireBytes })
      : undefined;
  if (existing) {
    journal?.(existing);
    return Promise.resolve(existing);
  }
  // Journaled before its bytes are written (`located`): no kill finds a record in the archive and
  // not in the journal (one it cut short reads back as missing, and is asked for again).
  const written = archiveStage(ctx, row.runId, request, outcome, journal);
  // Awaited by storeStage, which meets the failure (a full disk stops the crawl there).
  written.catch(() => undefined);
  return written;
}

/**
 * The answer a killed crawl had archived but not committed, read back from the WARC file as the
 * fetcher returned it then (a 304 with the stored page it confirmed): no request is made.
 */
export async function archivedStage(
  ctx: Pick<CrawlContext, 'archive' | 'blobs'> & { store: Pick<PageStore, 'getPage'> },
  row: FrontierRow,
  answer: ArchivedAnswer,
): Promise<Fetched> {
  if (!ctx.archive) throw new Error('no archive to read the answer from');
  const request: FetchRequest = { url: row.url, kind: row.kind };
  const archived = await ctx.archive.read(answer.warc);
  const previous = archived.status === 304 || archived.refersTo ? await ctx.store.getPage(row.urlId) : undefined;
  if (archived.refersTo) {
    // An unchanged body, archived as a revisit: the bytes are the stored page's, kept in the blob store.
    const body = previous?.contentHash ? await ctx.blobs.get(previous.contentHash) : undefined;
    if (!body) throw new Error(`the answer at ${answer.warc.file}:${answer.warc.offset} refers to a body the blob store does not hold`);
    archived.body = body;
  }
  const res = { ...responseFromArchive(request, archived), durationMs: answer.durationMs, wireBytes: answer.wireBytes };
  return { kind: 'response', request, res, previous, at: answer.at };
}

/** Fetches one frontier URL and stores what came back (the raw body before anything refers to it). */
export async function fetchStage(ctx: CrawlContext, row: FrontierRow): Promise<FetchOutcome> {
  return storeStage(ctx, row, await requestStage(ctx, row));
}

/** Writes the exchange (or the failed attempt) to the WARC archive, when the context has one. */
export async function archiveStage(
  ctx: Pick<CrawlContext, 'archive' | 'fetcher'> & Partial<Pick<CrawlContext, 'blobs' | 'bodies'>>,
  runId: number,
  request: FetchRequest,
  outcome: FetchOutcome,
  located?: (where: WarcLocation) => void,
): Promise<WarcLocation | undefined> {
  if (!ctx.archive) return undefined;
  const res = outcome.kind === 'response' ? outcome.res : undefined;
  const previous = outcome.kind === 'response' ? outcome.previous : undefined;
  // A 304's revisit names the digest of the body it confirms: read back where the blob store keeps it.
  const confirmed =
    res?.status === 304 && previous?.contentHash && ctx.blobs && ctx.bodies !== 'archive'
      ? await ctx.blobs.get(previous.contentHash).catch(() => undefined)
      : undefined;
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
    // A 304, or a 2xx with the stored page's bytes, is archived as a revisit of the capture it confirms.
    revisitOf: previous
      ? { url: request.url, date: new Date(previous.fetchedAt), contentHash: previous.contentHash, ...(confirmed ? { body: confirmed } : {}) }
      : undefined,
    located,
  });
}
