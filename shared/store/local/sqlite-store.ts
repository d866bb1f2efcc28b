import { join } from 'node:path';
import type { Db, Statement } from './sqlite-types.js';
import type {
  ArchivedAnswer,
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
  UrlReason,
} from '../../ports/index.js';
import { CURRENT_EDGES, rowToChunk, rowToEdge, rowToExtract, rowToFetch, rowToFrontier, rowToPage, rowToRun, summarize, activity } from './sqlite-rows.js';
import { exportRecords, waczSources, type ExportRecord } from './sqlite-export.js';
import { SqliteWriteOps, type BodyClaim } from './sqlite-writes.js';
import { InlineWriter, WriterThread, type StoreWriter } from './sqlite-writer-thread.js';
import { InFlightJournal } from './in-flight-journal.js';
import { hammingDistance, simhashBands } from '../../dedupe/simhash.js';

import { DB_FILE, openDatabase, prepareDataDir, type OpenOptions } from './sqlite-open.js';

export { DB_FILE, damagedError, prepareDataDir, quickCheck, type OpenOptions } from './sqlite-open.js';

/** The embedded crawl store: one SQLite file (WAL) in the data directory. */
export class SqliteCrawlStore implements CrawlStore {
  readonly db: Db;
  /** Where writes run: on this connection, or on a writer thread's (`writerThread`). */
  private readonly writer: StoreWriter;

  private readonly statements = new Map<string, Statement>();
  /** Body claims not yet written (see `claimBody`); a claim leaves once its commit is stored. */
  private readonly pendingBodies = new Map<string, BodyClaim>();

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
    // A crawl's lookups touch pages all over the file: mapped, they would count in its memory and grow with it.
    if (options.writerThread) this.db.pragma('mmap_size = 0');
    const inline = new InlineWriter(new SqliteWriteOps(this.db), options.stages);
    this.writer = options.writerThread && !options.readonly ? new WriterThread(join(dataDir, DB_FILE), inline, options.stages) : inline;
    this.journal = new InFlightJournal(dataDir);
  }

  /** Whether writes run on a writer thread now (false: on this connection). */
  get writesOnThread(): boolean {
    return this.writer instanceof WriterThread && this.writer.live;
  }

  /** Resolves once the writer thread (if any) takes the writes. */
  writerReady(): Promise<void> {
    return this.writer.ready();
  }

  /** In-flight marks as they are made, before the database has them (see in-flight-journal.ts). */
  private readonly journal: InFlightJournal;

  async createRun(seeds: string[], config: Record<string, unknown>, now: number): Promise<RunRecord> {
    const id = await this.writer.call('createRun', seeds, config, now);
    this.journal.reset();
    return { id, startedAt: now, status: 'running', seeds, config };
  }

  async widenRunScope(runId: number, origins: string[]): Promise<void> {
    await this.writer.call('widenRunScope', runId, origins);
  }

  async latestRun(): Promise<RunRecord | undefined> {
    const row = this.sql('SELECT * FROM runs ORDER BY id DESC LIMIT 1').get() as Record<string, unknown> | undefined;
    return row ? rowToRun(row) : undefined;
  }

  async runs(): Promise<RunRecord[]> {
    return (this.sql('SELECT * FROM runs ORDER BY id').all() as Array<Record<string, unknown>>).map(rowToRun);
  }

  async recentRuns(limit: number, before?: number): Promise<RunRecord[]> {
    return (
      this.sql('SELECT * FROM runs WHERE id < ? ORDER BY id DESC LIMIT ?').all(before ?? Number.MAX_SAFE_INTEGER, limit) as Array<Record<string, unknown>>
    ).map(rowToRun);
  }

  async getRun(runId: number): Promise<RunRecord | undefined> {
    const row = this.sql('SELECT * FROM runs WHERE id = ?').get(runId) as Record<string, unknown> | undefined;
    return row ? rowToRun(row) : undefined;
  }

  async runningRuns(): Promise<RunRecord[]> {
    return (this.sql("SELECT * FROM runs WHERE status = 'running' ORDER BY id").all() as Array<Record<string, unknown>>).map(rowToRun);
  }

  async latestRunOf(crawl: string): Promise<RunRecord | undefined> {
    const row = this.sql("SELECT * FROM runs WHERE json_extract(config, '$.crawl') = ? ORDER BY id DESC LIMIT 1").get(crawl) as
      Record<string, unknown> | undefined;
    return row ? rowToRun(row) : undefined;
  }

  async chunks(urlId: string): Promise<ChunkRecord[]> {
    return (this.sql('SELECT * FROM chunks WHERE url_id = ? ORDER BY seq').all(urlId) as Array<Record<string, unknown>>).map(rowToChunk);
  }

  /** Pages (with their extraction), current edges and interactions, as records for other tools. */
  /** The WARC files and pages a WACZ of the directory (or of one run) holds. */
  waczSources(runId?: number): ReturnType<typeof waczSources> {
    return waczSources(this.db, runId);
  }

  exportRecords(): AsyncIterable<ExportRecord> {
    return exportRecords(this.db);
  }

  async setRunStatus(runId: number, status: RunStatus, now: number): Promise<void> {
    await this.writer.call('setRunStatus', runId, status, status === 'running' ? null : now);
  }

  async addUrls(rows: FrontierRow[]): Promise<string[]> {
    return this.writer.call('addUrls', rows);
  }

  /** Durable (the journal's line) when it returns; the database has it with the next group of writes. */
  async markInFlight(runId: number, urlId: string): Promise<void> {
    const mark = this.journal.mark(runId, urlId);
    await this.writer.call('markInFlight', runId, urlId);
    this.journal.committed(mark);
  }

  async setUrlStates(runId: number, urlIds: string[], state: UrlState, reason: UrlReason, notBefore?: number): Promise<void> {
    await this.writer.call('setUrlStates', runId, urlIds, state, reason, notBefore ?? null);
  }

  /** Marks the kill kept from the database come back from the journal first (each URL's attempts: the more of the two). */
  async lapsedUrls(_runId: number, _now: number): Promise<FrontierRow[]> {
    // One process owns the directory: a crash is recovered by requeueInFlight on --resume, never by leases.
    return [];
  }

  async requeueInFlight(runId: number, maxAttempts: number): Promise<{ requeued: number; exhausted: number }> {
    await this.writer.call('restoreInFlight', runId, [...this.journal.attempts(runId)]);
    return this.writer.call('requeueInFlight', runId, maxAttempts, [...this.journal.answers(runId).keys()]);
  }

  /** Durable (the journal's line) when it returns; open until the URL's commit. */
  answered(runId: number, urlId: string, answer: ArchivedAnswer): void {
    this.journal.answered(runId, urlId, answer);
  }

  uncommittedAnswers(runId: number): Map<string, ArchivedAnswer> {
    return this.journal.answers(runId);
  }

  async settleQueued(runId: number, reason: UrlReason): Promise<number> {
    return this.writer.call('settleQueued', runId, reason);
  }

  async queuedUrls(runId: number): Promise<FrontierRow[]> {
    return (this.sql("SELECT * FROM frontier WHERE run_id = ? AND state = 'queued'").all(runId) as Record<string, unknown>[]).map(rowToFrontier);
  }

  async queuedUrlsOfHost(runId: number, host: string, limit: number): Promise<FrontierRow[]> {
    const rows = this.sql("SELECT * FROM frontier WHERE run_id = ? AND state = 'queued' AND host = ? ORDER BY priority DESC LIMIT ?").all(runId, host, limit);
    return (rows as Record<string, unknown>[]).map(rowToFrontier);
  }

  async deferredUrls(runId: number): Promise<FrontierRow[]> {
    return (this.sql("SELECT * FROM frontier WHERE run_id = ? AND state = 'deferred'").all(runId) as Record<string, unknown>[]).map(rowToFrontier);
  }

  async seenUrls(runId: number): Promise<SeenUrl[]> {
    const rows = this.sql('SELECT url_id, url, kind, state, reason FROM frontier WHERE run_id = ?').all(runId) as Array<Record<string, string | null>>;
    return rows.map((r) => ({ urlId: r.url_id!, url: r.url!, kind: r.kind as SeenUrl['kind'], state: r.state as UrlState, reason: r.reason ?? undefined }));
  }

  async runPages(runId: number, limit: number, cursor?: string): Promise<{ urlIds: string[]; cursor?: string }> {
    // In the order the run found them (the frontier's rowid); the cursor is the last rowid given.
    const rows = this.sql("SELECT rowid, url_id FROM frontier WHERE run_id = ? AND state = 'done' AND kind = 'page' AND rowid > ? ORDER BY rowid LIMIT ?").all(
      runId,
      Number(cursor ?? 0),
      limit + 1,
    ) as Array<{ rowid: number; url_id: string }>;
    const page = rows.slice(0, limit);
    return { urlIds: page.map((r) => r.url_id), ...(rows.length > limit ? { cursor: String(page.at(-1)!.rowid) } : {}) };
  }

  async commitFetch(commit: FetchCommit): Promise<string[]> {
    return (await this.commitFetches([commit]))[0]!;
  }

  /** The commits in one transaction, with the body claims made since the last (they leave memory once stored). */
  async commitFetches(commits: FetchCommit[]): Promise<string[][]> {
    if (commits.length === 0) return [];
    const claims = [...this.pendingBodies.values()];
    const inserted = await this.writer.call('commitFetches', commits, claims);
    for (const c of claims) if (this.pendingBodies.get(c.hash) === c) this.pendingBodies.delete(c.hash);
    for (const c of commits) this.journal.settled(c.urlId);
    return inserted;
  }

  async recordFetch(record: FetchRecord): Promise<void> {
    await this.writer.call('recordFetch', record);
  }

  async fetchHistory(urlId: string): Promise<FetchRecord[]> {
    return (this.sql('SELECT * FROM fetches WHERE url_id = ? ORDER BY fetched_at, id').all(urlId) as Array<Record<string, unknown>>).map(rowToFetch);
  }

  async storedPages(): Promise<PageRecord[]> {
    return (this.sql('SELECT * FROM pages WHERE content_hash IS NOT NULL ORDER BY fetched_at').all() as Array<Record<string, unknown>>).map(rowToPage);
  }

  /**
   * Stored pages of a host (`host[:port]`) and of its subdomains, up to `limit`, their URLs and
   * titles only: read row by row, never the whole table as records.
   */
  async sitePages(host: string, limit: number): Promise<Array<{ url: string; title?: string }>> {
    const rows = this.sql("SELECT url, title FROM pages WHERE content_hash IS NOT NULL AND (host = ? OR host LIKE '%.' || ? ESCAPE '\\') LIMIT ?").all(
      host,
      host.replace(/[\\%_]/g, '\\$&'),
      limit,
    ) as Array<{ url: string; title: string | null }>;
    return rows.map((r) => ({ url: r.url, ...(r.title ? { title: r.title } : {}) }));
  }

  async saveExtraction(edges: EdgeRecord[], extract: ExtractRecord | undefined, chunks: ChunkRecord[]): Promise<void> {
    await this.writer.call('saveExtraction', edges, extract, chunks);
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
      if (!row) this.pendingBodies.set(hash, { hash, urlId, at });
      return urlId;
    }
    // An owner whose page has moved on to other bytes no longer holds these.
    const page = this.sql('SELECT content_hash FROM pages WHERE url_id = ?').get(row.url_id) as { content_hash: string | null } | undefined;
    if (!page || page.content_hash === hash) return row.url_id;
    // The new owner, in memory at once (the next claim of these bytes must see it) and written with the next commit.
    this.pendingBodies.set(hash, { hash, urlId, at });
    await this.writer.call('reclaimBody', hash, urlId, at);
    return urlId;
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

  hasBody(hash: string): boolean {
    return this.sql('SELECT 1 FROM body_bytes WHERE hash = ?').get(hash) !== undefined;
  }

  getBody(hash: string): Buffer | undefined {
    // node:sqlite reads a blob as a plain Uint8Array (better-sqlite3 as a Buffer): a Buffer over the same bytes.
    const row = this.sql('SELECT bytes FROM body_bytes WHERE hash = ?').get(hash) as { bytes: Uint8Array } | undefined;
    return row ? Buffer.from(row.bytes.buffer, row.bytes.byteOffset, row.bytes.byteLength) : undefined;
  }

  async putBody(hash: string, bytes: Uint8Array): Promise<void> {
    await this.writer.call('putBody', hash, bytes);
  }

  /** Writes a file in order with the store's writes (on its writer thread when it has one). */
  async writeFile(file: string, bytes: Uint8Array): Promise<void> {
    await this.writer.call('putFile', file, bytes);
  }

  async putHost(h: HostRecord): Promise<void> {
    await this.writer.call('putHost', h);
  }

  async putHostState(state: HostRecord['state']): Promise<void> {
    await this.writer.call('putHostState', state);
  }

  async summary(runId: number): Promise<RunSummary> {
    return summarize(this.db, runId);
  }

  async activity(runId: number): Promise<RunActivity> {
    return activity(this.db, runId);
  }

  async close(): Promise<void> {
    if (!this.db.open) return;
    try {
      if (!this.db.readonly && this.pendingBodies.size) await this.writer.call('commitFetches', [], [...this.pendingBodies.values()]);
    } finally {
      // The writer thread's connection closes first: this one, the last, checkpoints and removes the WAL.
      await this.writer.close();
      this.journal.close();
      this.db.close();
    }
  }
}
