import { CHANGE_KINDS, type ChangeKind } from '../config/change-kinds.js';

export { CHANGE_KINDS, type ChangeKind };

/** The kinds a fetch decides, one per URL and run. */
export const CONTENT_KINDS: readonly ChangeKind[] = ['new', 'changed', 'unchanged', 'removed'];

/** How much a changed page changed. */
export interface ChangeMeasure {
  /** Hamming distance of the two SimHashes (0–64; under 4 is a near-duplicate). */
  simhashDistance: number;
  /** Share of the text blocks (paragraphs, headings, list items) in one version and not the other, 0–1. */
  blocksChanged: number;
  blocksAdded: number;
  blocksRemoved: number;
  /** Metadata and CSS-selected fields whose values differ (`title`, `description`, `fields.price`, …). */
  fieldsChanged: string[];
}

export interface ChangeRecord {
  runId: number;
  urlId: string;
  url: string;
  kind: ChangeKind;
  /** When the run learnt it (the fetch's time, or the run's end for the link kinds). */
  at: number;
  /** The run the URL was last seen in before this one. */
  previousRunId?: number;
  title?: string;
  /** `changed`: how much. */
  measure?: ChangeMeasure;
  /** `removed`: the status that said so (404, 410), or `unlinked` when no page links it any more and it was not fetched. */
  removedBy?: number | 'unlinked';
  /** `newly-linked`: the pages (known before this run) that link it now and did not before; `orphaned`: those that stopped. */
  linkedFrom?: string[];
  unlinkedFrom?: string[];
  /** `rank-shift`: inlinks and PageRank before and after. */
  rank?: { inlinksBefore: number; inlinksAfter: number; pagerankBefore: number; pagerankAfter: number };
}

export interface ChangeQuery {
  /** One run (default: the latest run that has changes). */
  runId?: number;
  /** Every run that started at or after this time (ms since the epoch), instead of one run. */
  since?: number;
  kinds?: ChangeKind[];
  /** Only URLs whose path starts with one of these (`/blog/`). */
  paths?: string[];
  limit?: number;
}

/** The markdown of a changed page before and after, for a diff. */
export interface ChangeTexts {
  before: string;
  after: string;
}

/** A run's changes: written as pages commit, completed at the run's end. */
export interface ChangeStore {
  /**
   * At a finished run's end: the link kinds (`newly-linked`, `orphaned`, `removed` by unlinking)
   * from the links pages gained and lost during the run. Idempotent. Returns the run's counts by kind.
   */
  finishChanges(runId: number, now: number): Promise<Partial<Record<ChangeKind, number>>>;
  changes(query: ChangeQuery): Promise<ChangeRecord[]>;
  /** The texts of a `changed` page in a run; undefined when the run did not change it. */
  changeTexts(runId: number, urlId: string): Promise<ChangeTexts | undefined>;
}
