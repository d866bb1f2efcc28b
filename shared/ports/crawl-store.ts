import type { HostState } from '../politeness/host-state.js';
import type {
  ArchivedAnswer,
  ChunkRecord,
  EdgeRecord,
  ExtractRecord,
  FetchCommit,
  FetchRecord,
  FrontierRow,
  HostRecord,
  PageRecord,
  RunActivity,
  RunRecord,
  RunStatus,
  RunSummary,
  SeenUrl,
  UrlReason,
  UrlState,
} from './records.js';

/**
 * Runs: their records, status and scope. Reads answer `undefined` (or an empty list) when there is
 * no such run; writes to a run that does not exist are a programming error, not a case to handle.
 */
export interface RunStore {
  /** A new run, `running`, numbered after the last one. Not idempotent: each call is a run. */
  createRun(seeds: string[], config: Record<string, unknown>, now: number): Promise<RunRecord>;
  /** The run with the highest id; undefined before the first. */
  latestRun(): Promise<RunRecord | undefined>;
  /** Every run, oldest first. */
  runs(): Promise<RunRecord[]>;
  /** Runs newest first, at most `limit`, numbered below `before` (none: from the newest): a listing that reads only its own runs. */
  recentRuns(limit: number, before?: number): Promise<RunRecord[]>;
  /** One run by its id; undefined when there is no such run. */
  getRun(runId: number): Promise<RunRecord | undefined>;
  /** The runs whose status is `running`, oldest first: read without the runs that ended. */
  runningRuns(): Promise<RunRecord[]>;
  /** The latest run of a named crawl (`config.crawl`); undefined when it never ran. */
  latestRunOf(crawl: string): Promise<RunRecord | undefined>;
  /** Idempotent: setting the status a run has changes nothing but its time. */
  setRunStatus(runId: number, status: RunStatus, now: number): Promise<void>;
  /** Adds origins to the run's scope (`RunRecord.scope`); one already there is not added twice. */
  widenRunScope(runId: number, origins: string[]): Promise<void>;
  /** The run's figures from its frontier and fetch records (zeros for a run with none). */
  summary(runId: number): Promise<RunSummary>;
  /** Fetches over time and their latency histogram (robots.txt refusals left out, as in the summary). */
  activity(runId: number): Promise<RunActivity>;
}

/** A run's frontier: every URL it has seen, and the state each is in. */
export interface FrontierStore {
  /** Inserts frontier rows the run has not seen; returns the url ids that were new. Idempotent: a URL is inserted once. */
  addUrls(rows: FrontierRow[]): Promise<string[]>;
  /**
   * Marks a URL as in flight before its request starts and counts the attempt, so a resume knows
   * what may repeat and a page that kills the process is not retried forever. Not idempotent (each call is an attempt).
   */
  markInFlight(runId: number, urlId: string): Promise<void>;
  /** Sets the state of many URLs at once (e.g. when a host is parked); `notBefore` for deferred ones. Idempotent. */
  setUrlStates(runId: number, urlIds: string[], state: UrlState, reason: UrlReason, notBefore?: number): Promise<void>;
  /**
   * A final answer to an in-flight URL reached the archive: kept durably until the URL's commit, so
   * a resume processes it from the archive and the host is not asked twice. Optional: a store
   * without it (the cloud's: its fetch messages are redelivered) lets a resume fetch the URL again.
   */
  answered?(runId: number, urlId: string, answer: ArchivedAnswer): void;
  /**
   * The answers of URLs in flight that a kill left uncommitted, by url id; read before
   * `requeueInFlight`, which queues them again (whatever their attempts) for the resume to process.
   */
  uncommittedAnswers?(runId: number): Map<string, ArchivedAnswer>;
  /**
   * After a crash: URLs that were in flight go back to the queue, except those whose attempts
   * reached `maxAttempts`, which fail (`attempts-exhausted`), unless their answer was archived
   * (`uncommittedAnswers`); deferred URLs are queued again.
   */
  requeueInFlight(runId: number, maxAttempts: number): Promise<{ requeued: number; exhausted: number }>;
  /**
   * URLs in flight whose claim lapsed before `now` (their worker or page workflow died, or an
   * Express workflow timed out and skipped its Catch): the cloud's stall recovery sends them again,
   * and the fetch worker may claim them anew. The embedded store holds no claims: always empty.
   */
  lapsedUrls(runId: number, now: number): Promise<FrontierRow[]>;
  /** Every URL still `queued` becomes `skipped` with `reason` (a finished run leaves none queued); returns how many. Idempotent: a second call finds none. */
  settleQueued(runId: number, reason: UrlReason): Promise<number>;
  /** The URLs still `queued`, for resuming a run. */
  queuedUrls(runId: number): Promise<FrontierRow[]>;
  /**
   * One host's URLs still `queued`, best first (priority, highest first), at most `limit`: how a
   * frontier that holds only part of its queued URLs in memory reads the rest back. Optional: a
   * store without it has its whole frontier held in memory.
   */
  queuedUrlsOfHost?(runId: number, host: string, limit: number): Promise<FrontierRow[]>;
  /** URLs a run deferred to a later one (host backed off past its end), with the time they may be asked. */
  deferredUrls(runId: number): Promise<FrontierRow[]>;
  /** Every URL the run has seen, for rebuilding per-run state on resume. */
  seenUrls(runId: number): Promise<SeenUrl[]>;
  /**
   * A run's fetched pages (URLs `done`: a page stored, no duplicate) a slice at a time: at most
   * `limit` url ids from `cursor` (none: the first), and the cursor after them while more may follow.
   */
  runPages(runId: number, limit: number, cursor?: string): Promise<{ urlIds: string[]; cursor?: string }>;
  /**
   * Stores what one fetch produced (its interaction record, page, links, extraction, new URLs)
   * and sets the URL's state last; returns the url ids of `discovered` that were new. Safe to
   * repeat: a redelivered commit rewrites the same items and inserts no URL twice.
   */
  commitFetch(commit: FetchCommit): Promise<string[]>;
  /**
   * Commits many fetches, in order, as `commitFetch` would one by one (in one transaction where
   * the backend has them: the embedded crawl groups its commits); returns each commit's new url ids.
   */
  commitFetches(commits: FetchCommit[]): Promise<string[][]>;
  /** Records an interaction that belongs to no frontier URL (robots.txt). Idempotent per URL and time. */
  recordFetch(record: FetchRecord): Promise<void>;
}

/** Pages across runs: the archive index, the latest page and extraction of each URL, links and duplicates. */
export interface PageStore {
  /** Every interaction with a URL, oldest first: the archive index of one target (empty: never fetched). */
  fetchHistory(urlId: string): Promise<FetchRecord[]>;
  /** Pages with a stored body, for re-extraction. */
  storedPages(): Promise<PageRecord[]>;
  /** Replaces a page's extraction, chunks and the edges of its snapshot (re-extraction from the archive). Idempotent. */
  saveExtraction(edges: EdgeRecord[], extract: ExtractRecord | undefined, chunks: ChunkRecord[]): Promise<void>;
  /** The page's current extraction; undefined for a page never extracted (not HTML or PDF, failed, a duplicate). */
  getExtract(urlId: string): Promise<ExtractRecord | undefined>;
  /** The chunks of a page's current extraction, in order. */
  chunks(urlId: string): Promise<ChunkRecord[]>;
  /** The latest page stored for a URL (any run); undefined when none was. */
  getPage(urlId: string): Promise<PageRecord | undefined>;
  /**
   * Records `urlId` as the first page fetched with these bytes (unless another page was, and still
   * has them) and returns the owner's url id: called at fetch time, so the first fetch owns a body
   * however its processing is scheduled. Idempotent for the owner.
   */
  claimBody(hash: string, urlId: string, at: number): Promise<string>;
  /** Outlinks of the page's current snapshot. */
  outlinks(urlId: string): Promise<EdgeRecord[]>;
  /** The earliest other page whose SimHash is within `maxDistance`, found through the band index; undefined when none is. */
  findNearDuplicate(simhash: string, exceptUrlId: string, maxDistance: number): Promise<{ urlId: string; distance: number } | undefined>;
  /** The earliest other page with the same normalised text; undefined when none has it. */
  findTextDuplicate(textHash: string, exceptUrlId: string): Promise<string | undefined>;
}

/** Hosts across runs: politeness state and robots.txt. */
export interface HostStore {
  /** undefined: the host was never asked. */
  getHost(host: string): Promise<HostRecord | undefined>;
  /** Replaces the host's record. Idempotent. */
  putHost(record: HostRecord): Promise<void>;
  /** Saves the politeness state of a host, keeping its robots.txt fields. Idempotent. */
  putHostState(state: HostState): Promise<void>;
}

/**
 * The crawl state port, composed of its parts (a stage that needs one part can ask for it alone):
 * runs, the frontier, pages and hosts. Both adapters (SQLite, DynamoDB) implement all of it, and
 * the contract suites in `test/contract/` hold each to the same answers.
 */
export interface CrawlStore extends RunStore, FrontierStore, PageStore, HostStore {
  /** Releases the store's connections and threads; the store is not used after. */
  close(): Promise<void>;
}
