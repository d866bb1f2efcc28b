import { ROBOTS_REFUSAL, type FetchRecord, type FrontierRow, type SeenUrl } from '../../store/ports/index.js';

/** The interaction record of a URL refused by robots.txt: no request was made. */
export function robotsRefusal(row: FrontierRow, at: number): FetchRecord {
  return {
    runId: row.runId,
    urlId: row.urlId,
    url: row.url,
    rawUrl: row.rawUrl,
    kind: row.kind,
    fetcher: 'http',
    fetchedAt: at,
    durationMs: 0,
    bytes: 0,
    truncated: false,
    notModified: false,
    error: ROBOTS_REFUSAL,
  };
}

/** Whether a URL seen by a run used up a page of its budget (for resuming the counts). */
export function wasFetchedPage(seen: Pick<SeenUrl, 'kind' | 'state' | 'reason'>): boolean {
  return seen.kind === 'page' && (['done', 'failed', 'duplicate'].includes(seen.state) || seen.reason === 'content-type') && seen.reason !== 'address-refused';
}
