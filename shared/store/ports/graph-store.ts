import type { LinkView, RankedPage, UnfetchedUrl } from '../records.js';

/** Link graph queries over the current snapshot of every page. */
export interface GraphStore {
  outlinks(urlId: string): Promise<LinkView[]>;
  inlinks(urlId: string): Promise<LinkView[]>;
  /** Computes inlink counts and PageRank for the stored graph (at the end of a crawl). */
  computeRanks(runId: number): Promise<number>;
  top(limit: number): Promise<RankedPage[]>;
  unfetched(limit: number): Promise<UnfetchedUrl[]>;
}
