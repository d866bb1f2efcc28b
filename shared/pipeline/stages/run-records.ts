import { ROBOTS_REFUSAL, type FetchCommit, type FetchRecord, type FrontierRow, type SeenUrl } from '../../ports/index.js';

/** What both runtimes commit for a URL robots.txt refuses: blocked, its attempts unchanged, and the interaction record of a request never made. */
export function robotsRefusalCommit(row: FrontierRow, at: number): FetchCommit {
  return { runId: row.runId, urlId: row.urlId, state: 'blocked', reason: 'robots', attempts: row.attempts, fetch: robotsRefusal(row, at) };
}

/** The interaction record of a URL refused by robots.txt: no request was made. */
function robotsRefusal(row: FrontierRow, at: number): FetchRecord {
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

/**
 * What one fetch does to the page budgets, in both runtimes: a page retried gives its run slot
 * back (the retry takes it again); a page uses a slot of its host only when it got an answer and
 * is not retried (the cloud claims the host slot first and releases it otherwise).
 */
export function pageSlotsAfter(countsAsPage: boolean, outcome: { retry: boolean; answered: boolean }): { releaseRunSlot: boolean; usesHostSlot: boolean } {
  return { releaseRunSlot: countsAsPage && outcome.retry, usesHostSlot: countsAsPage && !outcome.retry && outcome.answered };
}
