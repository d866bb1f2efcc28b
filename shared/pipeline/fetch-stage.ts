import { errorMessage } from '../errors.js';
import type { FetchResponse } from '../fetch/http-fetcher.js';
import type { FrontierRow, PageRecord } from '../store/ports.js';
import type { CrawlContext } from './context.js';

export type FetchOutcome =
  | { kind: 'response'; res: FetchResponse; contentHash?: string; previous?: PageRecord; at: number }
  | { kind: 'error'; error: unknown; message: string; at: number };

/**
 * Fetches one frontier URL (conditionally when a usable earlier copy is stored) and puts the
 * raw body into the content-addressed blob store before anything refers to it.
 */
export async function fetchStage(ctx: CrawlContext, row: FrontierRow): Promise<FetchOutcome> {
  const at = ctx.clock();
  const previous = row.kind === 'page' ? await ctx.store.getPage(row.urlId) : undefined;
  const usable = previous && previous.status === 200 && !previous.truncated && previous.contentHash;
  try {
    const res = await ctx.fetcher.fetch({
      url: row.url,
      kind: row.kind,
      etag: usable ? previous.etag : undefined,
      lastModified: usable ? previous.lastModified : undefined,
    });
    const contentHash = res.body && res.body.length > 0 ? await ctx.blobs.put(res.body) : undefined;
    return { kind: 'response', res, contentHash, previous: usable ? previous : undefined, at };
  } catch (error) {
    return { kind: 'error', error, message: errorMessage(error), at };
  }
}
