import type { FetchKind } from '../fetch/content-type.js';
import type { HostState } from '../politeness/host-state.js';
import type { MetadataFields } from '../extract/metadata.js';

/**
 * The fate of a URL within one run. `deferred`: its host was backed off past the end of the
 * crawl; the URL waits (with `notBefore`) for `--resume` or the next run.
 */
export type UrlState = 'queued' | 'in_flight' | 'deferred' | 'done' | 'failed' | 'skipped' | 'blocked' | 'duplicate';

/** States a URL does not leave within a run. */
export const FINAL_STATES: ReadonlySet<string> = new Set<UrlState>(['done', 'failed', 'skipped', 'blocked', 'duplicate']);

/** States a run can end with: the final ones, and `deferred` (left for a later run). */
export const SETTLED_STATES: ReadonlySet<string> = new Set<UrlState>(['done', 'failed', 'skipped', 'blocked', 'duplicate', 'deferred']);

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
  reason?: string;
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
}

/** The error of the interaction record of a URL that robots.txt refused: no request was made. */
export const ROBOTS_REFUSAL = 'refused: disallowed by robots.txt';

/** What an interaction turned out to be: the requested kind, or pdf/raw once the type is known. */
export type RecordKind = FetchKind | 'pdf' | 'raw';

/** Where an exchange's response (or, without one, its metadata) record sits in the WARC files. */
export interface WarcLocation {
  file: string;
  offset: number;
  length: number;
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

export type RunStatus = 'running' | 'finished' | 'interrupted' | 'abandoned';

export interface RunRecord {
  id: number;
  startedAt: number;
  finishedAt?: number;
  status: RunStatus;
  seeds: string[];
  config: Record<string, unknown>;
}

/** Everything one finished fetch changes, written atomically where the backend allows. */
export interface FetchCommit {
  runId: number;
  urlId: string;
  state: UrlState;
  reason?: string;
  attempts: number;
  notBefore?: number;
  fetch?: FetchRecord;
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
  urlsByState: Record<string, number>;
  skipsByReason: Record<string, number>;
  fetchesByStatus: Record<string, number>;
  requests: number;
  pagesStored: number;
  unchanged: number;
  duplicates: number;
  bytes: number;
  hostsParked: Array<{ host: string; reason: string }>;
}

/** The crawl state port: frontier, hosts, pages, fetch records, edges and runs. */
export interface CrawlStore {
  createRun(seeds: string[], config: Record<string, unknown>, now: number): Promise<RunRecord>;
  latestRun(): Promise<RunRecord | undefined>;
  setRunStatus(runId: number, status: RunStatus, now: number): Promise<void>;
  /** Inserts frontier rows the run has not seen; returns the url ids that were new. */
  addUrls(rows: FrontierRow[]): Promise<string[]>;
  /**
   * Marks a URL as in flight before its request starts and counts the attempt, so a resume knows
   * what may repeat and a page that kills the process is not retried forever.
   */
  markInFlight(runId: number, urlId: string): Promise<void>;
  /** Sets the state of many URLs at once (e.g. when a host is parked); `notBefore` for deferred ones. */
  setUrlStates(runId: number, urlIds: string[], state: UrlState, reason: string, notBefore?: number): Promise<void>;
  /**
   * After a crash: URLs that were in flight go back to the queue, except those whose attempts
   * reached `maxAttempts`, which fail (`attempts-exhausted`); deferred URLs are queued again.
   */
  requeueInFlight(runId: number, maxAttempts: number): Promise<{ requeued: number; exhausted: number }>;
  /** Every URL still `queued` becomes `skipped` with `reason` (a finished run leaves none queued); returns how many. */
  settleQueued(runId: number, reason: string): Promise<number>;
  queuedUrls(runId: number): Promise<FrontierRow[]>;
  /** URLs a run deferred to a later one (host backed off past its end), with the time they may be asked. */
  deferredUrls(runId: number): Promise<FrontierRow[]>;
  /** Every URL the run has seen, for rebuilding per-run state on resume. */
  seenUrls(runId: number): Promise<SeenUrl[]>;
  commitFetch(commit: FetchCommit): Promise<string[]>;
  /** Records an interaction that belongs to no frontier URL (robots.txt). */
  recordFetch(record: FetchRecord): Promise<void>;
  /** Every interaction with a URL, oldest first: the archive index of one target. */
  fetchHistory(urlId: string): Promise<FetchRecord[]>;
  /** Pages with a stored body, for re-extraction. */
  storedPages(): Promise<PageRecord[]>;
  /** Replaces a page's extraction, chunks and the edges of its snapshot (re-extraction from the archive). */
  saveExtraction(edges: EdgeRecord[], extract: ExtractRecord | undefined, chunks: ChunkRecord[]): Promise<void>;
  getExtract(urlId: string): Promise<ExtractRecord | undefined>;
  getPage(urlId: string): Promise<PageRecord | undefined>;
  findPageByContentHash(hash: string, exceptUrlId: string): Promise<PageRecord | undefined>;
  /** Outlinks of the page's current snapshot. */
  outlinks(urlId: string): Promise<EdgeRecord[]>;
  /** The earliest other page whose SimHash is within `maxDistance`, found through the band index. */
  findNearDuplicate(simhash: string, exceptUrlId: string, maxDistance: number): Promise<{ urlId: string; distance: number } | undefined>;
  /** The earliest other page with the same normalised text. */
  findTextDuplicate(textHash: string, exceptUrlId: string): Promise<string | undefined>;
  getHost(host: string): Promise<HostRecord | undefined>;
  putHost(record: HostRecord): Promise<void>;
  /** Saves the politeness state of a host, keeping its robots.txt fields. */
  putHostState(state: HostState): Promise<void>;
  summary(runId: number): Promise<RunSummary>;
  close(): Promise<void>;
}

/** Content-addressed raw bodies. */
export interface BlobStore {
  /** Stores bytes under their SHA-256 and returns the hex digest. */
  put(bytes: Buffer): Promise<string>;
  get(hash: string): Promise<Buffer | undefined>;
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

/** Link graph queries over the current snapshot of every page. */
export interface GraphStore {
  outlinks(urlId: string): Promise<LinkView[]>;
  inlinks(urlId: string): Promise<LinkView[]>;
  /** Computes inlink counts and PageRank for the stored graph (at the end of a crawl). */
  computeRanks(runId: number): Promise<number>;
  top(limit: number): Promise<RankedPage[]>;
  unfetched(limit: number): Promise<UnfetchedUrl[]>;
}

// ---- cloud runtime ports (SQS frontier, S3 objects, DynamoDB run ledger)

/** The distributed frontier: one message per URL, one message group (in flight at a time) per host. */
export interface FrontierQueue {
  send(rows: FrontierRow[]): Promise<void>;
  /** Gives a received message back, to be received again after `delayMs` (its host is not ready). */
  handBack(receipt: string, delayMs: number): Promise<void>;
}

/** Starts a workflow execution (the page workflow) with a JSON input; at least once. */
export interface WorkflowStarter {
  start(name: string, input: unknown): Promise<void>;
}

/** Named objects (WARC files, extracted content, reports) under the bucket's key layout. */
export interface ObjectStore {
  put(key: string, body: Buffer | string, contentType: string): Promise<void>;
  get(key: string): Promise<Buffer | undefined>;
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
export type HostClaim = { claimed: true; record: HostRecord } | { claimed: false; readyAt: number; leased: boolean; parkedReason?: string };

/**
 * What many stateless workers need to share a run: claims and counters, each one conditional
 * single-item write (the cloud has no in-process scheduler to keep them).
 */
export interface RunLedger {
  getRun(runId: number): Promise<RunRecord | undefined>;
  runProgress(runId: number): Promise<RunProgress | undefined>;
  getUrl(runId: number, urlId: string): Promise<FrontierRow | undefined>;
  /** Claims a queued URL (or one whose claim lapsed); undefined when it is not fetchable now. */
  claimUrl(runId: number, urlId: string, now: number, leaseMs: number): Promise<FrontierRow | undefined>;
  /** Claims the next request to a host: only once its next allowed time and back-off have passed. */
  claimHost(host: string, owner: string, now: number, leaseMs: number): Promise<HostClaim>;
  /** Saves the host's politeness state and gives the claim back. */
  releaseHost(state: HostState, owner: string): Promise<void>;
  claimPageSlot(runId: number, maxPages: number): Promise<boolean>;
  releasePageSlot(runId: number): Promise<void>;
  claimHostSlot(runId: number, host: string, maxPerHost: number): Promise<boolean>;
  releaseHostSlot(runId: number, host: string): Promise<void>;
  /** Adds `value` to a per-run trap counter unless it already holds `limit` other values; false when full. */
  rememberVariant(runId: number, key: string, value: string, limit: number): Promise<boolean>;
}
