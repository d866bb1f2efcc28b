import type { RunSummary } from './records.js';
import type { JobOptions } from '../config/job-options.js';

/** One crawl asked for over the API or MCP, as its caller follows it. */
export interface CrawlJob {
  id: string;
  status: 'queued' | 'running' | 'finished' | 'stopped' | 'failed';
  seeds: string[];
  /** Counters of the running crawl. */
  progress: { requests: number; pagesStored: number; queued: number; errors: number };
  summary?: RunSummary;
  error?: string;
  createdAt: number;
}

/** What a job's followers (Server-Sent Events) are told. */
export type JobEvent =
  | { type: 'crawl.started'; id: string; seeds: string[] }
  | { type: 'crawl.progress'; id: string; progress: CrawlJob['progress'] }
  | { type: 'crawl.finished'; id: string; summary: RunSummary }
  | { type: 'crawl.stopped'; id: string; summary: RunSummary }
  | { type: 'crawl.failed'; id: string; error: string };

/**
 * Starts crawls and answers for them: the embedded runtime's job queue (`CrawlJobs`, behind the
 * data directory's single writer) or the cloud's run state machine (`ApiCrawls`). `options` are
 * the job's settings, typed; each launcher checks them again (`checkJobOptions`).
 */
export interface CrawlLauncher {
  /** `origin.caller`: who asked (the signed IAM principal behind the cloud's API), for per-caller caps. */
  start(seeds: string[], options: JobOptions, origin?: { caller?: string }): CrawlJob | Promise<CrawlJob>;
  get(id: string): CrawlJob | undefined | Promise<CrawlJob | undefined>;
  /**
   * Stops a job cleanly; false when there is no such job or it already ended. `origin.caller`: who
   * asks; a launcher that keeps callers apart refuses another caller's job (ForbiddenError).
   */
  stop(id: string, origin?: { caller?: string }): boolean | Promise<boolean>;
  /** Follows a job's events as they happen (the embedded runtime only: the cloud's are on its event bus). */
  follow?(id: string, listener: (e: JobEvent) => void): (() => void) | undefined;
  /** Follows the pages a job stores, by URL, as they are stored (the embedded runtime only); undefined for no such job. */
  followPages?(id: string, listener: (url: string) => void): (() => void) | undefined;
}
