import { randomUUID } from 'node:crypto';
import type { CrawlOptions } from '../library/crawl.js';
import type { CrawlEvent } from '../pipeline/stages/progress.js';
import type { RunSummary } from '../store/ports/index.js';
import type { WebhookSender } from './webhooks.js';

/** One crawl asked for over MCP or the API: queued behind the data directory's single writer. */
export interface CrawlJob {
  id: string;
  status: 'queued' | 'running' | 'finished' | 'stopped' | 'failed';
  seeds: string[];
  /** Counters of the running crawl, from its progress events. */
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

type CrawlFn = (seeds: readonly string[], options: CrawlOptions) => Promise<RunSummary>;

/** Stored pages go to webhooks in batches of this many (and the rest when the crawl ends). */
const PAGE_BATCH = 25;

interface Running {
  job: CrawlJob;
  events: JobEvent[];
  listeners: Set<(e: JobEvent) => void>;
  stop: AbortController;
}

/**
 * Crawls run one at a time (a data directory has one writer), in the order they were asked for.
 * Each job's progress comes from the crawl's own events; followers get them as they happen, and
 * webhooks get `crawl.started`, `page.stored` (batched), `crawl.finished` and `crawl.failed`.
 */
export class CrawlJobs {
  private readonly jobs = new Map<string, Running>();
  private chain: Promise<void> = Promise.resolve();

  constructor(
    private readonly crawl: CrawlFn,
    private readonly base: CrawlOptions,
    private readonly webhooks?: WebhookSender,
  ) {}

  start(seeds: string[], options: CrawlOptions = {}): CrawlJob {
    const job: CrawlJob = { id: randomUUID(), status: 'queued', seeds, progress: { requests: 0, pagesStored: 0, queued: 0, errors: 0 }, createdAt: Date.now() };
    const run: Running = { job, events: [], listeners: new Set(), stop: new AbortController() };
    this.jobs.set(job.id, run);
    let pages: string[] = [];
    const flushPages = () => {
      if (pages.length) this.webhooks?.send('page.stored', { id: job.id, urls: pages });
      pages = [];
    };
    const onEvent = (e: CrawlEvent) => {
      if (e.type !== 'progress') return;
      job.progress = { requests: e.stats.requests, pagesStored: e.stats.pages, queued: e.queued, errors: e.stats.errors };
      this.emit(run, { type: 'crawl.progress', id: job.id, progress: job.progress });
    };
    const onPage = (p: { url: string }) => {
      pages.push(p.url);
      if (pages.length >= PAGE_BATCH) flushPages();
    };
    this.chain = this.chain.then(async () => {
      job.status = 'running';
      this.emit(run, { type: 'crawl.started', id: job.id, seeds });
      this.webhooks?.send('crawl.started', { id: job.id, seeds });
      try {
        const summary = await this.crawl(seeds, { ...this.base, ...options, onEvent, onPage, signal: run.stop.signal });
        job.summary = summary;
        job.progress = { ...job.progress, requests: summary.requests, pagesStored: summary.pagesStored, queued: 0 };
        job.status = summary.status === 'finished' ? 'finished' : 'stopped';
        flushPages();
        this.emit(run, { type: job.status === 'finished' ? 'crawl.finished' : 'crawl.stopped', id: job.id, summary });
        this.webhooks?.send('crawl.finished', { id: job.id, status: job.status, summary });
      } catch (err) {
        job.status = 'failed';
        job.error = err instanceof Error ? err.message : String(err);
        flushPages();
        this.emit(run, { type: 'crawl.failed', id: job.id, error: job.error });
        this.webhooks?.send('crawl.failed', { id: job.id, error: job.error });
      }
    });
    return job;
  }

  get(id: string): CrawlJob | undefined {
    return this.jobs.get(id)?.job;
  }

  /** Stops a job cleanly (the run stays resumable); false when there is no such job or it already ended. */
  stop(id: string): boolean {
    const run = this.jobs.get(id);
    if (!run || run.job.status === 'finished' || run.job.status === 'failed' || run.job.status === 'stopped') return false;
    run.stop.abort();
    return true;
  }

  /**
   * Follows a job: `listener` gets the events so far, then each new one; returns how to stop
   * following. An ended job's last event is the end.
   */
  follow(id: string, listener: (e: JobEvent) => void): (() => void) | undefined {
    const run = this.jobs.get(id);
    if (!run) return undefined;
    for (const e of run.events) listener(e);
    run.listeners.add(listener);
    return () => run.listeners.delete(listener);
  }

  /** Resolves when every job asked for so far has ended (and its webhooks were delivered). */
  async idle(): Promise<void> {
    await this.chain;
    await this.webhooks?.flush();
  }

  private emit(run: Running, e: JobEvent): void {
    // Progress is a snapshot: followers who join later need the latest, not every one.
    if (e.type === 'crawl.progress') run.events = run.events.filter((x) => x.type !== 'crawl.progress');
    run.events.push(e);
    for (const l of run.listeners) l(e);
  }
}
