/** A page a run archived, as a replay package lists it (WACZ's `pages.jsonl`). */
export interface ArchivedPage {
  id: string;
  url: string;
  /** When its response was archived (ms since the epoch). */
  ts: number;
  title?: string;
  /** Its extracted text, for full-text search in replay tools. */
  text?: string;
}

/** The pages a run stored (2xx HTML and PDF), read from the run's own records, never the whole store. */
export interface ArchivedPages {
  archivedPages(runId: number): AsyncIterable<ArchivedPage>;
  /** Those of these URL ids that are pages the run stored (a package of part of a run's WARC files lists its own). */
  archivedPagesOf?(runId: number, urlIds: string[]): AsyncIterable<ArchivedPage>;
}
