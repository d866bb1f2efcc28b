import type { HostState } from '../../politeness/host-state.js';
import type {
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
  UrlState,
} from '../records.js';

/** The crawl state port: frontier, hosts, pages, fetch records, edges and runs. */
export interface CrawlStore {
  createRun(seeds: string[], config: Record<string, unknown>, now: number): Promise<RunRecord>;
  latestRun(): Promise<RunRecord | undefined>;
  /** Every run, oldest first. */
  runs(): Promise<RunRecord[]>;
  setRunStatus(runId: number, status: RunStatus, now: number): Promise<void>;
  /** Adds origins to the run's scope (`RunRecord.scope`); one already there is not added twice. */
  widenRunScope(runId: number, origins: string[]): Promise<void>;
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
  /**
   * URLs in flight whose claim lapsed before `now` (their worker or page workflow died, or an
   * Express workflow timed out and skipped its Catch): the cloud's stall recovery sends them again,
   * and the fetch worker may claim them anew. The embedded store holds no claims: always empty.
   */
  lapsedUrls(runId: number, now: number): Promise<FrontierRow[]>;
  /** Every URL still `queued` becomes `skipped` with `reason` (a finished run leaves none queued); returns how many. */
  settleQueued(runId: number, reason: string): Promise<number>;
  queuedUrls(runId: number): Promise<FrontierRow[]>;
  /** URLs a run deferred to a later one (host backed off past its end), with the time they may be asked. */
  deferredUrls(runId: number): Promise<FrontierRow[]>;
  /** Every URL the run has seen, for rebuilding per-run state on resume. */
  seenUrls(runId: number): Promise<SeenUrl[]>;
  commitFetch(commit: FetchCommit): Promise<string[]>;
  /**
   * Commits many fetches, in order, as `commitFetch` would one by one (in one transaction where
   * the backend has them: the embedded crawl groups its commits); returns each commit's new url ids.
   */
  commitFetches(commits: FetchCommit[]): Promise<string[][]>;
  /** Records an interaction that belongs to no frontier URL (robots.txt). */
  recordFetch(record: FetchRecord): Promise<void>;
  /** Every interaction with a URL, oldest first: the archive index of one target. */
  fetchHistory(urlId: string): Promise<FetchRecord[]>;
  /** Pages with a stored body, for re-extraction. */
  storedPages(): Promise<PageRecord[]>;
  /** Replaces a page's extraction, chunks and the edges of its snapshot (re-extraction from the archive). */
  saveExtraction(edges: EdgeRecord[], extract: ExtractRecord | undefined, chunks: ChunkRecord[]): Promise<void>;
  getExtract(urlId: string): Promise<ExtractRecord | undefined>;
  /** The chunks of a page's current extraction, in order. */
  chunks(urlId: string): Promise<ChunkRecord[]>;
  getPage(urlId: string): Promise<PageRecord | undefined>;
  /**
   * Records `urlId` as the first page fetched with these bytes (unless another page was, and still
   * has them) and returns the owner's url id: called at fetch time, so the first fetch owns a body
   * however its processing is scheduled.
   */
  claimBody(hash: string, urlId: string, at: number): Promise<string>;
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
  /** Fetches over time and their latency histogram (robots.txt refusals left out, as in the summary). */
  activity(runId: number): Promise<RunActivity>;
  close(): Promise<void>;
}
