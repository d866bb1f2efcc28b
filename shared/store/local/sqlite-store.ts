import Database from 'better-sqlite3';
import type { Database as Db, Statement } from 'better-sqlite3';
import { accessSync, constants, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { DataDirError, errorMessage } from '../../errors.js';
import type {
  CrawlStore, EdgeRecord, FetchCommit, FetchRecord, FrontierRow, HostRecord, PageRecord, RunRecord, RunStatus, RunSummary, SeenUrl, UrlState,
} from '../ports.js';
import { SCHEMA_SQL, SCHEMA_VERSION } from './schema.js';
import { SOFT_SKIPS } from '../ports.js';
import { frontierParams, pageParams, rowToFrontier, rowToPage, summarize } from './sqlite-rows.js';

export const DB_FILE = 'trawl.db';

/** Creates the data directory if needed and checks that we can write to it. */
export function prepareDataDir(dir: string): void {
  try {
    mkdirSync(dir, { recursive: true });
    accessSync(dir, constants.W_OK);
  } catch (err) {
    throw new DataDirError(`cannot write to data directory ${dir} (${errorMessage(err)}): pass --data with a writable directory`, { cause: err });
  }
}

function openDatabase(file: string): Db {
  let db: Db;
  try {
    db = new Database(file);
    db.pragma('journal_mode = WAL');
    // WAL with synchronous=NORMAL survives a killed process (SIGKILL) without losing commits.
    db.pragma('synchronous = NORMAL');
    db.pragma('busy_timeout = 5000');
  } catch (err) {
    throw new DataDirError(`cannot open ${file} as a trawl database (${errorMessage(err)}): pass --data with an empty directory or an existing trawl data directory`, { cause: err });
  }
  const hasMeta = db.prepare("SELECT name FROM sqlite_master WHERE type='table' AND name='meta'").get();
  const tableCount = (db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE type='table'").get() as { n: number }).n;
  if (!hasMeta && tableCount > 0) {
    db.close();
    throw new DataDirError(`${file} is an SQLite database but not trawl's: pass --data with another directory`);
  }
  if (hasMeta) {
    const row = db.prepare("SELECT value FROM meta WHERE key='schema_version'").get() as { value: string } | undefined;
    if (Number(row?.value) !== SCHEMA_VERSION) {
      db.close();
      throw new DataDirError(`${file} was written by another trawl version (data schema ${row?.value ?? 'unknown'}, this trawl uses ${SCHEMA_VERSION}): use a new --data directory, or the trawl version that wrote it`);
    }
  }
  db.exec(SCHEMA_SQL);
  db.prepare("INSERT OR IGNORE INTO meta (key, value) VALUES ('schema_version', ?)").run(String(SCHEMA_VERSION));
  return db;
}

/** The embedded crawl store: one SQLite file (WAL) in the data directory. */
export class SqliteCrawlStore implements CrawlStore {
  readonly db: Db;
  private readonly stmts: Record<string, Statement>;
  private readonly commitTx: (commit: FetchCommit) => string[];

  constructor(dataDir: string) {
    prepareDataDir(dataDir);
    this.db = openDatabase(join(dataDir, DB_FILE));
    const s = (sql: string) => this.db.prepare(sql);
    this.stmts = {
      // A URL skipped for a reason that depends on the path to it (too deep, nofollow) is
      // queued after all when a better path turns up; any other seen URL is never re-added.
      insertUrl: s(`INSERT INTO frontier (run_id, url_id, url, host, depth, priority, kind, state, reason, inlinks, fresh, redirects, attempts, not_before, discovered_from)
        VALUES (@runId, @urlId, @url, @host, @depth, @priority, @kind, @state, @reason, @inlinks, @fresh, @redirects, @attempts, @notBefore, @discoveredFrom)
        ON CONFLICT (run_id, url_id) DO UPDATE SET state = excluded.state, reason = NULL, depth = excluded.depth, priority = excluded.priority,
          kind = excluded.kind, discovered_from = excluded.discovered_from
        WHERE frontier.state = 'skipped' AND frontier.reason IN (${SOFT_SKIPS.map((r) => `'${r}'`).join(', ')}) AND excluded.state = 'queued'`),
      setState: s('UPDATE frontier SET state = ?, reason = ?, attempts = ?, not_before = ? WHERE run_id = ? AND url_id = ?'),
      reprioritize: s('UPDATE frontier SET priority = ?, inlinks = ? WHERE run_id = ? AND url_id = ?'),
      insertFetch: s(`INSERT INTO fetches (run_id, url_id, url, kind, status, fetched_at, duration_ms, content_hash, bytes, truncated, not_modified, error, headers)
        VALUES (@runId, @urlId, @url, @kind, @status, @fetchedAt, @durationMs, @contentHash, @bytes, @truncated, @notModified, @error, @headers)`),
      upsertPage: s(`INSERT OR REPLACE INTO pages (url_id, url, host, run_id, status, mime, charset, content_hash, bytes, truncated, etag, last_modified, fetched_at, title, indexable, nofollow, duplicate_of, canonical_url)
        VALUES (@urlId, @url, @host, @runId, @status, @mime, @charset, @contentHash, @bytes, @truncated, @etag, @lastModified, @fetchedAt, @title, @indexable, @nofollow, @duplicateOf, @canonicalUrl)`),
      deleteEdges: s('DELETE FROM edges WHERE from_id = ?'),
      insertEdge: s('INSERT OR IGNORE INTO edges (from_id, to_id, to_url, anchor, rel, nofollow) VALUES (@fromId, @toId, @toUrl, @anchor, @rel, @nofollow)'),
      upsertAlias: s('INSERT OR REPLACE INTO aliases (url_id, url, target_url, reason) VALUES (@urlId, @url, @targetUrl, @reason)'),
    };
    this.commitTx = this.db.transaction((c: FetchCommit) => this.applyCommit(c));
  }

  private insertFetch(f: FetchRecord): void {
    this.stmts.insertFetch!.run({
      ...f, status: f.status ?? null, contentHash: f.contentHash ?? null, truncated: f.truncated ? 1 : 0,
      notModified: f.notModified ? 1 : 0, error: f.error ?? null, headers: f.headers ? JSON.stringify(f.headers) : null,
    });
  }

  private applyCommit(c: FetchCommit): string[] {
    this.stmts.setState!.run(c.state, c.reason ?? null, c.attempts, c.notBefore ?? 0, c.runId, c.urlId);
    if (c.fetch) this.insertFetch(c.fetch);
    if (c.page) this.stmts.upsertPage!.run(pageParams(c.page));
    if (c.edges) {
      this.stmts.deleteEdges!.run(c.urlId);
      for (const e of c.edges) this.stmts.insertEdge!.run({ ...e, nofollow: e.nofollow ? 1 : 0 });
    }
    for (const a of c.aliases ?? []) this.stmts.upsertAlias!.run(a);
    for (const r of c.reprioritized ?? []) this.stmts.reprioritize!.run(r.priority, r.inlinks, c.runId, r.urlId);
    return this.insertUrls(c.discovered ?? []);
  }

  private insertUrls(rows: FrontierRow[]): string[] {
    const inserted: string[] = [];
    for (const row of rows) if (this.stmts.insertUrl!.run(frontierParams(row)).changes > 0) inserted.push(row.urlId);
    return inserted;
  }

  async createRun(seeds: string[], config: Record<string, unknown>, now: number): Promise<RunRecord> {
    const info = this.db.prepare("INSERT INTO runs (started_at, status, seeds, config) VALUES (?, 'running', ?, ?)").run(now, JSON.stringify(seeds), JSON.stringify(config));
    return { id: Number(info.lastInsertRowid), startedAt: now, status: 'running', seeds, config };
  }

  async latestRun(): Promise<RunRecord | undefined> {
    const row = this.db.prepare('SELECT * FROM runs ORDER BY id DESC LIMIT 1').get() as Record<string, unknown> | undefined;
    if (!row) return undefined;
    return {
      id: row.id as number, startedAt: row.started_at as number, finishedAt: (row.finished_at as number | null) ?? undefined,
      status: row.status as RunStatus, seeds: JSON.parse(row.seeds as string) as string[], config: JSON.parse(row.config as string) as Record<string, unknown>,
    };
  }

  async setRunStatus(runId: number, status: RunStatus, now: number): Promise<void> {
    const finished = status === 'running' ? null : now;
    this.db.prepare('UPDATE runs SET status = ?, finished_at = ? WHERE id = ?').run(status, finished, runId);
  }

  async addUrls(rows: FrontierRow[]): Promise<string[]> {
    return this.db.transaction(() => this.insertUrls(rows))();
  }

  async markInFlight(runId: number, urlId: string): Promise<void> {
    this.db.prepare("UPDATE frontier SET state = 'in_flight' WHERE run_id = ? AND url_id = ?").run(runId, urlId);
  }

  async setUrlStates(runId: number, urlIds: string[], state: UrlState, reason: string): Promise<void> {
    const stmt = this.db.prepare('UPDATE frontier SET state = ?, reason = ? WHERE run_id = ? AND url_id = ?');
    this.db.transaction(() => {
      for (const id of urlIds) stmt.run(state, reason, runId, id);
    })();
  }

  async requeueInFlight(runId: number): Promise<number> {
    return this.db.prepare("UPDATE frontier SET state = 'queued' WHERE run_id = ? AND state = 'in_flight'").run(runId).changes;
  }

  async queuedUrls(runId: number): Promise<FrontierRow[]> {
    return (this.db.prepare("SELECT * FROM frontier WHERE run_id = ? AND state = 'queued'").all(runId) as Record<string, unknown>[]).map(rowToFrontier);
  }

  async seenUrls(runId: number): Promise<SeenUrl[]> {
    const rows = this.db.prepare('SELECT url_id, url, kind, state, reason FROM frontier WHERE run_id = ?').all(runId) as Array<Record<string, string | null>>;
    return rows.map((r) => ({ urlId: r.url_id!, url: r.url!, kind: r.kind as SeenUrl['kind'], state: r.state as UrlState, reason: r.reason ?? undefined }));
  }

  async commitFetch(commit: FetchCommit): Promise<string[]> {
    return this.commitTx(commit);
  }

  async recordFetch(record: FetchRecord): Promise<void> {
    this.insertFetch(record);
  }

  async getPage(urlId: string): Promise<PageRecord | undefined> {
    const row = this.db.prepare('SELECT * FROM pages WHERE url_id = ?').get(urlId) as Record<string, unknown> | undefined;
    return row ? rowToPage(row) : undefined;
  }

  async findPageByContentHash(hash: string, exceptUrlId: string): Promise<PageRecord | undefined> {
    const row = this.db.prepare('SELECT * FROM pages WHERE content_hash = ? AND url_id != ? AND duplicate_of IS NULL ORDER BY fetched_at LIMIT 1').get(hash, exceptUrlId) as Record<string, unknown> | undefined;
    return row ? rowToPage(row) : undefined;
  }

  async outlinks(urlId: string): Promise<EdgeRecord[]> {
    return (this.db.prepare('SELECT * FROM edges WHERE from_id = ?').all(urlId) as Array<Record<string, unknown>>).map((r) => ({
      fromId: r.from_id as string, toId: r.to_id as string, toUrl: r.to_url as string, anchor: r.anchor as string, rel: r.rel as string, nofollow: r.nofollow === 1,
    }));
  }

  async getHost(host: string): Promise<HostRecord | undefined> {
    const r = this.db.prepare('SELECT * FROM hosts WHERE host = ?').get(host) as Record<string, unknown> | undefined;
    if (!r) return undefined;
    const opt = <T>(v: unknown) => (v === null ? undefined : (v as T));
    return {
      host, state: JSON.parse(r.state as string) as HostRecord['state'], robotsStatus: opt<number>(r.robots_status), robotsBody: opt<string>(r.robots_body),
      robotsError: opt<string>(r.robots_error), robotsFetchedAt: opt<number>(r.robots_fetched_at), robotsExpiresAt: opt<number>(r.robots_expires_at),
    };
  }

  async putHost(h: HostRecord): Promise<void> {
    this.db.prepare(`INSERT OR REPLACE INTO hosts (host, state, robots_status, robots_body, robots_error, robots_fetched_at, robots_expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)`)
      .run(h.host, JSON.stringify(h.state), h.robotsStatus ?? null, h.robotsBody ?? null, h.robotsError ?? null, h.robotsFetchedAt ?? null, h.robotsExpiresAt ?? null);
  }

  async putHostState(state: HostRecord['state']): Promise<void> {
    this.db.prepare('INSERT INTO hosts (host, state) VALUES (?, ?) ON CONFLICT (host) DO UPDATE SET state = excluded.state').run(state.host, JSON.stringify(state));
  }

  async summary(runId: number): Promise<RunSummary> {
    return summarize(this.db, runId);
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }
}
