import { randomUUID } from 'node:crypto';
import type { CrawlOptions } from '../library/crawl.js';
import type { CrawlEvent } from '../pipeline/stages/progress.js';
import type { RunSummary } from '../store/ports/index.js';

/** One crawl asked for over MCP (or the API): queued behind the data directory's single writer. */
export interface CrawlJob {
  id: string;
  status: 'queued' | 'running' | 'finished' | 'failed';
  seeds: string[];
  /** Counters of the running crawl, from its progress events. */
  progress: { requests: number; pagesStored: number; queued: number; errors: number };
  summary?: RunSummary;
  error?: string;
  createdAt: number;
}

type CrawlFn = (seeds: readonly string[], options: CrawlOptions) => Promise<RunSummary>;

/**
 * Crawls run one at a time (a data directory has one writer), in the order they were asked for.
 * Each job's progress comes from the crawl's own events.
 */
export class CrawlJobs {
  private readonly jobs = new Map<string, CrawlJob>();
  private chain: Promise<void> = Promise.resolve();

  constructor(
    private readonly crawl: CrawlFn,
    private readonly base: CrawlOptions,
  ) {}

  start(seeds: string[], options: CrawlOptions = {}): CrawlJob {
    const job: CrawlJob = { id: randomUUID(), status: 'queued', seeds, progress: { requests: 0, pagesStored: 0, queued: 0, errors: 0 }, createdAt: Date.now() };
    this.jobs.set(job.id, job);
    const onEvent = (e: CrawlEvent) => {
      if (e.type === 'progress') job.progress = { requests: e.stats.requests, pagesStored: e.stats.pages, queued: e.queued, errors: e.stats.errors };
    };
    this.chain = this.chain.then(async () => {
      job.status = 'running';
      try {
        job.summary = await this.crawl(seeds, { ...this.base, ...options, onEvent });
        job.progress = { ...job.progress, requests: job.summary.requests, pagesStored: job.summary.pagesStored, queued: 0 };
        job.status = 'finished';
      } catch (err) {
        job.status = 'failed';
        job.error = err instanceof Error ? err.message : String(err);
      }
    });
    return job;
  }

  get(id: string): CrawlJob | undefined {
    return this.jobs.get(id);
  }

  /** Resolves when every job asked for so far has ended. */
  idle(): Promise<void> {
    return this.chain;
  }
}
