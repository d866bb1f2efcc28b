import type { Db, Statement } from './sqlite-types.js';
import { metaFieldsOf } from '../../extract/meta-fields.js';
import type { FetchKind } from '../../fetch/content-type.js';
import {
  ROBOTS_REFUSAL,
  targetsOf,
  type ChangeKind,
  type ChunkRecord,
  type RunRecord,
  type ExtractRecord,
  type FetchRecord,
  type EdgeRecord,
  type FrontierRow,
  type PageRecord,
  type RunStatus,
  type RunSummary,
  type UrlState,
  type UrlReason,
  type RunActivity,
  FETCH_LATENCY_BOUNDS_MS,
  activityBucketMs,
} from '../../ports/index.js';

const opt = <T>(v: unknown): T | undefined => (v === null || v === undefined ? undefined : (v as T));

/** Edges of the current snapshot of every stored page (`e` the edge, `src` its source page). */
export const CURRENT_EDGES = 'edges e JOIN pages src ON src.url_id = e.from_id AND src.content_hash = e.snapshot';

export function frontierParams(r: FrontierRow): Record<string, unknown> {
  const { rawUrl: _raw, ...rest } = r;
  return { ...rest, reason: r.reason ?? null, fresh: r.fresh ? 1 : 0, discoveredFrom: rest.discoveredFrom ?? null };
}

export function rowToFrontier(r: Record<string, unknown>): FrontierRow {
  return {
    runId: r.run_id as number,
    urlId: r.url_id as string,
    url: r.url as string,
    host: r.host as string,
    depth: r.depth as number,
    priority: r.priority as number,
    kind: r.kind as FetchKind,
    state: r.state as UrlState,
    reason: opt<UrlReason>(r.reason),
    inlinks: r.inlinks as number,
    fresh: r.fresh === 1,
    redirects: r.redirects as number,
    attempts: r.attempts as number,
    notBefore: r.not_before as number,
    discoveredFrom: opt<string>(r.discovered_from),
  };
}

export function pageParams(p: PageRecord): Record<string, unknown> {
  return {
    ...p,
    charset: p.charset ?? null,
    contentHash: p.contentHash ?? null,
    truncated: p.truncated ? 1 : 0,
    etag: p.etag ?? null,
    lastModified: p.lastModified ?? null,
    title: p.title ?? null,
    indexable: p.indexable ? 1 : 0,
    nofollow: p.nofollow ? 1 : 0,
    duplicateOf: p.duplicateOf ?? null,
    canonicalUrl: p.canonicalUrl ?? null,
    fetcher: p.fetcher ?? 'http',
    render: p.render ? JSON.stringify(p.render) : null,
  };
}

export function rowToPage(r: Record<string, unknown>): PageRecord {
  return {
    urlId: r.url_id as string,
    url: r.url as string,
    host: r.host as string,
    runId: r.run_id as number,
    status: r.status as number,
    mime: r.mime as string,
    charset: opt<string>(r.charset),
    contentHash: opt<string>(r.content_hash),
    bytes: r.bytes as number,
    truncated: r.truncated === 1,
    etag: opt<string>(r.etag),
    lastModified: opt<string>(r.last_modified),
    fetchedAt: r.fetched_at as number,
    title: opt<string>(r.title),
    indexable: r.indexable === 1,
    nofollow: r.nofollow === 1,
    duplicateOf: opt<string>(r.duplicate_of),
    canonicalUrl: opt<string>(r.canonical_url),
    ...(r.fetcher === 'browser' ? { fetcher: 'browser' as const } : {}),
    ...(typeof r.render === 'string' ? { render: JSON.parse(r.render) as PageRecord['render'] } : {}),
  };
}

function countBy(db: Db, sql: string, runId: number): Record<string, number> {
  const out: Record<string, number> = {};
  for (const row of db.prepare(sql).all(runId) as Array<{ k: string | number | null; n: number }>) out[String(row.k ?? 'none')] = row.n;
  return out;
}

/** Aggregates a run from its frontier and fetch records. */
export function summarize(db: Db, runId: number): RunSummary {
  const run = db.prepare('SELECT * FROM runs WHERE id = ?').get(runId) as Record<string, unknown>;
  const fetchTotals = db
    .prepare(
      "SELECT count(*) AS n, coalesce(sum(bytes), 0) AS b, coalesce(sum(not_modified), 0) AS u FROM fetches WHERE run_id = ? AND coalesce(error, '') != ?",
    )
    .get(runId, ROBOTS_REFUSAL) as { n: number; b: number; u: number };
  const stored = db.prepare('SELECT count(*) AS n, coalesce(sum(duplicate_of IS NOT NULL), 0) AS d FROM pages WHERE run_id = ?').get(runId) as {
    n: number;
    d: number;
  };
  const parked = (db.prepare('SELECT host, state FROM hosts').all() as Array<{ host: string; state: string }>)
    .map((h) => ({ host: h.host, reason: (JSON.parse(h.state) as { parkedReason?: string }).parkedReason }))
    .filter((h): h is { host: string; reason: string } => typeof h.reason === 'string');
  return {
    runId,
    status: run.status as RunStatus,
    startedAt: run.started_at as number,
    finishedAt: opt<number>(run.finished_at),
    seeds: JSON.parse(run.seeds as string) as string[],
    ...targetsOf(JSON.parse(run.config as string) as Record<string, unknown>),
    urlsByState: countBy(db, 'SELECT state AS k, count(*) AS n FROM frontier WHERE run_id = ? GROUP BY state', runId),
    skipsByReason: countBy(
      db,
      "SELECT reason AS k, count(*) AS n FROM frontier WHERE run_id = ? AND state IN ('skipped', 'blocked', 'failed', 'duplicate') GROUP BY reason",
      runId,
    ),
    fetchesByStatus: countBy(
      db,
      `SELECT coalesce(CAST(status AS TEXT), 'error') AS k, count(*) AS n FROM fetches WHERE run_id = ? AND coalesce(error, '') != '${ROBOTS_REFUSAL}' GROUP BY k`,
      runId,
    ),
    requests: fetchTotals.n,
    pagesStored: stored.n,
    unchanged: fetchTotals.u,
    duplicates: stored.d,
    bytes: fetchTotals.b,
    hostsParked: parked,
    ...changeCounts(db, runId),
  };
}

/** A run's changes by kind (absent when it has none). */
export function changeCounts(db: Db, runId: number): Pick<RunSummary, 'changes'> {
  const rows = db.prepare('SELECT kind, count(*) AS n FROM changes WHERE run_id = ? GROUP BY kind').all(runId) as Array<{ kind: ChangeKind; n: number }>;
  return rows.length ? { changes: Object.fromEntries(rows.map((r) => [r.kind, r.n])) } : {};
}

/** A run's fetches per time bucket and per latency bucket, grouped in SQL. */
export function activity(db: Db, runId: number): RunActivity {
  const counted = `FROM fetches WHERE run_id = ? AND coalesce(error, '') != '${ROBOTS_REFUSAL}'`;
  const span = db.prepare(`SELECT min(fetched_at) AS lo, max(fetched_at) AS hi ${counted}`).get(runId) as { lo: number | null; hi: number | null };
  const bucketMs = activityBucketMs((span.hi ?? 0) - (span.lo ?? 0));
  const points = db
    .prepare(
      `SELECT fetched_at - fetched_at % ? AS at, count(*) AS requests, coalesce(sum(status BETWEEN 200 AND 299), 0) AS ok, coalesce(sum(not_modified), 0) AS unchanged ${counted} GROUP BY 1 ORDER BY 1`,
    )
    .all(bucketMs, runId) as Array<{ at: number; requests: number; ok: number; unchanged: number }>;
  const which = FETCH_LATENCY_BOUNDS_MS.map((bound, i) => `WHEN duration_ms <= ${bound} THEN ${i}`).join(' ');
  const counts: number[] = new Array<number>(FETCH_LATENCY_BOUNDS_MS.length + 1).fill(0);
  let sumMs = 0;
  for (const r of db
    .prepare(`SELECT CASE ${which} ELSE ${FETCH_LATENCY_BOUNDS_MS.length} END AS b, count(*) AS n, sum(duration_ms) AS ms ${counted} GROUP BY 1`)
    .all(runId) as Array<{
    b: number;
    n: number;
    ms: number;
  }>) {
    counts[r.b] = r.n;
    sumMs += r.ms;
  }
  return { runId, bucketMs, points, latency: { counts, sumMs } };
}

export function rowToEdge(r: Record<string, unknown>): EdgeRecord {
  return {
    fromId: r.from_id as string,
    snapshot: r.snapshot as string,
    toId: r.to_id as string,
    toUrl: r.to_url as string,
    anchor: r.anchor as string,
    context: r.context as string,
    section: r.section as EdgeRecord['section'],
    rel: r.rel as string,
    internal: r.internal === 1,
    nofollow: r.nofollow === 1,
    toPageId: opt<string>(r.to_page_id),
  };
}

export function rowToFetch(r: Record<string, unknown>): FetchRecord {
  return {
    runId: r.run_id as number,
    urlId: r.url_id as string,
    url: r.url as string,
    rawUrl: opt<string>(r.raw_url),
    kind: r.kind as FetchRecord['kind'],
    fetcher: r.fetcher as FetchRecord['fetcher'],
    status: opt<number>(r.status),
    fetchedAt: r.fetched_at as number,
    durationMs: r.duration_ms as number,
    contentHash: opt<string>(r.content_hash),
    bytes: r.bytes as number,
    truncated: r.truncated === 1,
    notModified: r.not_modified === 1,
    error: opt<string>(r.error),
    headers: r.headers ? (JSON.parse(r.headers as string) as Record<string, string>) : undefined,
    warc: r.warc_file ? { file: r.warc_file as string, offset: r.warc_offset as number, length: r.warc_length as number } : undefined,
  };
}

export function rowToExtract(r: Record<string, unknown>): ExtractRecord {
  const s = (k: string) => opt<string>(r[k]);
  const metadata = JSON.parse(r.metadata as string) as Record<string, unknown>;
  return {
    urlId: r.url_id as string,
    runId: r.run_id as number,
    snapshot: r.snapshot as string,
    // Metadata fields without a column of their own come from the stored metadata.
    ...metaFieldsOf(metadata),
    title: s('title'),
    description: s('description'),
    author: s('author'),
    published: s('published'),
    modified: s('modified'),
    language: s('language'),
    canonicalUrl: s('canonical_url'),
    siteName: s('site_name'),
    contentType: s('content_type'),
    wordCount: r.word_count as number,
    readingMinutes: r.reading_minutes as number,
    method: r.method as string,
    markdown: r.markdown as string,
    textHash: r.text_hash as string,
    simhash: r.simhash as string,
    nearDuplicateOf: s('near_duplicate_of'),
    nearDuplicateDistance: opt<number>(r.near_duplicate_distance),
    textDuplicateOf: s('text_duplicate_of'),
    pdfPages: opt<number>(r.pdf_pages),
    metadata,
    ...(r.fields ? { fields: JSON.parse(r.fields as string) as ExtractRecord['fields'] } : {}),
  };
}

export function rowToRun(row: Record<string, unknown>): RunRecord {
  return {
    id: row.id as number,
    startedAt: row.started_at as number,
    finishedAt: opt<number>(row.finished_at),
    status: row.status as RunStatus,
    seeds: JSON.parse(row.seeds as string) as string[],
    config: JSON.parse(row.config as string) as Record<string, unknown>,
    ...(row.scope ? { scope: JSON.parse(row.scope as string) as string[] } : {}),
  };
}

export function rowToChunk(r: Record<string, unknown>): ChunkRecord {
  return {
    urlId: r.url_id as string,
    seq: r.seq as number,
    id: r.id as string,
    position: r.position as number,
    tokens: r.tokens as number,
    text: r.text as string,
    prevId: opt<string>(r.prev_id),
    nextId: opt<string>(r.next_id),
  };
}

/** Prepared statements by SQL text, prepared once per connection. */
export class Statements {
  private readonly cache = new Map<string, Statement>();
  constructor(readonly db: Db) {}
  get(sql: string): Statement {
    let s = this.cache.get(sql);
    if (!s) this.cache.set(sql, (s = this.db.prepare(sql)));
    return s;
  }
}
