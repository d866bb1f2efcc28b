import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Db } from './sqlite-types.js';
import Database from './sqlite-driver.js';

/** The server's own book beside the crawl database: crawl jobs asked for over the API or MCP, and webhook deliveries. */
export const JOBS_FILE = 'jobs.db';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS jobs (
  id TEXT PRIMARY KEY,
  status TEXT NOT NULL,
  seeds TEXT NOT NULL,
  options TEXT NOT NULL,
  progress TEXT NOT NULL,
  summary TEXT,
  error TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS deliveries (
  id TEXT NOT NULL,
  url TEXT NOT NULL,
  event TEXT NOT NULL,
  job TEXT,
  attempts INTEGER NOT NULL,
  ok INTEGER NOT NULL,
  status INTEGER,
  error TEXT,
  at INTEGER NOT NULL,
  PRIMARY KEY (id, url)
);
CREATE INDEX IF NOT EXISTS deliveries_failed ON deliveries (ok, at);
`;

/** A job as the book keeps it: what was asked (seeds, the crawl's options as posted), where it got. */
export interface BookedJob {
  id: string;
  status: string;
  seeds: string[];
  options: Record<string, unknown>;
  progress: Record<string, number>;
  summary?: unknown;
  error?: string;
  createdAt: number;
}

/** One webhook delivery as its last attempt left it. */
export interface BookedDelivery {
  id: string;
  url: string;
  event: string;
  job?: string;
  attempts: number;
  ok: boolean;
  status?: number;
  error?: string;
  at: number;
}

/**
 * `jobs.db` in the data directory: `trawl serve`'s queue of crawl jobs (so it survives a restart)
 * and every webhook delivery (`trawl webhooks`). A file of its own, not the crawl database, whose
 * single writer is the crawl a job runs.
 */
export class JobBook {
  private constructor(private readonly db: Db) {}

  /** Opens (or makes) the book; `readonly` opens only a book that exists, or returns undefined. */
  static open(dataDir: string, readonly = false): JobBook | undefined {
    const file = join(dataDir, JOBS_FILE);
    if (readonly && !existsSync(file)) return undefined;
    const db = new Database(file, { readonly });
    db.pragma('busy_timeout = 5000');
    if (!readonly) {
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
      db.exec(SCHEMA);
    }
    return new JobBook(db);
  }

  saveJob(job: BookedJob): void {
    this.db
      .prepare(
        `INSERT INTO jobs (id, status, seeds, options, progress, summary, error, created_at, updated_at)
         VALUES (@id, @status, @seeds, @options, @progress, @summary, @error, @createdAt, @now)
         ON CONFLICT (id) DO UPDATE SET status = excluded.status, options = excluded.options, progress = excluded.progress, summary = excluded.summary,
           error = excluded.error, updated_at = excluded.updated_at`,
      )
      .run({
        id: job.id,
        status: job.status,
        seeds: JSON.stringify(job.seeds),
        options: JSON.stringify(job.options),
        progress: JSON.stringify(job.progress),
        summary: job.summary === undefined ? null : JSON.stringify(job.summary),
        error: job.error ?? null,
        createdAt: job.createdAt,
        now: Date.now(),
      });
  }

  /** Every job, oldest first. */
  jobs(): BookedJob[] {
    const rows = this.db.prepare('SELECT * FROM jobs ORDER BY created_at, rowid').all() as Array<Record<string, string | number | null>>;
    return rows.map((r) => ({
      id: String(r.id),
      status: String(r.status),
      seeds: JSON.parse(String(r.seeds)) as string[],
      options: JSON.parse(String(r.options)) as Record<string, unknown>,
      progress: JSON.parse(String(r.progress)) as Record<string, number>,
      ...(r.summary !== null ? { summary: JSON.parse(String(r.summary)) as unknown } : {}),
      ...(r.error !== null ? { error: String(r.error) } : {}),
      createdAt: Number(r.created_at),
    }));
  }

  saveDelivery(d: BookedDelivery): void {
    this.db
      .prepare(
        `INSERT INTO deliveries (id, url, event, job, attempts, ok, status, error, at) VALUES (@id, @url, @event, @job, @attempts, @ok, @status, @error, @at)
         ON CONFLICT (id, url) DO UPDATE SET attempts = excluded.attempts, ok = excluded.ok, status = excluded.status, error = excluded.error, at = excluded.at`,
      )
      .run({ ...d, job: d.job ?? null, ok: d.ok ? 1 : 0, status: d.status ?? null, error: d.error ?? null });
  }

  /** Deliveries, newest first; `failed`: only those that never got a 2xx. */
  deliveries(failed = false, limit = 1000): BookedDelivery[] {
    const rows = this.db.prepare(`SELECT * FROM deliveries ${failed ? 'WHERE ok = 0' : ''} ORDER BY at DESC, rowid DESC LIMIT ?`).all(limit) as Array<
      Record<string, string | number | null>
    >;
    return rows.map((r) => ({
      id: String(r.id),
      url: String(r.url),
      event: String(r.event),
      ...(r.job !== null ? { job: String(r.job) } : {}),
      attempts: Number(r.attempts),
      ok: r.ok === 1,
      ...(r.status !== null ? { status: Number(r.status) } : {}),
      ...(r.error !== null ? { error: String(r.error) } : {}),
      at: Number(r.at),
    }));
  }

  close(): void {
    this.db.close();
  }
}
