import Database from './sqlite-driver.js';
import type { Database as Db, Statement } from 'better-sqlite3';
import { accessSync, constants, existsSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { DataDirError, errorMessage } from '../../errors.js';
import type {
  ChunkRecord,
  CrawlStore,
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
} from '../ports/index.js';
import { SCHEMA_SQL, SCHEMA_VERSION } from './schema.js';
import { checkSchema } from './schema-versions.js';
import { CURRENT_EDGES, rowToChunk, rowToEdge, rowToExtract, rowToFetch, rowToFrontier, rowToPage, rowToRun, summarize, activity } from './sqlite-rows.js';
import { exportRecords, type ExportRecord } from './sqlite-export.js';
import { SqliteWrites } from './sqlite-writes.js';
import { loadVectorFunctions } from './vector-functions.js';
import { hammingDistance, simhashBands } from '../../dedupe/simhash.js';

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

export interface OpenOptions {
  /** Reads only (status, graph, export, search): never writes, so it works while a crawl runs. */
  readonly?: boolean;
  /** Runs `PRAGMA quick_check` first (when opening to write), so damage is found before new writes go in. */
  check?: boolean;
}

function isCorruption(err: unknown): boolean {
  const code = (err as { code?: string }).code ?? '';
  return code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB';
}

/** The error for a damaged database file, with the command that recovers it. */
export function damagedError(file: string, detail: string, cause?: unknown): DataDirError {
  const dir = dirname(file);
  return new DataDirError(
    `${file} is damaged (${detail}): run trawl doctor --data ${dir} to see what is wrong, then trawl doctor --repair --data ${dir} to salvage what can be read into a new file (the damaged one is kept beside it)`,
    { cause },
  );
}

/**
 * A reading connection refuses writes (`query_only`) but is an ordinary one, so that when it is
 * the last it checkpoints and removes the -wal and -shm files: a read leaves no files behind. A
 * directory we may not write to gets a read-only handle instead.
 */
function readingConnection(file: string): Db {
  try {
    return new Database(file, { fileMustExist: true });
  } catch (err) {
    if (isCorruption(err) || ((err as { code?: string }).code === 'SQLITE_CANTOPEN' && !existsSync(file))) throw err;
    return new Database(file, { readonly: true, fileMustExist: true });
  }
}

/** How much of the database file is memory-mapped for reading. */
const MMAP_BYTES = 1024 ** 3;

function connect(file: string, readonly: boolean): Db {
  try {
    const db = readonly ? readingConnection(file) : new Database(file);
    if (!readonly) {
      db.pragma('journal_mode = WAL');
      // WAL with synchronous=NORMAL survives a killed process (SIGKILL) without losing commits.
      db.pragma('synchronous = NORMAL');
    }
    db.pragma('busy_timeout = 5000');
    // Reads through a memory map instead of copying pages into SQLite's cache: the exact vector scan
    // reads every vector, and at 100,000 pages this takes a query from ~360 ms to ~90 ms
    // (address space only; the OS pages the file in and out as it would its cache).
    db.pragma(`mmap_size = ${MMAP_BYTES}`);
    loadVectorFunctions(db);
    return db;
  } catch (err) {
    if (isCorruption(err)) throw damagedError(file, errorMessage(err), err);
    throw new DataDirError(
      `cannot open ${file} as a trawl database (${errorMessage(err)}): pass --data with an empty directory or an existing trawl data directory`,
      { cause: err },
    );
  }
}

/** Problems `PRAGMA quick_check` finds (empty when the file is sound). */
export function quickCheck(db: Db, limit = 10): string[] {
  const rows = db.pragma(`quick_check(${limit})`) as Array<{ quick_check: string }>;
  return rows.map((r) => r.quick_check).filter((r) => r !== 'ok');
}

function openDatabase(file: string, options: OpenOptions): Db {
  const db = connect(file, options.readonly ?? false);
  try {
    if (options.check) {
      const problems = quickCheck(db, 3);
      if (problems.length) throw damagedError(file, problems.join('; ').replace(/\s+/g, ' ').slice(0, 300));
    }
    const initialised = checkSchema(db, file, !db.readonly);
    if (options.readonly) {
      if (!initialised) throw new DataDirError(`${file} holds no trawl data yet: run trawl crawl <url> --data ${dirname(file)} first`);
      // A reader migrates an older directory like a writer would, then refuses to write.
      if (!db.readonly) db.pragma('query_only = 1');
      return db;
    }
    db.exec(SCHEMA_SQL);
    db.prepare("INSERT OR IGNORE INTO meta (key, value) VALUES ('schema_version', ?)").run(String(SCHEMA_VERSION));
    return db;
  } catch (err) {
    db.close();
    if (isCorruption(err)) throw damagedError(file, errorMessage(err), err);
    throw err;
  }
}

/** The embedded crawl store: one SQLite file (WAL) in the data directory. */
export class SqliteCrawlStore implements CrawlStore {
  readonly db: Db;
  private readonly writes: SqliteWrites;
  private readonly commitTx: (commit: FetchCommit) => string[];

  private readonly statements = new Map<string, Statement>();
  /** Body claims not yet written (see `claimBody`). */
  private readonly pendingBodies = new Map<string, { urlId: string; at: number }>();

  /** A prepared statement, prepared once per SQL text. */
  private sql(text: string): Statement {
    let stmt = this.statements.get(text);
    if (!stmt) {
      stmt = this.db.prepare(text);
      this.statements.set(text, stmt);
    }
    return stmt;
  }

  constructor(dataDir: string, options: OpenOptions = {}) {
    if (!options.readonly) prepareDataDir(dataDir);
    this.db = openDatabase(join(dataDir, DB_FILE), options);
    this.writes = new SqliteWrites(this.db);
    this.commitTx = this.db.transaction((c: FetchCommit) => {
      this.flushBodies();
      return this.writes.apply(c);
    });
  }

  async createRun(seeds: string[], config: Record<string, unknown>, now: number): Promise<RunRecord> {
    const info = this.sql("INSERT INTO runs (started_at, status, seeds, config) VALUES (?, 'running', ?, ?)").run(
      now,
      JSON.stringify(seeds),
      JSON.stringify(config),
    );
    return { id: Number(info.lastInsertRowid), startedAt: now, status: 'running', seeds, config };
  }

  async widenRunScope(runId: number, origins: string[]): Promise<void> {
    this.db.transaction(() => {
      const row = this.sql('SELECT scope FROM runs WHERE id = ?').get(runId) as { scope: string | null } | undefined;
      if (!row) return;
      const scope = new Set<string>(row.scope ? (JSON.parse(row.scope) as string[]) : []);
      const before = scope.size;
      for (const o of origins) scope.add(o);
      if (scope.size !== before) this.sql('UPDATE runs SET scope = ? WHERE id = ?').run(JSON.stringify([...scope].sort()), runId);
    })();
  }

  async latestRun(): Promise<RunRecord | undefined> {
    const row = this.sql('SELECT * FROM runs ORDER BY id DESC LIMIT 1').get() as Record<string, unknown> | undefined;
    return row ? rowToRun(row) : undefined;
  }

  async runs(): Promise<RunRecord[]> {
    return (this.sql('SELECT * FROM runs ORDER BY id').all() as Array<Record<string, unknown>>).map(rowToRun);
  }

  async chunks(urlId: string): Promise<ChunkRecord[]> {
    return (this.sql('SELECT * FROM chunks WHERE url_id = ? ORDER BY seq').all(urlId) as Array<Record<string, unknown>>).map(rowToChunk);
  }

  /** Pages (with their extraction), current edges and interactions, as records for other tools. */
  exportRecords(): AsyncIterable<ExportRecord> {
    return exportRecords(this.db);
  }

  async setRunStatus(runId: number, status: RunStatus, now: number): Promise<void> {
    const finished = status === 'running' ? null : now;
    this.sql('UPDATE runs SET status = ?, finished_at = ? WHERE id = ?').run(status, finished, runId);
  }

  async addUrls(rows: FrontierRow[]): Promise<string[]> {
    return this.db.transaction(() => this.writes.insertUrls(rows))();
  }

  async markInFlight(runId: number, urlId: string): Promise<void> {
    this.sql("UPDATE frontier SET state = 'in_flight', attempts = attempts + 1 WHERE run_id = ? AND url_id = ?").run(runId, urlId);
  }

  async setUrlStates(runId: number, urlIds: string[], state: UrlState, reason: string, notBefore?: number): Promise<void> {
    const stmt = this.sql('UPDATE frontier SET state = ?, reason = ?, not_before = coalesce(?, not_before) WHERE run_id = ? AND url_id = ?');
    this.db.transaction(() => {
      for (const id of urlIds) stmt.run(state, reason, notBefore ?? null, runId, id);
    })();
  }

  async requeueInFlight(runId: number, maxAttempts: number): Promise<{ requeued: number; exhausted: number }> {
    return this.db.transaction(() => {
      const exhausted = this.sql(
        "UPDATE frontier SET state = 'failed', reason = 'attempts-exhausted' WHERE run_id = ? AND state = 'in_flight' AND attempts >= ?",
      ).run(runId, maxAttempts).changes;
      const requeued = this.sql("UPDATE frontier SET state = 'queued', reason = NULL WHERE run_id = ? AND state IN ('in_flight', 'deferred')").run(
        runId,
      ).changes;
      return { requeued, exhausted };
    })();
  }

  async settleQueued(runId: number, reason: string): Promise<number> {
    return this.sql("UPDATE frontier SET state = 'skipped', reason = ? WHERE run_id = ? AND state = 'queued'").run(reason, runId).changes;
  }

  async queuedUrls(runId: number): Promise<FrontierRow[]> {
    return (this.sql("SELECT * FROM frontier WHERE run_id = ? AND state = 'queued'").all(runId) as Record<string, unknown>[]).map(rowToFrontier);
  }

  async deferredUrls(runId: number): Promise<FrontierRow[]> {
    return (this.sql("SELECT * FROM frontier WHERE run_id = ? AND state = 'deferred'").all(runId) as Record<string, unknown>[]).map(rowToFrontier);
  }

  async seenUrls(runId: number): Promise<SeenUrl[]> {
    const rows = this.sql('SELECT url_id, url, kind, state, reason FROM frontier WHERE run_id = ?').all(runId) as Array<Record<string, string | null>>;
    return rows.map((r) => ({ urlId: r.url_id!, url: r.url!, kind: r.kind as SeenUrl['kind'], state: r.state as UrlState, reason: r.reason ?? undefined }));
  }

  async commitFetch(commit: FetchCommit): Promise<string[]> {
    return this.commitTx(commit);
  }

  async recordFetch(record: FetchRecord): Promise<void> {
    this.writes.insertFetch(record);
  }

  async fetchHistory(urlId: string): Promise<FetchRecord[]> {
    return (this.sql('SELECT * FROM fetches WHERE url_id = ? ORDER BY fetched_at, id').all(urlId) as Array<Record<string, unknown>>).map(rowToFetch);
  }

  async storedPages(): Promise<PageRecord[]> {
    return (this.sql('SELECT * FROM pages WHERE content_hash IS NOT NULL ORDER BY fetched_at').all() as Array<Record<string, unknown>>).map(rowToPage);
  }

  async saveExtraction(edges: EdgeRecord[], extract: ExtractRecord | undefined, chunks: ChunkRecord[]): Promise<void> {
    this.db.transaction(() => this.writes.applyExtraction(edges, extract, chunks))();
  }

  async getExtract(urlId: string): Promise<ExtractRecord | undefined> {
    const r = this.sql('SELECT * FROM extracts WHERE url_id = ?').get(urlId) as Record<string, unknown> | undefined;
    return r ? rowToExtract(r) : undefined;
  }

  async getPage(urlId: string): Promise<PageRecord | undefined> {
    const row = this.sql('SELECT * FROM pages WHERE url_id = ?').get(urlId) as Record<string, unknown> | undefined;
    return row ? rowToPage(row) : undefined;
  }

  /**
   * New claims are kept in memory and written with the next commit's transaction: the data
   * directory has one writer (its lock), and a separate commit per fetched page cost 0.4 ms of CPU
   * each (measured with --cpu-prof on the bench crawl). A claim lost in a crash is made again when
   * the page is fetched again.
   */
  async claimBody(hash: string, urlId: string, at: number): Promise<string> {
    const pending = this.pendingBodies.get(hash);
    if (pending) return pending.urlId;
    const row = this.sql('SELECT url_id FROM bodies WHERE hash = ?').get(hash) as { url_id: string } | undefined;
    if (!row || row.url_id === urlId) {
      if (!row) this.pendingBodies.set(hash, { urlId, at });
      return urlId;
    }
    // An owner whose page has moved on to other bytes no longer holds these.
    const page = this.sql('SELECT content_hash FROM pages WHERE url_id = ?').get(row.url_id) as { content_hash: string | null } | undefined;
    if (!page || page.content_hash === hash) return row.url_id;
    this.sql('UPDATE bodies SET url_id = ?, claimed_at = ? WHERE hash = ?').run(urlId, at, hash);
    return urlId;
  }

  /** Writes the body claims made since the last commit (inside the caller's transaction). */
  private flushBodies(): void {
    if (this.pendingBodies.size === 0) return;
    const insert = this.sql('INSERT OR IGNORE INTO bodies (hash, url_id, claimed_at) VALUES (?, ?, ?)');
    for (const [hash, c] of this.pendingBodies) insert.run(hash, c.urlId, c.at);
    this.pendingBodies.clear();
  }

  async outlinks(urlId: string): Promise<EdgeRecord[]> {
    const rows = this.sql(`SELECT e.* FROM ${CURRENT_EDGES} WHERE e.from_id = ?`).all(urlId);
    return (rows as Array<Record<string, unknown>>).map(rowToEdge);
  }

  async findNearDuplicate(hash: string, exceptUrlId: string, maxDistance: number): Promise<{ urlId: string; distance: number } | undefined> {
    const bands = simhashBands(hash);
    const candidates = this.sql(
      `SELECT DISTINCT x.url_id, x.simhash, p.fetched_at FROM simhash_bands b JOIN extracts x ON x.url_id = b.url_id
      LEFT JOIN pages p ON p.url_id = x.url_id
      WHERE ((b.band = 0 AND b.value = ?) OR (b.band = 1 AND b.value = ?) OR (b.band = 2 AND b.value = ?) OR (b.band = 3 AND b.value = ?))
        AND x.url_id != ? AND x.near_duplicate_of IS NULL ORDER BY p.fetched_at, x.url_id`,
    ).all(...bands, exceptUrlId) as Array<{ url_id: string; simhash: string }>;
    for (const c of candidates) {
      const distance = hammingDistance(hash, c.simhash);
      if (distance <= maxDistance) return { urlId: c.url_id, distance };
    }
    return undefined;
  }

  async findTextDuplicate(textHash: string, exceptUrlId: string): Promise<string | undefined> {
    const row = this.sql(
      `SELECT x.url_id FROM extracts x LEFT JOIN pages p ON p.url_id = x.url_id WHERE x.text_hash = ? AND x.url_id != ? AND x.text_duplicate_of IS NULL
      ORDER BY p.fetched_at LIMIT 1`,
    ).get(textHash, exceptUrlId) as { url_id: string } | undefined;
    return row?.url_id;
  }

  async getHost(host: string): Promise<HostRecord | undefined> {
    const r = this.sql('SELECT * FROM hosts WHERE host = ?').get(host) as Record<string, unknown> | undefined;
    if (!r) return undefined;
    const opt = <T>(v: unknown) => (v === null ? undefined : (v as T));
    return {
      host,
      state: JSON.parse(r.state as string) as HostRecord['state'],
      robotsStatus: opt<number>(r.robots_status),
      robotsBody: opt<string>(r.robots_body),
      robotsError: opt<string>(r.robots_error),
      robotsFetchedAt: opt<number>(r.robots_fetched_at),
      robotsExpiresAt: opt<number>(r.robots_expires_at),
    };
  }

  async putHost(h: HostRecord): Promise<void> {
    this.sql(
      `INSERT OR REPLACE INTO hosts (host, state, robots_status, robots_body, robots_error, robots_fetched_at, robots_expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      h.host,
      JSON.stringify(h.state),
      h.robotsStatus ?? null,
      h.robotsBody ?? null,
      h.robotsError ?? null,
      h.robotsFetchedAt ?? null,
      h.robotsExpiresAt ?? null,
    );
  }

  async putHostState(state: HostRecord['state']): Promise<void> {
    this.sql('INSERT INTO hosts (host, state) VALUES (?, ?) ON CONFLICT (host) DO UPDATE SET state = excluded.state').run(state.host, JSON.stringify(state));
  }

  async summary(runId: number): Promise<RunSummary> {
    return summarize(this.db, runId);
  }

  async activity(runId: number): Promise<RunActivity> {
    return activity(this.db, runId);
  }

  async close(): Promise<void> {
    if (!this.db.open) return;
    if (!this.db.readonly && this.pendingBodies.size) this.db.transaction(() => this.flushBodies())();
    this.db.close();
  }
}
