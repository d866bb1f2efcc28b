// One HTTP interaction into the archive: its WARC records, its body in the blob store and its
// interaction record — for fetches outside a frontier URL's own path (robots.txt, link previews,
// a target's hops).
import type { Fetcher, FetchRequest, FetchResponse } from '../fetch/http-fetcher.js';
import type { BlobStore, CrawlStore, RecordKind } from '../ports/index.js';
import { urlId } from '../url/canonical.js';
import { contentHashOf, type BodyKeeping } from '../ports/content-hash.js';
import type { WarcWriter } from './warc-writer.js';

export interface InteractionDeps {
  archive?: WarcWriter;
  fetcher: Pick<Fetcher, 'requestHeaders'>;
  blobs: BlobStore;
  store: Pick<CrawlStore, 'recordFetch'>;
  /** `archive`: an archived body is not put in the blob store too (the crawl context's `bodies`). */
  bodies?: BodyKeeping;
}

/** Archives and records a request's outcome (a response, or the error that stopped it). */
export async function recordInteraction(
  deps: InteractionDeps,
  runId: number,
  request: FetchRequest,
  kind: RecordKind,
  outcome: { res?: FetchResponse; error?: string; at: number },
): Promise<void> {
  const { res, error, at } = outcome;
  const warc = await deps.archive?.write({
    url: request.url,
    runId,
    kind: request.kind,
    fetcher: 'http',
    date: new Date(at),
    durationMs: res?.durationMs ?? 0,
    requestHeaders: deps.fetcher.requestHeaders(request),
    response: res && { status: res.status, headers: res.headers, body: res.body, truncated: res.truncated, skipped: res.skipped },
    error: res ? undefined : (error ?? 'no response'),
  });
  await deps.store.recordFetch({
    runId,
    urlId: urlId(request.url),
    url: request.url,
    kind,
    fetcher: 'http',
    warc,
    status: res?.status,
    fetchedAt: at,
    durationMs: res?.durationMs ?? 0,
    contentHash: !res?.body ? undefined : deps.bodies === 'archive' && warc ? contentHashOf(res.body) : await deps.blobs.put(res.body),
    bytes: res?.body?.length ?? 0,
    truncated: res?.truncated ?? false,
    notModified: false,
    error,
    headers: res?.headers,
  });
}
