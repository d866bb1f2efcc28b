/** The records the store ports read and write: a public contract (the DynamoDB items carry the same fields). */
import type { FetchKind } from '../fetch/content-type.js';
import type { ChangeKind } from './change-store.js';
import type { HostState } from '../politeness/host-state.js';
import type { MetadataFields } from '../extract/meta-fields.js';

/**
 * The fate of a URL within one run. `deferred`: its host was backed off past the end of the
 * crawl; the URL waits (with `notBefore`) for `--resume` or the next run.
 */
export type UrlState = 'queued' | 'in_flight' | 'deferred' | 'done' | 'failed' | 'skipped' | 'blocked' | 'duplicate';

/** States a URL does not leave within a run. */
export const FINAL_STATES: ReadonlySet<string> = new Set<UrlState>(['done', 'failed', 'skipped', 'blocked', 'duplicate']);

/** States a run can end with: the final ones, and `deferred` (left for a later run). */
export const SETTLED_STATES: ReadonlySet<string> = new Set<UrlState>(['done', 'failed', 'skipped', 'blocked', 'duplicate', 'deferred']);

/**
 * Why a URL is skipped, blocked or failed, or why it waits: one name per decision, shared by both
 * runtimes and every store (`trawl status`, the API and the run report show them as written).
 */
export type UrlReason =
  // Admission: where the link pointed and how it was reached.
  | 'out-of-scope'
  | 'denied'
  | 'not-included'
  | 'max-depth'
  | 'nofollow'
  | 'private-address'
  | 'below-threshold'
  | 'too-many-redirects'
  | 'max-sitemaps'
  | `trap:${string}`
  // The host and its rules.
  | 'robots'
  | 'host-parked'
  | 'host-too-slow'
  | 'address-refused'
  | 'robots-unreachable'
  | 'backed-off'
  // Budgets and the run's life.
  | 'max-pages'
  | 'max-pages-per-host'
  | 'in-flight'
  | 'running'
  | 'run-failed'
  // What came back, and what processing made of it.
  | `http-${number}`
  | 'network-error'
  | 'unchanged'
  | 'redirect'
  | 'duplicate-body'
  | 'fetch-error'
  | 'content-type'
  | 'redirect-without-location'
  | 'redirect-loop'
  | 'attempts-exhausted'
  | 'duplicate'
  | 'processing-failed';

/** Skip reasons that depend on how a URL was reached, so a later link may still queue it. */
export const SOFT_SKIPS = ['max-depth', 'nofollow'] as const;

export interface FrontierRow {
  runId: number;
  urlId: string;
  url: string;
  host: string;
  depth: number;
  priority: number;
  kind: FetchKind;
  state: UrlState;
  /** Why a URL was skipped, blocked or failed (e.g. `robots`, `trap:calendar`, `max-depth`). */
  reason?: UrlReason;
  inlinks: number;
  fresh: boolean;
  redirects: number;
  attempts: number;
  /** Not before this time (a 429'd URL waits for its host's back-off). */
  notBefore: number;
  discoveredFrom?: string;
  /** The URL as it was found, before canonicalisation (kept in memory for the interaction record). */
  rawUrl?: string;
}

/** A frontier row of a page at depth 0 with no score, queued and never tried: the given fields over those. */
export function frontierRowOf(fields: Pick<FrontierRow, 'runId' | 'urlId' | 'url' | 'host'> & Partial<FrontierRow>): FrontierRow {
  return { depth: 0, priority: 0, kind: 'page', state: 'queued', inlinks: 0, fresh: false, redirects: 0, attempts: 0, notBefore: 0, ...fields };
}

export interface SeenUrl {
  urlId: string;
  url: string;
  kind: FetchKind;
  state: UrlState;
  reason?: string;
}

export interface PageRecord {
  urlId: string;
  url: string;
  host: string;
  runId: number;
  status: number;
  mime: string;
  charset?: string;
  contentHash?: string;
  bytes: number;
  truncated: boolean;
  etag?: string;
  lastModified?: string;
  fetchedAt: number;
  title?: string;
  indexable: boolean;
  nofollow: boolean;
  /** The url id of the first page with the same body bytes. */
  duplicateOf?: string;
  canonicalUrl?: string;
  /** What was extracted: the page as served (`http`, the default) or its DOM after scripts ran (`browser`). */
  fetcher?: 'http' | 'browser';
  /** The render decision of an HTML page and, when it was rendered, how that went. */
  render?: RenderInfo;
}

/** Whether an HTML page went through Chromium, why, and what came of it. */
export interface RenderInfo {
  /** `rendered`: its DOM after scripts ran was extracted; `not-rendered`: as served; `failed`: the render failed, so as served. */
  outcome: 'rendered' | 'not-rendered' | 'failed';
  /** The decision's reason (`empty-root #root`, `enough-content`, `render-always`, `host-gains-nothing …`). */
  reason: string;
  /** Rendering added text or links (false counts against the host). */
  gained?: boolean;
  durationMs?: number;
  /** Requests the page made that went out, and those blocked by reason. */
  requests?: number;
  blocked?: Record<string, number>;
  /** The network went idle before the settle cap. */
  settled?: boolean;
  attempts?: number;
  /** Blob hashes of the rendered HTML and of the screenshot. */
  renderedHash?: string;
  screenshotHash?: string;
  error?: string;
}

/** The error of the interaction record of a URL that robots.txt refused: no request was made. */
export const ROBOTS_REFUSAL = 'refused: disallowed by robots.txt';

/** What an interaction turned out to be: the requested kind, or pdf/raw once the type is known; `preview`: a page's head only (a focused crawl's link preview); `search` and `social`: a call to a search or social API, keyed by its normalised target. */
export type RecordKind = FetchKind | 'pdf' | 'raw' | 'preview' | 'search' | 'social';

/** Where an exchange's response (or, without one, its metadata) record sits in the WARC files. */
export interface WarcLocation {
  file: string;
  offset: number;
  length: number;
  /** The record's WARC-Record-ID (carried to the render step, which refers to it; not kept by every store). */
  recordId?: string;
}

/**
 * A final answer (no retry follows) whose exchange reached the WARC file before its commit: what a
 * resume needs to process it from the archive instead of asking the host again.
 */
export interface ArchivedAnswer {
  warc: WarcLocation;
  /** When the request started (the fetch record's time). */
  at: number;
  durationMs: number;
  wireBytes: number;
}

/** One interaction with a server, success or not: the archive's index record. */
export interface FetchRecord {
  runId: number;
  urlId: string;
  url: string;
  /** The target as it was found (before canonicalisation), when it differs. */
  rawUrl?: string;
  kind: RecordKind;
  fetcher: 'http' | 'browser';
  warc?: WarcLocation;
  status?: number;
  fetchedAt: number;
  durationMs: number;
  contentHash?: string;
  bytes: number;
  truncated: boolean;
  notModified: boolean;
  error?: string;
  headers?: Record<string, string>;
}

/** A link of one snapshot (body hash) of a source page, with its context. */
export interface EdgeRecord {
  fromId: string;
  snapshot: string;
  toId: string;
  toUrl: string;
  anchor: string;
  context: string;
  section: 'nav' | 'header' | 'footer' | 'sidebar' | 'body';
  rel: string;
  internal: boolean;
  nofollow: boolean;
  /** The stored page the target resolves to (directly or through a redirect/canonical alias). */
  toPageId?: string;
}

/** The extraction of one page snapshot. */
export interface ExtractRecord extends MetadataFields {
  urlId: string;
  runId: number;
  snapshot: string;
  wordCount: number;
  readingMinutes: number;
  method: string;
  markdown: string;
  textHash: string;
  simhash: string;
  nearDuplicateOf?: string;
  nearDuplicateDistance?: number;
  textDuplicateOf?: string;
  pdfPages?: number;
  metadata: Record<string, unknown>;
  /** CSS-selector fields of the crawl's profile or command line that matched the page. */
  fields?: Record<string, string | number | string[] | number[]>;
}

export interface ChunkRecord {
  urlId: string;
  seq: number;
  id: string;
  position: number;
  tokens: number;
  text: string;
  prevId?: string;
  nextId?: string;
}

export interface AliasRecord {
  urlId: string;
  url: string;
  targetUrl: string;
  reason: 'rel-canonical' | 'redirect';
}

export interface HostRecord {
  host: string;
  state: HostState;
  robotsStatus?: number;
  robotsBody?: string;
  robotsError?: string;
  robotsFetchedAt?: number;
  robotsExpiresAt?: number;
}

/** `failed`: a cloud run whose state machine caught an error (the report says which); never resumed. */
export type RunStatus = 'running' | 'finished' | 'interrupted' | 'abandoned' | 'failed';

export interface RunRecord {
  id: number;
  startedAt: number;
  finishedAt?: number;
  status: RunStatus;
  seeds: string[];
  config: Record<string, unknown>;
  /**
   * Origins that joined the crawl's scope during the run, as the seeds' hosts are: where its search
   * and social targets led (`scheme://host[:port]`, each once).
   */
  scope?: string[];
  /**
   * In the cloud: when the run's progress stalled (nothing settled for a while). From then on a host
   * backed off for longer than `maxIdleWaitMs` defers its URLs instead of holding the run open.
   */
  idleSince?: number;
  /** In the cloud: when a worker last found the run's page budget spent (turns wait a while instead of each finding it again). */
  pagesFullAt?: number;
}

/** Everything one finished fetch changes, written atomically where the backend allows. */
export interface FetchCommit {
  runId: number;
  urlId: string;
  state: UrlState;
  reason?: UrlReason;
  attempts: number;
  notBefore?: number;
  fetch?: FetchRecord;
  /** `fetch` is counted in the run's activity already (by the worker that made it): its record adds nothing there. */
  fetchCounted?: boolean;
  /** The browser's interaction, when the page was rendered: its own record, pointing at the rendered WARC records. */
  rendered?: FetchRecord;
  page?: PageRecord;
  /** The outlinks of this snapshot of the page. */
  edges?: EdgeRecord[];
  /** Replaces the page's extraction, chunks and SimHash bands. */
  extract?: ExtractRecord;
  chunks?: ChunkRecord[];
  aliases?: AliasRecord[];
  /** New URLs: inserted only where the run has not seen them. */
  discovered?: FrontierRow[];
  /** Priority changes of already-queued URLs (more inlinks). */
  reprioritized?: Array<{ urlId: string; priority: number; inlinks: number }>;
}

export interface RunSummary {
  runId: number;
  status: RunStatus;
  startedAt: number;
  finishedAt?: number;
  seeds: string[];
  /** The search queries and social accounts the run started from (absent when none). */
  targets?: string[];
  urlsByState: Record<string, number>;
  skipsByReason: Record<string, number>;
  fetchesByStatus: Record<string, number>;
  requests: number;
  pagesStored: number;
  unchanged: number;
  duplicates: number;
  bytes: number;
  hostsParked: Array<{ host: string; reason: string }>;
  /** What changed since the run before, by kind (`trawl changes`); absent for a data directory's first run or a store that keeps none. */
  changes?: Partial<Record<ChangeKind, number>>;
}

/** A run's search and social targets (kept in its config), as `RunSummary.targets`. */
export function targetsOf(config: Record<string, unknown>): { targets?: string[] } {
  const t = config.targets;
  return Array.isArray(t) && t.length ? { targets: t.filter((x): x is string => typeof x === 'string') } : {};
}

/** Upper bounds (ms) of the fetch latency histogram's buckets; the last bucket is everything above. */
export const FETCH_LATENCY_BOUNDS_MS = [50, 100, 250, 500, 1000, 2500, 5000, 10000, 30000] as const;

/** The latency bucket of a fetch taking `ms`: an index into `RunActivity.latency.counts`. */
export function latencyBucket(ms: number): number {
  const i = FETCH_LATENCY_BOUNDS_MS.findIndex((bound) => ms <= bound);
  return i < 0 ? FETCH_LATENCY_BOUNDS_MS.length : i;
}

/** Time buckets for a chart of a run lasting `spanMs`: about 60 points, at whole seconds or minutes. */
export function activityBucketMs(spanMs: number): number {
  const steps = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600].map((s) => s * 1000);
  return steps.find((step) => spanMs / step <= 60) ?? 3_600_000;
}

/** A run's fetches over time and their latency: what a chart of pages/s and `/metrics` read. */
export interface RunActivity {
  runId: number;
  /** Width of each point's time bucket. */
  bucketMs: number;
  /** Buckets with at least one fetch, oldest first: requests made, 2xx answers and 304s (unchanged) in the bucket starting at `at`. */
  points: Array<{ at: number; requests: number; ok: number; unchanged: number }>;
  /** Fetches per latency bucket (`FETCH_LATENCY_BOUNDS_MS`, then one more for slower ones), not cumulative. */
  latency: { counts: number[]; sumMs: number };
}

export interface LinkView extends EdgeRecord {
  fromUrl: string;
}

export interface RankedPage {
  urlId: string;
  url: string;
  title?: string;
  inlinks: number;
  hosts: number;
  pagerank: number;
}

export interface UnfetchedUrl {
  url: string;
  inlinks: number;
  /** Distinct hosts linking to it: corroboration. */
  hosts: number;
}

/** The run's counters, kept beside the run record. */
export interface RunProgress {
  status: RunStatus;
  /** URLs that entered the frontier (queued, or settled at once). */
  enqueued: number;
  /** URLs that reached a final state. */
  settled: number;
  /** Page slots taken against the page budget. */
  pages: number;
  startedAt: number;
}

/** A refused claim says when the host's rules allow the next request, and whether another worker holds it now. */
export type HostClaim =
  | { claimed: true; record: HostRecord }
  /** Refused: when the host is ready, whether another worker holds it, whether it is backed off (not only waiting its delay), and why it is parked. */
  | { claimed: false; readyAt: number; leased: boolean; backedOff?: boolean; parkedReason?: string };

export type { SelectedPage, SelectionRecord } from './selection.js';
