import type { EnrichStage } from '../errors.js';
import type { ModelStamp } from '../enrich/providers.js';
import { pageFieldsOf, type PageFields } from './page-fields.js';
import type { SchemaExtraction } from '../enrich/schema-extract.js';

/** A model stamp with the time the output was made. */
export interface StampedAt extends ModelStamp {
  at: number;
}

/** What the store knows of a page's vector: enough to check the index against it. */
export interface EmbeddingMeta extends StampedAt {
  dimension: number;
  /** SHA-256 of the vector's bytes (hex, first 16): the index holds the same vector when its hash matches. */
  hash: string;
}

/** A page's summary, tags and embedding metadata: the source of truth the indexes are built from. */
export interface EnrichmentRecord extends PageFields {
  urlId: string;
  url: string;
  host: string;
  title: string;
  /** The extraction's text hash when this was made: a page whose text changed is enriched again. */
  textHash: string;
  summary: string;
  tags: string[];
  summaryStamp: StampedAt;
  tagsStamp: StampedAt;
  embedding?: EmbeddingMeta;
  updatedAt: number;
  /**
   * How much the page reads as a listing (home, archive, tag or category page) rather than content:
   * the share of its markdown's blocks that begin with a link (`listingShare`), 0 for content.
   * Search ranks listings below content; a record made before it was measured has none.
   */
  listing?: number;
  /** The page's values for the crawl's extract schema (`--extract-schema`), each with the chunks it came from, or the error. */
  extracted?: SchemaExtraction;
  /**
   * Milliseconds the work behind this write took (the summary, tag and embedding passes made for
   * it, retries included): counted in the store's latency histogram, not kept with the record.
   */
  tookMs?: number;
}

/** Upper bounds (ms) of the enrichment latency histogram's buckets; the last bucket is everything above. */
export const ENRICH_LATENCY_BOUNDS_MS = [10, 50, 100, 250, 500, 1000, 2500, 5000, 10000, 30000] as const;

/** The index of the latency bucket of an enrichment taking `ms`. */
export function enrichLatencyBucket(ms: number): number {
  const i = ENRICH_LATENCY_BOUNDS_MS.findIndex((bound) => ms <= bound);
  return i < 0 ? ENRICH_LATENCY_BOUNDS_MS.length : i;
}

/** Enrichments written with a `tookMs`, per latency bucket (`ENRICH_LATENCY_BOUNDS_MS`, then one above), not cumulative. */
export interface EnrichLatency {
  counts: number[];
  sumMs: number;
}

/** A page that may be enriched: its extraction, and its enrichment if it has one. */
/** A page to enrich, with the fields its hits show (`HIT_FIELDS`) from its extraction. */
export interface EnrichCandidate extends PageFields {
  urlId: string;
  url: string;
  host: string;
  title: string;
  markdown: string;
  textHash: string;
  enrichment?: EnrichmentRecord;
}

/** A page whose enrichment keeps failing: kept with its error, retried by the next `trawl enrich`. */
export interface EnrichFailure {
  urlId: string;
  url: string;
  stage: EnrichStage;
  error: string;
  attempts: number;
  failedAt: number;
}

export interface SearchFilters {
  /** Every tag must be on the page (`#kebab-case`). */
  tags?: string[];
  /** The host or any subdomain of it. */
  domain?: string;
  /** A language code prefix: `en` matches `en-GB`. */
  language?: string;
  /** ISO dates on the published date (pages without one are left out when a bound is given). */
  since?: string;
  until?: string;
}

export interface TextHit {
  urlId: string;
  /** BM25 score (higher is better). */
  score: number;
}

/** What a search hit shows. */
export interface HitDetails extends PageFields {
  urlId: string;
  url: string;
  host: string;
  title: string;
  summary: string;
  tags: string[];
  /** The query's terms found in the text the full-text index holds for it (by stem), in the query's order. */
  matched: string[];
  /** The anchor texts other pages link to it with, most used first. */
  inlinks: Array<{ anchor: string; count: number }>;
  /** The record's `listing`: search ranks by it and does not show it. */
  listing?: number;
  /**
   * Pages that link to it from their body or sidebar (at most `LINKED_FROM_KEPT`): search ranks a
   * listing below the hits it links to, and does not show them.
   */
  linkedFrom?: string[];
  /** The page's values for the crawl's extract schema with the chunks each came from, or why there are none. */
  extracted?: Pick<SchemaExtraction, 'data' | 'sources' | 'error'>;
}

/** The most linking pages a hit's details name. */
export const LINKED_FROM_KEPT = 200;

/**
 * A hit's details from its record, which of the query's terms it holds and its inlink anchors
 * (both stores build them so). The terms are matched where the text is, so the text never travels:
 * in its indexed text (`termsIn`) or its index terms (`termsHeld`).
 */
export function hitOf(e: EnrichmentRecord, matched: string[], inlinks: HitDetails['inlinks'], linkedFrom: string[] = []): HitDetails {
  const { urlId, url, host, title, summary, tags, listing, extracted: x } = e;
  const extracted = x && { data: x.data, sources: x.sources, error: x.error };
  return {
    urlId,
    url,
    host,
    title,
    summary,
    tags,
    ...pageFieldsOf(e),
    matched,
    inlinks,
    ...(listing === undefined ? {} : { listing }),
    linkedFrom,
    ...(extracted ? { extracted } : {}),
  };
}

/** What a fold of changes into a segmented full-text index did. */
export interface TextIndexUpdate {
  /** False when another fold committed first: the changes stay logged for the next. */
  committed: boolean;
  /** Pages written in the new segment, and pages deleted since the last fold. */
  folded: number;
  deleted: number;
  /** Segments the index has after the fold and the merges it ran. */
  segments: number;
  merges: number;
  seconds: number;
}

/** The store side of Summarize and Index: enrichments (truth), the full-text index, the dead-letter list. */
export interface EnrichStore {
  /** Pages to consider, in url-id order after `afterUrlId`: indexable, not duplicates, with text. */
  enrichCandidates(afterUrlId: string, limit: number): Promise<EnrichCandidate[]>;
  /** One page as a candidate, if it is one. */
  enrichCandidate(urlId: string): Promise<EnrichCandidate | undefined>;
  /** Writes the record and indexes its text (title, tags, summary, body) for full-text search; counts its `tookMs`. */
  putEnrichment(record: EnrichmentRecord, body: string): Promise<void>;
  /** The latency histogram of every enrichment written with a `tookMs` (a retried write may count twice). */
  enrichLatency(): Promise<EnrichLatency>;
  /** Drops the record and its full-text entry. */
  deleteEnrichment(urlId: string): Promise<void>;
  /** Every record, in url-id order after `afterUrlId`. */
  enrichments(afterUrlId: string, limit: number): Promise<EnrichmentRecord[]>;
  /** The records of these pages that exist (in no promised order). */
  enrichmentsOf(urlIds: string[]): Promise<EnrichmentRecord[]>;
  recordEnrichFailure(failure: EnrichFailure): Promise<void>;
  clearEnrichFailure(urlId: string): Promise<void>;
  enrichFailures(): Promise<EnrichFailure[]>;
  /** BM25 over the indexed text; `terms` are plain words (OR-ed, more matched terms rank higher). */
  textSearch(terms: string[], filters: SearchFilters, limit: number): Promise<TextHit[]>;
  /** What each hit shows, with which of the query's `terms` its indexed text holds. */
  hitDetails(urlIds: string[], terms: string[]): Promise<HitDetails[]>;
  /**
   * Folds what changed into the full-text index, where it is kept in immutable segments (the
   * cloud: S3); absent where the index is updated in place (SQLite FTS5).
   */
  /**
   * Folds the changes logged since the last fold into the full-text index. With `settle` (a run's
   * end), changes logged just before the call are waited for until they are safe to fold, so a
   * finished run's pages are all in the segments.
   */
  indexTextChanges?(options?: { settle?: boolean }): Promise<TextIndexUpdate>;
  /**
   * Document frequencies over the indexed pages' text for these stems (Porter, lower case), and
   * how many pages are indexed. Optional: a store without it gives the tagger no statistics.
   */
  termFrequencies?(stems: string[]): Promise<{ docs: number; df: Record<string, number> }>;
}

/** Filterable fields kept beside each vector, so a filtered query needs no second lookup. */
export interface VectorMetadata {
  host: string;
  language?: string;
  published?: string;
  tags: string[];
}

export interface VectorRecord {
  id: string;
  vector: Float32Array;
  model: string;
  hash: string;
  metadata: VectorMetadata;
}

/** What an integrity check reads of each vector. */
export interface VectorEntry {
  id: string;
  model: string;
  dimension: number;
  hash: string;
}

/** The vector sink: SQLite (sqlite-vec) embedded, Amazon S3 Vectors in the cloud. */
export interface VectorIndex {
  upsert(records: VectorRecord[]): Promise<void>;
  delete(ids: string[]): Promise<void>;
  /** Nearest vectors of `model` by cosine distance (0 same, 2 opposite), filtered. */
  query(vector: Float32Array, model: string, k: number, filters: SearchFilters): Promise<Array<{ id: string; distance: number }>>;
  /** One page of every entry (in no promised order); `next` continues, absent on the last page. */
  list(token: string | undefined, limit: number): Promise<{ entries: VectorEntry[]; next?: string }>;
  /** The entries the index holds of these ids (in no promised order). */
  entriesOf(ids: string[]): Promise<VectorEntry[]>;
}
