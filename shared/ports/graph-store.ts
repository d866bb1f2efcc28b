import type { LinkView, RankedPage, SelectionRecord, UnfetchedUrl } from './records.js';

/** Link graph queries over the current snapshot of every page. */
export interface GraphStore {
  outlinks(urlId: string): Promise<LinkView[]>;
  inlinks(urlId: string): Promise<LinkView[]>;
  /** Computes inlink counts and PageRank for the stored graph (at the end of a crawl). */
  computeRanks(runId: number): Promise<number>;
  top(limit: number): Promise<RankedPage[]>;
  unfetched(limit: number): Promise<UnfetchedUrl[]>;
  /** Stores a run's selections (one per seed homepage), replacing an earlier one of the same run and homepage. */
  saveSelections(selections: SelectionRecord[]): Promise<void>;
  /** A run's selections, by homepage. */
  selections(runId: number): Promise<SelectionRecord[]>;
}
