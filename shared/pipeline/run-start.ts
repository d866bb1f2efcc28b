import { UsageError } from '../errors.js';
import type { CrawlStore, FrontierRow, RunRecord } from '../store/ports/index.js';
import { wasFetchedPage } from './run-records.js';
import type { Candidate } from './admission.js';

/** Whether the data directory's latest run can be resumed, and why not. */
export async function resumableRun(store: CrawlStore, dataDir: string): Promise<RunRecord> {
  const latest = await store.latestRun();
  const deferred = latest?.status === 'finished' ? (await store.deferredUrls(latest.id)).length : 0;
  if (!latest || latest.status === 'abandoned' || (latest.status === 'finished' && deferred === 0)) {
    const why = latest
      ? `the last crawl (run ${latest.id}) is ${latest.status}${latest.status === 'finished' ? ' with nothing deferred' : ''}`
      : 'no crawl has run there';
    throw new UsageError(`nothing to resume in ${dataDir}: ${why}; start a crawl without --resume`);
  }
  return latest;
}

/** The candidates a new run takes over from the run before it: URLs that run deferred (their hosts were backed off). */
export async function carriedOver(store: CrawlStore, previous: RunRecord | undefined): Promise<{ candidates: Candidate[]; notBefore: Map<string, number> }> {
  const rows = previous ? await store.deferredUrls(previous.id) : [];
  return {
    candidates: rows.map((r) => ({ href: r.url, depth: r.depth, kind: r.kind, fresh: r.fresh, from: r.discoveredFrom })),
    notBefore: new Map(rows.map((r) => [r.url, r.notBefore])),
  };
}

/** What a resumed run must rebuild from the store: the per-host page counts and the run's used budget. */
export interface ResumeCounts {
  pagesFetched: number;
  fetchedPerHost: Map<string, number>;
}

export function resumeCounts(seen: Array<{ url: string; kind: FrontierRow['kind']; state: FrontierRow['state']; reason?: string }>): ResumeCounts {
  const fetchedPerHost = new Map<string, number>();
  let pagesFetched = 0;
  for (const s of seen) {
    if (!wasFetchedPage(s)) continue;
    pagesFetched++;
    const host = new URL(s.url).host;
    fetchedPerHost.set(host, (fetchedPerHost.get(host) ?? 0) + 1);
  }
  return { pagesFetched, fetchedPerHost };
}
