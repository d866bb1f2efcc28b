import type { Db, Statement } from './sqlite-types.js';
import { simhashBands } from '../../dedupe/simhash.js';
import { urlId } from '../../url/canonical.js';
import type { AliasRecord, ChunkRecord, EdgeRecord, ExtractRecord, FetchCommit, FetchRecord, FrontierRow, HostRecord, PageRecord } from '../../ports/index.js';
import { SOFT_SKIPS } from '../../ports/index.js';
import { frontierParams, pageParams } from './sqlite-rows.js';
import { writeFileAtomic } from './blob-store.js';
import { NO_CLOCK, type StageClock } from '../../log/stage-clock.js';
import { SqliteChangeCapture } from './sqlite-changes.js';

/** The stage the blob files' time counts in (`--stage-times`); every other write counts in `SQLite`. */
export const FILE_STAGE = 'blob files';

export const WRITE_SQL = {
  // A URL skipped for a reason that depends on the path to it (too deep, nofollow) is
  // queued after all when a better path turns up; any other seen URL is never re-added.
  insertUrl: `INSERT INTO frontier (run_id, url_id, url, host, depth, priority, kind, state, reason, inlinks, fresh, redirects, attempts, not_before, discovered_from)
    VALUES (@runId, @urlId, @url, @host, @depth, @priority, @kind, @state, @reason, @inlinks, @fresh, @redirects, @attempts, @notBefore, @discoveredFrom)
    ON CONFLICT (run_id, url_id) DO UPDATE SET state = excluded.state, reason = NULL, depth = excluded.depth, priority = excluded.priority,
      kind = excluded.kind, discovered_from = excluded.discovered_from
    WHERE frontier.state = 'skipped' AND frontier.reason IN (${SOFT_SKIPS.map((r) => `'${r}'`).join(', ')}) AND excluded.state = 'queued'`,
  setState: 'UPDATE frontier SET state = ?, reason = ?, attempts = ?, not_before = ? WHERE run_id = ? AND url_id = ?',
  reprioritize: 'UPDATE frontier SET priority = ?, inlinks = ? WHERE run_id = ? AND url_id = ?',
  insertFetch: `INSERT INTO fetches (run_id, url_id, url, raw_url, kind, fetcher, warc_file, warc_offset, warc_length, status, fetched_at, duration_ms, content_hash, bytes, truncated, not_modified, error, headers)
    VALUES (@runId, @urlId, @url, @rawUrl, @kind, @fetcher, @warcFile, @warcOffset, @warcLength, @status, @fetchedAt, @durationMs, @contentHash, @bytes, @truncated, @notModified, @error, @headers)`,
  upsertPage: `INSERT OR REPLACE INTO pages (url_id, url, host, run_id, status, mime, charset, content_hash, bytes, truncated, etag, last_modified, fetched_at, title, indexable, nofollow, duplicate_of, canonical_url, fetcher, render)
    VALUES (@urlId, @url, @host, @runId, @status, @mime, @charset, @contentHash, @bytes, @truncated, @etag, @lastModified, @fetchedAt, @title, @indexable, @nofollow, @duplicateOf, @canonicalUrl, @fetcher, @render)`,
  // New edges point at an already-stored target, directly or through a redirect/canonical alias.
  insertEdge: `INSERT OR REPLACE INTO edges (from_id, snapshot, to_id, to_url, anchor, context, section, rel, internal, nofollow, to_page_id)
    VALUES (@fromId, @snapshot, @toId, @toUrl, @anchor, @context, @section, @rel, @internal, @nofollow,
      coalesce((SELECT url_id FROM pages WHERE url_id = @toId), (SELECT p.url_id FROM aliases a JOIN pages p ON p.url_id = a.target_id WHERE a.url_id = @toId LIMIT 1)))`,
  // A newly stored page adopts the dangling edges that point at it or at one of its aliases.
  // Two statements, each searching edges_to (an OR of both would scan every edge). The unary
  // `+` keeps SQLite off the edges_to_page index, whose NULL range holds every dangling edge.
  adoptEdges: `UPDATE edges SET to_page_id = @urlId WHERE to_id = @urlId AND +to_page_id IS NULL`,
  adoptEdgesViaAlias: `UPDATE edges SET to_page_id = @urlId WHERE to_id IN (SELECT url_id FROM aliases WHERE target_id = @urlId) AND +to_page_id IS NULL`,
  adoptAliasEdges: `UPDATE edges SET to_page_id = (SELECT url_id FROM pages WHERE url_id = @targetId) WHERE to_id = @urlId AND +to_page_id IS NULL`,
  upsertAlias: 'INSERT OR REPLACE INTO aliases (url_id, url, target_url, target_id, reason) VALUES (@urlId, @url, @targetUrl, @targetId, @reason)',
  upsertExtract: `INSERT OR REPLACE INTO extracts (url_id, run_id, snapshot, title, description, author, published, modified, language, canonical_url, site_name, content_type,
      word_count, reading_minutes, method, markdown, text_hash, simhash, near_duplicate_of, near_duplicate_distance, text_duplicate_of, pdf_pages, metadata, fields)
    VALUES (@urlId, @runId, @snapshot, @title, @description, @author, @published, @modified, @language, @canonicalUrl, @siteName, @contentType,
      @wordCount, @readingMinutes, @method, @markdown, @textHash, @simhash, @nearDuplicateOf, @nearDuplicateDistance, @textDuplicateOf, @pdfPages, @metadata, @fields)`,
  deleteChunks: 'DELETE FROM chunks WHERE url_id = ?',
  insertChunk:
    'INSERT INTO chunks (url_id, seq, id, position, tokens, text, prev_id, next_id) VALUES (@urlId, @seq, @id, @position, @tokens, @text, @prevId, @nextId)',
  deleteBands: 'DELETE FROM simhash_bands WHERE url_id = ?',
  insertBand: 'INSERT OR IGNORE INTO simhash_bands (band, value, url_id) VALUES (?, ?, ?)',
} as const;

const orNull = <T extends object>(o: T): Record<string, unknown> =>
  Object.fromEntries(Object.entries(o).map(([k, v]) => [k, v === undefined ? null : typeof v === 'boolean' ? (v ? 1 : 0) : v]));

/** The writes of one fetch commit, as prepared statements run inside one transaction. */
export class SqliteWrites {
  private readonly s: { [K in keyof typeof WRITE_SQL]: Statement };
  private readonly changes: SqliteChangeCapture;

  constructor(db: Db) {
    this.s = Object.fromEntries(Object.entries(WRITE_SQL).map(([k, sql]) => [k, db.prepare(sql)])) as { [K in keyof typeof WRITE_SQL]: Statement };
    this.changes = new SqliteChangeCapture(db);
  }

  insertUrls(rows: FrontierRow[]): string[] {
    const inserted: string[] = [];
    for (const row of rows) if (this.s.insertUrl.run(frontierParams(row)).changes > 0) inserted.push(row.urlId);
    return inserted;
  }

  insertFetch(f: FetchRecord): void {
    const { warc, headers, ...rest } = f;
    this.s.insertFetch.run(
      orNull({
        rawUrl: undefined,
        status: undefined,
        contentHash: undefined,
        error: undefined,
        ...rest,
        warcFile: warc?.file,
        warcOffset: warc?.offset,
        warcLength: warc?.length,
        headers: headers ? JSON.stringify(headers) : undefined,
      }),
    );
  }

  private page(p: PageRecord): void {
    this.s.upsertPage.run(pageParams(p));
    this.s.adoptEdges.run({ urlId: p.urlId });
    this.s.adoptEdgesViaAlias.run({ urlId: p.urlId });
  }

  private alias(a: AliasRecord): void {
    const targetId = urlId(a.targetUrl);
    this.s.upsertAlias.run({ ...a, targetId });
    this.s.adoptAliasEdges.run({ urlId: a.urlId, targetId });
  }

  private edge(e: EdgeRecord): void {
    const { toPageId: _ignored, ...rest } = e;
    this.s.insertEdge.run(orNull(rest));
  }

  private static readonly EXTRACT_OPTIONAL: Partial<ExtractRecord> = {
    title: undefined,
    description: undefined,
    author: undefined,
    published: undefined,
    modified: undefined,
    language: undefined,
    canonicalUrl: undefined,
    siteName: undefined,
    contentType: undefined,
    nearDuplicateOf: undefined,
    nearDuplicateDistance: undefined,
    textDuplicateOf: undefined,
    pdfPages: undefined,
    fields: undefined,
  };

  private extract(x: ExtractRecord, chunks: ChunkRecord[]): void {
    this.s.upsertExtract.run(
      orNull({ ...SqliteWrites.EXTRACT_OPTIONAL, ...x, metadata: JSON.stringify(x.metadata), fields: x.fields ? JSON.stringify(x.fields) : undefined }),
    );
    this.s.deleteChunks.run(x.urlId);
    for (const c of chunks) this.s.insertChunk.run(orNull({ prevId: undefined, nextId: undefined, ...c }));
    this.s.deleteBands.run(x.urlId);
    simhashBands(x.simhash).forEach((value, band) => this.s.insertBand.run(band, value, x.urlId));
  }

  /** Edges of a snapshot plus the extraction, without touching the frontier (re-extraction). */
  applyExtraction(edges: EdgeRecord[], extract: ExtractRecord | undefined, chunks: ChunkRecord[]): void {
    for (const e of edges) this.edge(e);
    if (extract) this.extract(extract, chunks);
  }

  apply(c: FetchCommit): string[] {
    // What the page was, against what this fetch makes it: read before the writes replace it.
    this.changes.capture(c);
    this.s.setState.run(c.state, c.reason ?? null, c.attempts, c.notBefore ?? 0, c.runId, c.urlId);
    if (c.fetch) this.insertFetch(c.fetch);
    if (c.rendered) this.insertFetch(c.rendered);
    for (const a of c.aliases ?? []) this.alias(a);
    if (c.page) this.page(c.page);
    for (const e of c.edges ?? []) this.edge(e);
    if (c.extract) this.extract(c.extract, c.chunks ?? []);
    for (const r of c.reprioritized ?? []) this.s.reprioritize.run(r.priority, r.inlinks, c.runId, r.urlId);
    return this.insertUrls(c.discovered ?? []);
  }
}

/** A body claim kept in memory until it is written with the next commit (see `SqliteCrawlStore.claimBody`). */
export interface BodyClaim {
  hash: string;
  urlId: string;
  at: number;
}

/**
 * Every write of the crawl store, by name, on one connection: run inline on the reading
 * connection, or on a writer thread (sqlite-writer-thread.ts) whose connection alone writes.
 * Arguments and results are plain data, so they cross threads as they are.
 */
export class SqliteWriteOps {
  private readonly writes: SqliteWrites;
  private readonly statements = new Map<string, Statement>();

  constructor(private readonly db: Db) {
    this.writes = new SqliteWrites(db);
  }

  private sql(text: string): Statement {
    let stmt = this.statements.get(text);
    if (!stmt) this.statements.set(text, (stmt = this.db.prepare(text)));
    return stmt;
  }

  /** The operations, callable by name with their arguments (what the writer thread receives). */
  readonly ops = {
    createRun: (seeds: string[], config: Record<string, unknown>, now: number): number =>
      Number(
        this.sql("INSERT INTO runs (started_at, status, seeds, config) VALUES (?, 'running', ?, ?)").run(now, JSON.stringify(seeds), JSON.stringify(config))
          .lastInsertRowid,
      ),
    widenRunScope: (runId: number, origins: string[]): void => {
      const row = this.sql('SELECT scope FROM runs WHERE id = ?').get(runId) as { scope: string | null } | undefined;
      if (!row) return;
      const scope = new Set<string>(row.scope ? (JSON.parse(row.scope) as string[]) : []);
      const before = scope.size;
      for (const o of origins) scope.add(o);
      if (scope.size !== before) this.sql('UPDATE runs SET scope = ? WHERE id = ?').run(JSON.stringify([...scope].sort()), runId);
    },
    setRunStatus: (runId: number, status: string, finishedAt: number | null): void => {
      this.sql('UPDATE runs SET status = ?, finished_at = ? WHERE id = ?').run(status, finishedAt, runId);
    },
    addUrls: (rows: FrontierRow[]): string[] => this.writes.insertUrls(rows),
    markInFlight: (runId: number, urlId: string): void => {
      this.sql("UPDATE frontier SET state = 'in_flight', attempts = attempts + 1 WHERE run_id = ? AND url_id = ?").run(runId, urlId);
    },
    setUrlStates: (runId: number, urlIds: string[], state: string, reason: string, notBefore: number | null): void => {
      const stmt = this.sql('UPDATE frontier SET state = ?, reason = ?, not_before = coalesce(?, not_before) WHERE run_id = ? AND url_id = ?');
      for (const id of urlIds) stmt.run(state, reason, notBefore, runId, id);
    },
    /** In-flight marks from the journal: a URL not settled is in flight, with at least as many attempts as the journal counts. */
    restoreInFlight: (runId: number, attempts: Array<[string, number]>): void => {
      const stmt = this.sql(
        "UPDATE frontier SET state = 'in_flight', attempts = max(attempts, ?) WHERE run_id = ? AND url_id = ? AND state IN ('queued', 'in_flight')",
      );
      for (const [urlId, n] of attempts) stmt.run(n, runId, urlId);
    },
    /** `answered`: URLs whose answer is archived, queued again whatever their attempts (the resume processes them from the archive). */
    requeueInFlight: (runId: number, maxAttempts: number, answered: string[] = []): { requeued: number; exhausted: number } => {
      const keep = this.sql("UPDATE frontier SET state = 'queued', reason = NULL WHERE run_id = ? AND url_id = ? AND state = 'in_flight'");
      for (const id of answered) keep.run(runId, id);
      const exhausted = this.sql(
        "UPDATE frontier SET state = 'failed', reason = 'attempts-exhausted' WHERE run_id = ? AND state = 'in_flight' AND attempts >= ?",
      ).run(runId, maxAttempts).changes;
      const requeued = this.sql("UPDATE frontier SET state = 'queued', reason = NULL WHERE run_id = ? AND state IN ('in_flight', 'deferred')").run(
        runId,
      ).changes;
      return { requeued, exhausted };
    },
    settleQueued: (runId: number, reason: string): number =>
      this.sql("UPDATE frontier SET state = 'skipped', reason = ? WHERE run_id = ? AND state = 'queued'").run(reason, runId).changes,
    /** Body claims first (a commit's page may be the claim's owner), then the commits in order. */
    commitFetches: (commits: FetchCommit[], claims: BodyClaim[]): string[][] => {
      const insert = this.sql('INSERT OR IGNORE INTO bodies (hash, url_id, claimed_at) VALUES (?, ?, ?)');
      for (const c of claims) insert.run(c.hash, c.urlId, c.at);
      return commits.map((c) => this.writes.apply(c));
    },
    reclaimBody: (hash: string, urlId: string, at: number): void => {
      this.sql('UPDATE bodies SET url_id = ?, claimed_at = ? WHERE hash = ?').run(urlId, at, hash);
    },
    recordFetch: (record: FetchRecord): void => this.writes.insertFetch(record),
    saveExtraction: (edges: EdgeRecord[], extract: ExtractRecord | undefined, chunks: ChunkRecord[]): void =>
      this.writes.applyExtraction(edges, extract, chunks),
    putHost: (h: HostRecord): void => {
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
    },
    /** A small raw body (see LocalBlobStore), stored before the commits that name it. */
    putBody: (hash: string, bytes: Uint8Array): void => {
      this.sql('INSERT OR IGNORE INTO body_bytes (hash, bytes) VALUES (?, ?)').run(hash, bytes);
    },
    /** A blob file (not a database write: it rides the same thread, in order, before the commits that name it). */
    putFile: (file: string, bytes: Uint8Array): void => writeFileAtomic(file, bytes),
    putHostState: (state: HostRecord['state']): void => {
      this.sql('INSERT INTO hosts (host, state) VALUES (?, ?) ON CONFLICT (host) DO UPDATE SET state = excluded.state').run(state.host, JSON.stringify(state));
    },
  };

  /** Runs one operation in its own transaction (errors as they are). */
  run(c: WriteCall): unknown {
    return this.db.transaction(() => this.call(c))();
  }

  /**
   * Runs operations in one transaction, each answered with its result (a failing group is run again
   * one by one, each alone); `clock` gets the time of the blob files and of the rest (SQLite).
   */
  runAll(calls: WriteCall[], clock: StageClock = NO_CLOCK): WriteAnswer[] {
    const started = clock.enabled ? performance.now() : 0;
    const files = clock.ms[FILE_STAGE] ?? 0;
    try {
      return this.db.transaction(() => calls.map((c): WriteAnswer => ({ value: this.call(c, clock) })))();
    } catch {
      return calls.map((c) => {
        try {
          return { value: this.db.transaction(() => this.call(c, clock))() };
        } catch (err) {
          // The code travels with the message: the crawl tells a full disk from a broken store by it.
          const code = (err as { code?: unknown }).code;
          return { error: err instanceof Error ? err.message : String(err), ...(typeof code === 'string' ? { code } : {}) };
        }
      });
    } finally {
      // The group's time, less its blob files, is SQLite's.
      if (clock.enabled) clock.add('SQLite', performance.now() - started - ((clock.ms[FILE_STAGE] ?? 0) - files));
    }
  }

  private call(c: WriteCall, clock: StageClock = NO_CLOCK): unknown {
    const run = () => (this.ops[c.op] as (...args: unknown[]) => unknown)(...c.args);
    return c.op === 'putFile' ? clock.time(FILE_STAGE, run) : run();
  }
}

export type WriteOp = keyof SqliteWriteOps['ops'];
export interface WriteCall {
  op: WriteOp;
  args: unknown[];
}
export type WriteAnswer = { value: unknown } | { error: string; code?: string };
