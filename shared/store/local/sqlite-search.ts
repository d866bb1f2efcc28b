import type { Db } from './sqlite-types.js';
import { termsIn } from '../../enrich/text.js';
import type { EnrichCandidate, EnrichFailure, EnrichmentRecord, EnrichStore, HitDetails, SearchFilters, TextHit } from '../../ports/index.js';
import { ENRICH_LATENCY_BOUNDS_MS, enrichLatencyBucket, hitOf, LINKED_FROM_KEPT, type EnrichLatency } from '../../ports/search-index.js';
import { pageFieldsOf } from '../../ports/page-fields.js';
import { CURRENT_EDGES, Statements } from './sqlite-rows.js';

/** Column weights of BM25: a term in the title counts most, then tags, summary, body. */
export const BM25_WEIGHTS = [5, 3, 2, 1] as const;
/** Anchor texts shown per hit (from links in the body or a sidebar: a menu's "Home" says nothing about a page). */
const INLINK_ANCHORS = 3;
/** FTS5's BM25 k1: a phrase's share of a page's score stays below idf × (k1 + 1). */
const BM25_K1 = 1.2;

/** SQL conditions (and their parameters) for the filters, over a table with host, language and published columns. */
export function filterSql(filters: SearchFilters, alias: string, tags: (alias: string) => string): { sql: string; params: unknown[] } {
  const parts: string[] = [];
  const params: unknown[] = [];
  if (filters.domain) {
    const domain = filters.domain.toLowerCase().replace(/^\.+/, '');
    parts.push(`(${alias}.host = ? OR ${alias}.host LIKE ? OR ${alias}.host LIKE ?)`);
    params.push(domain, `%.${domain}`, `${domain}:%`);
  }
  if (filters.language) {
    parts.push(`(lower(${alias}.language) = ? OR lower(${alias}.language) LIKE ?)`);
    params.push(filters.language.toLowerCase(), `${filters.language.toLowerCase()}-%`);
  }
  if (filters.since) {
    parts.push(`${alias}.published >= ?`);
    params.push(filters.since);
  }
  if (filters.until) {
    parts.push(`${alias}.published < ?`);
    params.push(`${filters.until}\uffff`);
  }
  for (const tag of filters.tags ?? []) {
    parts.push(tags(alias));
    params.push(tag);
  }
  return { sql: parts.length ? ` AND ${parts.join(' AND ')}` : '', params };
}

/** An FTS5 query that ORs the terms, each quoted (so no word is read as an operator). */
export function ftsQuery(terms: string[]): string {
  return terms.map((t) => `"${t.replace(/"/g, '""')}"`).join(' OR ');
}

function rowToEnrichment(r: Record<string, unknown>): EnrichmentRecord {
  return {
    urlId: r.url_id as string,
    url: r.url as string,
    host: r.host as string,
    title: r.title as string,
    textHash: r.text_hash as string,
    summary: r.summary as string,
    tags: JSON.parse(r.tags as string) as string[],
    ...pageFieldsOf(r.page_fields ? (JSON.parse(r.page_fields as string) as object) : undefined),
    ...(r.extracted ? { extracted: JSON.parse(r.extracted as string) as EnrichmentRecord['extracted'] } : {}),
    summaryStamp: JSON.parse(r.summary_stamp as string),
    tagsStamp: JSON.parse(r.tags_stamp as string),
    embedding: r.embedding ? JSON.parse(r.embedding as string) : undefined,
    updatedAt: r.updated_at as number,
    ...(typeof r.listing === 'number' ? { listing: r.listing } : {}),
  };
}

/** Enrichments, the FTS5 index and the dead letters in the crawl's SQLite file. */
export class SqliteEnrichStore implements EnrichStore {
  private readonly sql: Statements;
  constructor(private readonly db: Db) {
    this.sql = new Statements(db);
  }

  private vocab = false;
  /** Document frequencies read so far, and the page count they go with (see termFrequencies). */
  private dfCache = { docs: -1, calls: 0, df: new Map<string, number>() };

  async termFrequencies(stems: string[]): Promise<{ docs: number; df: Record<string, number> }> {
    // FTS5's own vocabulary (Porter stems, as the tagger's): a temp table, so a reader can make it too.
    if (!this.vocab) {
      this.db.exec("CREATE VIRTUAL TABLE IF NOT EXISTS temp.search_vocab USING fts5vocab(main, search_text, 'col')");
      this.vocab = true;
    }
    // A term's frequency costs a read of its whole posting list, and counting the pages one of
    // every page: at 35,000 pages ~250 ms a page, which made a pass quadratic in the pages. Weights
    // need no exact counts, so they are kept until the pages have grown by a tenth (the count is
    // read again every 64 calls).
    const cache = this.dfCache;
    if (cache.docs < 0 || cache.calls++ % 64 === 0) {
      const docs = (this.sql.get('SELECT count(*) AS n FROM enrichments').get() as { n: number }).n;
      if (cache.docs < 0 || docs > cache.docs * 1.1 || docs < cache.docs) {
        cache.docs = docs;
        cache.df.clear();
      }
    }
    const one = this.sql.get("SELECT doc FROM temp.search_vocab WHERE term = ? AND col = 'body'");
    const df: Record<string, number> = {};
    for (const s of new Set(stems)) {
      let n = cache.df.get(s);
      if (n === undefined) cache.df.set(s, (n = (one.get(s) as { doc: number } | undefined)?.doc ?? 0));
      if (n > 0) df[s] = n;
    }
    return { docs: cache.docs, df };
  }

  async enrichCandidates(afterUrlId: string, limit: number): Promise<EnrichCandidate[]> {
    return this.candidates('x.url_id > ? ORDER BY x.url_id LIMIT ?', afterUrlId, limit);
  }

  async enrichCandidate(urlId: string): Promise<EnrichCandidate | undefined> {
    return this.candidates('x.url_id = ?', urlId)[0];
  }

  private candidates(where: string, ...params: unknown[]): EnrichCandidate[] {
    const rows = this.sql
      .get(
        `SELECT x.url_id AS c_url_id, p.url AS c_url, p.host AS c_host, coalesce(x.title, p.title, '') AS c_title, x.markdown, x.text_hash AS c_text_hash,
           x.metadata AS c_metadata, e.*
         FROM extracts x JOIN pages p ON p.url_id = x.url_id LEFT JOIN enrichments e ON e.url_id = x.url_id
         WHERE p.indexable = 1 AND x.text_duplicate_of IS NULL AND x.near_duplicate_of IS NULL AND x.word_count > 0 AND ${where}`,
      )
      .all(...params) as Array<Record<string, unknown>>;
    return rows.map((r) => ({
      urlId: r.c_url_id as string,
      url: r.c_url as string,
      host: r.c_host as string,
      title: r.c_title as string,
      markdown: r.markdown as string,
      textHash: r.c_text_hash as string,
      ...pageFieldsOf(JSON.parse(r.c_metadata as string) as object),
      enrichment: r.url_id ? rowToEnrichment(r) : undefined,
    }));
  }

  async putEnrichment(record: EnrichmentRecord, body: string): Promise<void> {
    this.counted.version = -1;
    this.db.transaction(() => {
      const { doc_id: docId } = this.sql
        .get(
          `INSERT INTO enrichments (url_id, url, host, title, text_hash, summary, tags, language, published, summary_stamp, tags_stamp, embedding, updated_at, listing, page_fields, extracted)
           VALUES (@urlId, @url, @host, @title, @textHash, @summary, @tags, @language, @published, @summaryStamp, @tagsStamp, @embedding, @updatedAt, @listing, @pageFields, @extracted)
           ON CONFLICT (url_id) DO UPDATE SET url = excluded.url, host = excluded.host, title = excluded.title, text_hash = excluded.text_hash,
             summary = excluded.summary, tags = excluded.tags, language = excluded.language, published = excluded.published,
             summary_stamp = excluded.summary_stamp, tags_stamp = excluded.tags_stamp, embedding = excluded.embedding, updated_at = excluded.updated_at,
             listing = excluded.listing, page_fields = excluded.page_fields, extracted = excluded.extracted
           RETURNING doc_id`,
        )
        .get({
          ...record,
          tags: JSON.stringify(record.tags),
          language: record.language ?? null,
          published: record.published ?? null,
          summaryStamp: JSON.stringify(record.summaryStamp),
          tagsStamp: JSON.stringify(record.tagsStamp),
          embedding: record.embedding ? JSON.stringify(record.embedding) : null,
          listing: record.listing ?? null,
          // The filters' columns (language, published) beside every field a hit shows.
          pageFields: JSON.stringify(pageFieldsOf(record)),
          extracted: record.extracted ? JSON.stringify(record.extracted) : null,
        }) as { doc_id: number };
      this.sql.get('DELETE FROM enrichment_tags WHERE doc_id = ?').run(docId);
      const tag = this.sql.get('INSERT OR IGNORE INTO enrichment_tags (tag, doc_id) VALUES (?, ?)');
      for (const t of record.tags) tag.run(t, docId);
      this.sql.get('DELETE FROM search_text WHERE rowid = ?').run(docId);
      this.sql
        .get('INSERT INTO search_text (rowid, title, tags, summary, body) VALUES (?, ?, ?, ?, ?)')
        .run(docId, record.title, record.tags.map((t) => t.slice(1).replace(/-/g, ' ')).join(' '), record.summary, body);
      this.sql.get('DELETE FROM enrich_failures WHERE url_id = ?').run(record.urlId);
      if (record.tookMs !== undefined) {
        this.sql
          .get('INSERT INTO enrich_latency (bucket, n, ms) VALUES (?, 1, ?) ON CONFLICT (bucket) DO UPDATE SET n = n + 1, ms = ms + excluded.ms')
          .run(enrichLatencyBucket(record.tookMs), Math.round(record.tookMs));
      }
    })();
  }

  async enrichLatency(): Promise<EnrichLatency> {
    const counts = new Array<number>(ENRICH_LATENCY_BOUNDS_MS.length + 1).fill(0);
    // A data directory an older trawl wrote, opened read-only, has no histogram yet.
    if (!this.sql.get("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'enrich_latency'").get()) return { counts, sumMs: 0 };
    let sumMs = 0;
    for (const r of this.sql.get('SELECT bucket, n, ms FROM enrich_latency').all() as Array<{ bucket: number; n: number; ms: number }>) {
      counts[r.bucket] = r.n;
      sumMs += r.ms;
    }
    return { counts, sumMs };
  }

  async deleteEnrichment(urlId: string): Promise<void> {
    this.counted.version = -1;
    this.db.transaction(() => {
      const row = this.sql.get('DELETE FROM enrichments WHERE url_id = ? RETURNING doc_id').get(urlId) as { doc_id: number } | undefined;
      if (!row) return;
      this.sql.get('DELETE FROM enrichment_tags WHERE doc_id = ?').run(row.doc_id);
      this.sql.get('DELETE FROM search_text WHERE rowid = ?').run(row.doc_id);
    })();
  }

  async enrichments(afterUrlId: string, limit: number): Promise<EnrichmentRecord[]> {
    const rows = this.sql.get('SELECT * FROM enrichments WHERE url_id > ? ORDER BY url_id LIMIT ?').all(afterUrlId, limit);
    return (rows as Array<Record<string, unknown>>).map(rowToEnrichment);
  }

  async enrichmentsOf(urlIds: string[]): Promise<EnrichmentRecord[]> {
    const one = this.sql.get('SELECT * FROM enrichments WHERE url_id = ?');
    return urlIds.flatMap((id) => {
      const row = one.get(id) as Record<string, unknown> | undefined;
      return row ? [rowToEnrichment(row)] : [];
    });
  }

  async recordEnrichFailure(f: EnrichFailure): Promise<void> {
    this.sql
      .get(
        `INSERT INTO enrich_failures (url_id, url, stage, error, attempts, failed_at) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (url_id) DO UPDATE SET stage = excluded.stage, error = excluded.error, attempts = enrich_failures.attempts + excluded.attempts, failed_at = excluded.failed_at`,
      )
      .run(f.urlId, f.url, f.stage, f.error, f.attempts, f.failedAt);
  }

  async clearEnrichFailure(urlId: string): Promise<void> {
    this.sql.get('DELETE FROM enrich_failures WHERE url_id = ?').run(urlId);
  }

  async enrichFailures(): Promise<EnrichFailure[]> {
    const rows = this.sql.get('SELECT * FROM enrich_failures ORDER BY failed_at, url_id').all() as Array<Record<string, unknown>>;
    return rows.map((r) => ({
      urlId: r.url_id as string,
      url: r.url as string,
      stage: r.stage as EnrichFailure['stage'],
      error: r.error as string,
      attempts: r.attempts as number,
      failedAt: r.failed_at as number,
    }));
  }

  /**
   * How the last full-text query went: `pruned` read only the pages holding its rarest terms (one
   * pass or two), `all` scored every page holding any term.
   */
  lastTextPlan: 'pruned' | 'all' | undefined;
  /** Pages holding each phrase, and the pages indexed, as FTS5's BM25 counts them; good until a write (see phraseCounts). */
  private counted = { version: -1, docs: 0, df: new Map<string, number>() };

  /**
   * Each phrase's document frequency and the indexed pages, kept while nothing writes: another
   * connection's commit changes `PRAGMA data_version`, this connection's own text writes clear them.
   */
  private phraseCounts(phrases: string[]): { docs: number; df: Map<string, number> } {
    const c = this.counted;
    const version = this.db.pragma('data_version', { simple: true }) as number;
    if (c.version !== version || c.df.size > 10_000) {
      c.version = version;
      c.df.clear();
      c.docs = (this.sql.get('SELECT count(*) AS n FROM search_text_docsize').get() as { n: number }).n;
    }
    const one = this.sql.get('SELECT count(*) AS n FROM search_text WHERE search_text MATCH ?');
    for (const p of phrases) if (!c.df.has(p)) c.df.set(p, (one.get(ftsQuery([p])) as { n: number }).n);
    return c;
  }

  async textSearch(terms: string[], filters: SearchFilters, limit: number): Promise<TextHit[]> {
    if (terms.length === 0 || limit <= 0) return [];
    const where = filterSql(filters, 'e', (a) => `EXISTS (SELECT 1 FROM enrichment_tags t WHERE t.doc_id = ${a}.doc_id AND t.tag = ?)`);
    // Unfiltered, the matches are ranked inside FTS5 and only the best are joined to their pages
    // (at 100,000 pages a common term matches tens of thousands: a join for each cost ~25 %).
    const sql = where.sql
      ? `SELECT e.url_id, search_text.rowid AS rowid, -bm25(search_text, ${BM25_WEIGHTS.join(', ')}) AS score FROM search_text JOIN enrichments e ON e.doc_id = search_text.rowid
         WHERE search_text MATCH ?${where.sql} ORDER BY score DESC, e.url_id LIMIT ?`
      : `SELECT e.url_id, t.rowid, t.score FROM (
           SELECT rowid, -bm25(search_text, ${BM25_WEIGHTS.join(', ')}) AS score FROM search_text WHERE search_text MATCH ?
           ORDER BY score DESC, rowid LIMIT ?
         ) t JOIN enrichments e ON e.doc_id = t.rowid`;
    type Row = { url_id: string; rowid: number; score: number };
    const order = where.sql
      ? (a: Row, b: Row) => b.score - a.score || (a.url_id < b.url_id ? -1 : a.url_id > b.url_id ? 1 : 0)
      : (a: Row, b: Row) => b.score - a.score || a.rowid - b.rowid;
    const ranked = (match: string) => (this.sql.get(sql).all(match, ...where.params, limit) as Row[]).sort(order);

    // Top-k pruning (MaxScore): a phrase adds less than idf × (k1 + 1) to a page's BM25 however
    // often it occurs, so a page holding none of the rarest phrases scores below the sum of the
    // others' bounds. When the k-th best page holding a rare phrase scores above that sum, pages
    // holding only common phrases (most of the matches) need not be scored at all. Every query
    // lists the phrases in one order (rarest first), so a page's score is the same sum whichever
    // query finds it, and the answer is the one scoring every match would give.
    const distinct = [...new Set(terms)];
    const { docs, df } = this.phraseCounts(distinct);
    const phrases = distinct.filter((t) => df.get(t)! > 0).sort((a, b) => df.get(a)! - df.get(b)! || (a < b ? -1 : a > b ? 1 : 0));
    if (phrases.length === 0) return [];
    // FTS5's idf, floored as it floors it; a hair above, so rounding never makes a bound too low.
    const bound = phrases.map((p) => {
      const n = df.get(p)!;
      return (BM25_K1 + 1) * Math.max(Math.log((docs - n + 0.5) / (n + 0.5)), 1e-6) * (1 + 1e-9) + 1e-12;
    });
    const sum = (from: number, to = phrases.length) => bound.slice(from, to).reduce((a, b) => a + b, 0);
    const dfSum = (from: number, to: number) => phrases.slice(from, to).reduce((a, p) => a + df.get(p)!, 0);
    let rows: Row[];
    // Not worth it when the rarest phrase's pages are most of the matches anyway.
    if (phrases.length === 1 || dfSum(0, 1) > 0.5 * dfSum(0, phrases.length)) {
      this.lastTextPlan = 'all';
      rows = ranked(ftsQuery(phrases));
    } else {
      this.lastTextPlan = 'pruned';
      // Pass by pass, the pages holding phrases [from, must) and none rarer (those a pass before
      // scored), with a commoner phrase and without: each page is scored once, in full. A pass
      // stops the search when its k-th score so far is at least the bound of the phrases left.
      rows = [];
      // The k-th score among the pages scored so far is at most the k-th among all: a safe threshold.
      let threshold = -Infinity;
      const add = (found: Row[]) => {
        rows = rows.concat(found).sort(order).slice(0, limit);
        if (rows.length >= limit) threshold = rows[limit - 1]!.score;
      };
      for (let from = 0, must = 1; ;) {
        const fresh = ftsQuery(phrases.slice(from, must));
        const rest = ftsQuery(phrases.slice(must));
        const old = ftsQuery(phrases.slice(0, from));
        const not = old ? ` NOT (${old})` : '';
        if (rest) add(ranked(`((${fresh}) AND (${rest}))${not}`));
        // Pages holding only the fresh phrases score below their bounds' sum: maybe none is needed.
        if (sum(from, must) > threshold) add(ranked(rest ? `(${fresh}) NOT (${rest}${old ? ` OR ${old}` : ''})` : `(${fresh})${not}`));
        if (!rest || sum(must) <= threshold) break;
        from = must;
        do must++;
        while (must < phrases.length && sum(must) > threshold);
      }
    }
    if (!where.sql) rows.sort((a, b) => b.score - a.score || (a.url_id < b.url_id ? -1 : a.url_id > b.url_id ? 1 : 0));
    return rows.map((r) => ({ urlId: r.url_id, score: r.score }));
  }

  async hitDetails(urlIds: string[], terms: string[]): Promise<HitDetails[]> {
    const one = this.sql.get(
      `SELECT e.*, s.title || ' ' || s.tags || ' ' || s.summary || ' ' || s.body AS indexed FROM enrichments e JOIN search_text s ON s.rowid = e.doc_id WHERE e.url_id = ?`,
    );
    const anchors = this.sql.get(
      `SELECT e.anchor, count(DISTINCT e.from_id) AS n FROM ${CURRENT_EDGES}
       WHERE (e.to_page_id = ? OR e.to_id = ?) AND e.from_id != ? AND e.anchor != '' AND e.section IN ('body', 'sidebar')
       GROUP BY e.anchor ORDER BY n DESC, e.anchor LIMIT ${INLINK_ANCHORS}`,
    );
    const linking = this.sql.get(
      `SELECT DISTINCT e.from_id FROM ${CURRENT_EDGES}
       WHERE (e.to_page_id = ? OR e.to_id = ?) AND e.from_id != ? AND e.section IN ('body', 'sidebar') LIMIT ${LINKED_FROM_KEPT}`,
    );
    const out: HitDetails[] = [];
    for (const id of urlIds) {
      const r = one.get(id) as Record<string, unknown> | undefined;
      if (!r) continue;
      const e = rowToEnrichment(r);
      const links = anchors.all(id, id, id) as Array<{ anchor: string; n: number }>;
      out.push(
        hitOf(
          e,
          termsIn(terms, r.indexed as string),
          links.map((l) => ({ anchor: l.anchor, count: l.n })),
          (linking.all(id, id, id) as Array<{ from_id: string }>).map((l) => l.from_id),
        ),
      );
    }
    return out;
  }
}
