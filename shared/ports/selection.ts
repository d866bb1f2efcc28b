// What `--select` stores at the end of a run: the pages that say what a seed's site does.

/** One selected page of a selection, with why it was chosen. */
export interface SelectedPage {
  url: string;
  bucket: string;
  total: number;
  contextual: number;
  intrinsic: number;
  boost: number;
  reason?: string;
  anchor?: string;
}

/** The selection of one seed homepage at the end of a run (`--select`): the pages that say what the site does. */
export interface SelectionRecord {
  runId: number;
  home: string;
  profile: string;
  query: string;
  cap: number;
  selected: SelectedPage[];
  counts: { candidates: number; filtered: number; hardExcluded: number; aboveThreshold: number; selected: number; skippedByRule: number };
  /** Heads of candidates read from the crawl's own extractions. */
  previews: number;
  at: number;
}
