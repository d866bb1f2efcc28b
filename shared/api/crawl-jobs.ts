import { cookiesAtRest, isCookiesAtRest } from '../fetch/session-cookies.js';
import { checkJobOptions, type JobOptions } from '../config/job-options.js';
import { randomUUID } from 'node:crypto';
import { DataDirLockedError, JobQueueFullError } from '../errors.js';
import type { CrawlOptions } from '../library/crawl.js';
import type { CrawlEvent } from '../pipeline/stages/progress.js';
import type { RunSummary } from '../ports/index.js';
import type { WebhookSender } from './webhooks.js';
import type { BookedJob, JobBook } from '../store/local/job-book.js';
import type { CrawlJob, CrawlLauncher, JobEvent } from '../ports/crawl-launcher.js';

export type { CrawlJob, JobEvent } from '../ports/crawl-launcher.js';

type CrawlFn = (seeds: readonly string[], options: CrawlOptions) => Promise<RunSummary>;

/** Stored pages go to webhooks in batches of this many (and the rest when the crawl ends). */
const PAGE_BATCH = 25;
/** A running job's progress is written to the book at most this often. */
const PROGRESS_SAVE_MS = 2_000;
/**
 * Jobs waiting behind the running one, at most: a directory has one writer, so a longer queue only
 * grows the book (read at every start) with crawls that would wait days.
 */
export const MAX_QUEUED_JOBS = 20;

export { JOB_SETTINGS, type JobOptions, type JobSetting } from '../config/job-options.js';

interface Running {
  job: CrawlJob;
  options: JobOptions;
  events: JobEvent[];
  listeners: Set<(e: JobEvent) => void>;
  /** Told each page the job stores (not kept: a follower joins for the pages to come). */
  pageListeners: Set<(url: string) => void>;
  stop: AbortController;
}

/**
 * Crawls run one at a time (a data directory has one writer), in the order they were asked for.
 * Each job's progress comes from the crawl's own events; followers get them as they happen, and
 * webhooks get `crawl.started`, `page.stored` (batched), `crawl.finished` and `crawl.failed`.
 * With a book (`jobs.db`), the queue survives a restart: jobs still queued run in their order, and
 * the one that was running resumes its run (`resume: true`), re-fetching only what was in flight.
 */
export class CrawlJobs implements CrawlLauncher {
  private readonly jobs = new Map<string, Running>();
  private chain: Promise<void> = Promise.resolve();
  /** Set by `shutdown()`: the running crawl stops to be resumed, the queue stays in the book. */
  private closing = false;

  constructor(
    private readonly crawl: CrawlFn,
    private readonly base: CrawlOptions,
    private readonly webhooks?: WebhookSender,
    private readonly book?: JobBook,
  ) {
    if (book) this.restore(book);
  }

  start(seeds: string[], given: JobOptions = {}): CrawlJob {
    // The one gate into a crawl, whoever asks (REST, MCP, Firecrawl): only a job's settings, each valid.
    const options = checkJobOptions(given);
    let queued = 0;
    for (const run of this.jobs.values()) if (run.job.status === 'queued') queued++;
    if (queued >= MAX_QUEUED_JOBS)
      throw new JobQueueFullError(
        `${queued} crawl jobs are queued already (at most ${MAX_QUEUED_JOBS}): try again when one has ended, or stop one (DELETE /crawls/{id})`,
      );
    const job: CrawlJob = { id: randomUUID(), status: 'queued', seeds, progress: { requests: 0, pagesStored: 0, queued: 0, errors: 0 }, createdAt: Date.now() };
    const run: Running = { job, options, events: [], listeners: new Set(), pageListeners: new Set(), stop: new AbortController() };
    this.jobs.set(job.id, run);
    this.save(run);
    this.enqueue(run);
    return job;
  }

  /** The book's jobs: ended ones to answer for, queued ones queued again, the running one resumed. */
  private restore(book: JobBook): void {
    for (const b of book.jobs()) {
      const job: CrawlJob = {
        id: b.id,
        status: b.status as CrawlJob['status'],
        seeds: b.seeds,
        progress: { requests: 0, pagesStored: 0, queued: 0, errors: 0, ...b.progress },
        ...(b.summary ? { summary: b.summary as RunSummary } : {}),
        ...(b.error ? { error: b.error } : {}),
        createdAt: b.createdAt,
      };
      const run: Running = { job, options: b.options as JobOptions, events: [], listeners: new Set(), pageListeners: new Set(), stop: new AbortController() };
      this.jobs.set(job.id, run);
      if (job.status === 'running') {
        // Its crawl was cut off with the server: the run goes on where it stopped.
        job.status = 'queued';
        run.options = { ...run.options, resume: true };
        this.save(run);
      }
      if (job.status === 'queued' && isCookiesAtRest(run.options.cookies)) {
        // Its cookies were never written down: crawling without them would fetch as someone else.
        job.status = 'failed';
        job.error = 'the server restarted before this crawl ended, and its session cookies are not kept at rest: start it again with them';
        this.save(run);
      }
      if (job.status === 'queued') this.enqueue(run);
      else if (job.summary) run.events.push({ type: job.status === 'finished' ? 'crawl.finished' : 'crawl.stopped', id: job.id, summary: job.summary });
      else if (job.error) run.events.push({ type: 'crawl.failed', id: job.id, error: job.error });
    }
  }

  private save(run: Running): void {
    const { job, options } = run;
    // Session cookies are kept in memory for the job's crawl, and by reference only in jobs.db.
    const booked: BookedJob = {
      ...job,
      options: { ...options, ...(options.cookies ? { cookies: cookiesAtRest(options.cookies) } : {}) },
      progress: { ...job.progress },
    };
    this.book?.saveJob(booked);
  }

  private enqueue(run: Running): void {
    const { job } = run;
    let saved = 0;
    let pages: string[] = [];
    const flushPages = () => {
      if (pages.length) this.webhooks?.send('page.stored', { id: job.id, urls: pages });
      pages = [];
    };
    const onEvent = (e: CrawlEvent) => {
      // The changes the crawl's monitor tells, in batches as stored pages are.
      if (e.type === 'changes')
        for (let i = 0; i < e.told.length; i += PAGE_BATCH)
          this.webhooks?.send('page.changed', { id: job.id, runId: e.runId, changes: e.told.slice(i, i + PAGE_BATCH) });
      if (e.type !== 'progress') return;
      job.progress = { requests: e.stats.requests, pagesStored: e.stats.pages, queued: e.queued, errors: e.stats.errors };
      this.emit(run, { type: 'crawl.progress', id: job.id, progress: job.progress });
      if (Date.now() - saved >= PROGRESS_SAVE_MS) {
        saved = Date.now();
        this.save(run);
      }
    };
    const onPage = (p: { url: string }) => {
      for (const l of run.pageListeners) l(p.url);
      pages.push(p.url);
      if (pages.length >= PAGE_BATCH) flushPages();
    };
    this.chain = this.chain.then(async () => {
      if (run.stop.signal.aborted || this.closing) return;
      const { seeds } = job;
      job.status = 'running';
      this.save(run);
      this.emit(run, { type: 'crawl.started', id: job.id, seeds });
      this.webhooks?.send('crawl.started', { id: job.id, seeds });
      try {
        // A resumed run continues from the data directory; its seeds were queued when it started.
        const summary = await this.crawl(run.options.resume ? [] : seeds, { ...this.base, ...run.options, onEvent, onPage, signal: run.stop.signal });
        if (this.closing && summary.status !== 'finished' && this.book) {
          // Stopped by the server's shutdown: queued again, to resume its run at the next start.
          job.status = 'queued';
          run.options = { ...run.options, resume: true };
          return this.save(run);
        }
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
      this.save(run);
    });
  }

  /**
   * Runs `work` when the directory is the jobs' to lend: after the jobs queued before it, and before
   * any queued after. Waits at most `waitMs`; then it is refused (never run) with a
   * `DataDirLockedError` naming the job that holds the directory.
   */
  exclusive<T>(work: () => Promise<T>, waitMs: number): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      let given = false;
      const timer = setTimeout(() => {
        given = true;
        const busy = [...this.jobs.values()].find((r) => r.job.status === 'running') ?? [...this.jobs.values()].find((r) => r.job.status === 'queued');
        reject(
          new DataDirLockedError(
            `the data directory is busy with crawl job ${busy?.job.id ?? '(ending)'} (${busy?.job.status ?? 'ending'}): try again once it has ended (crawl_status), or crawl the URL as a job`,
          ),
        );
      }, waitMs);
      this.chain = this.chain.then(async () => {
        if (given) return;
        clearTimeout(timer);
        try {
          resolve(await work());
        } catch (err) {
          reject(err);
        }
      });
    });
  }

  get(id: string): CrawlJob | undefined {
    return this.jobs.get(id)?.job;
  }

  /** Stops a job cleanly (the run stays resumable); false when there is no such job or it already ended. */
  stop(id: string): boolean {
    const run = this.jobs.get(id);
    if (!run || run.job.status === 'finished' || run.job.status === 'failed' || run.job.status === 'stopped') return false;
    run.stop.abort();
    if (run.job.status === 'queued') {
      // Never started: it ends here, and the queue moves on without it.
      run.job.status = 'stopped';
      this.save(run);
    }
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

  followPages(id: string, listener: (url: string) => void): (() => void) | undefined {
    const run = this.jobs.get(id);
    if (!run) return undefined;
    run.pageListeners.add(listener);
    return () => run.pageListeners.delete(listener);
  }

  /**
   * The server is stopping: the running crawl stops cleanly (with a book, it is queued again to
   * resume at the next start, as are the jobs still queued); resolves once it has stopped and the
   * webhooks sent so far were delivered.
   */
  async shutdown(): Promise<void> {
    this.closing = true;
    for (const run of this.jobs.values()) if (run.job.status === 'running') run.stop.abort();
    await this.chain;
    await this.webhooks?.close();
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
