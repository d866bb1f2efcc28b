import type { Db } from './sqlite-types.js';
import type { SearchFilters, VectorEntry, VectorIndex, VectorRecord } from '../../ports/index.js';
import { filterSql } from './sqlite-search.js';
import { Statements } from './sqlite-rows.js';
import { deleteSketch, putSketch, SketchCache } from './sqlite-sketches.js';
import { vectorBlob } from './vector-functions.js';

export interface VectorSearchOptions {
  /**
   * From how many vectors of a model an unfiltered query goes through the sketches first. Below
   * it, every vector is compared exactly (~1 ms a thousand vectors of 512 dimensions).
   * @default 4096
   */
  approximateFrom?: number;
  /**
   * What share of the vectors the sign pass hands to the byte codes (at least `minCandidates`): 4 %
   * keeps 99 % of the exact top 10 on bench:search's 100,000 pages.
   * @default 0.04
   */
  candidateShare?: number;
  /** The fewest candidates the sign pass hands on. @default 1000 */
  minCandidates?: number;
  /** How many of the byte codes' best the exact distance ranks, at least (twice the k asked for, if more). @default 100 */
  exactCandidates?: number;
}

/**
 * Vectors in the crawl's SQLite file, by cosine distance (sqlite-vec's `vec_distance_cosine`).
 * Small sets and filtered queries are scanned exactly; past `approximateFrom` vectors, a scan of
 * in-memory sign sketches picks candidates, their byte codes the best of those, and the exact
 * distance ranks what is left.
 */
export class SqliteVectorIndex implements VectorIndex {
  private readonly sql: Statements;
  private readonly sketches: SketchCache;
  private readonly approximateFrom: number;
  private readonly candidateShare: number;
  private readonly minCandidates: number;
  private readonly exactCandidates: number;
  private unfiltered = 0;
  /** How the last query went: every vector compared exactly, or the sketches' candidates only. */
  lastPlan: 'exact' | 'sketched' | undefined;

  constructor(
    private readonly db: Db,
    options: VectorSearchOptions = {},
  ) {
    this.sql = new Statements(db);
    this.sketches = new SketchCache(db);
    this.approximateFrom = options.approximateFrom ?? 4096;
    this.candidateShare = options.candidateShare ?? 0.04;
    this.minCandidates = options.minCandidates ?? 1000;
    this.exactCandidates = options.exactCandidates ?? 100;
  }

  /** Loads the sketches now rather than at the first query. */
  warm(): void {
    this.sketches.refresh();
  }

  async upsert(records: VectorRecord[]): Promise<void> {
    const put = this.sql.get(
      `INSERT OR REPLACE INTO vectors (url_id, model, dimension, hash, vector, host, language, published, tags) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.db.transaction(() => {
      for (const r of records) {
        const m = r.metadata;
        put.run(r.id, r.model, r.vector.length, r.hash, vectorBlob(r.vector), m.host, m.language ?? null, m.published ?? null, JSON.stringify(m.tags));
        putSketch(this.sql, r.id, r.model, r.vector);
      }
    })();
  }

  async delete(ids: string[]): Promise<void> {
    const del = this.sql.get('DELETE FROM vectors WHERE url_id = ?');
    this.db.transaction(() => {
      for (const id of ids) {
        del.run(id);
        deleteSketch(this.sql, id);
      }
    })();
  }

  async query(vector: Float32Array, model: string, k: number, filters: SearchFilters): Promise<Array<{ id: string; distance: number }>> {
    const where = filterSql(filters, 'v', (a) => `EXISTS (SELECT 1 FROM json_each(${a}.tags) WHERE value = ?)`);
    // Loading the sketches costs ~10 exact scans (1.8 s at 100,000 pages): a connection that asks
    // once (trawl search, an MCP call) scans; the second query loads them, as warm() does at once.
    const sketched = !where.sql && (this.sketches.loaded || ++this.unfiltered >= 2);
    // One refresh a query: two point reads when nothing changed.
    if (sketched) this.sketches.refresh();
    const size = sketched ? this.sketches.size(model, vector.length) : 0;
    if (size >= this.approximateFrom) {
      const count = Math.max(k, this.minCandidates, Math.ceil(size * this.candidateShare));
      const ids = this.sketches.candidates(vector, model, count, Math.max(2 * k, this.exactCandidates));
      this.lastPlan = 'sketched';
      const rows = this.sql
        .get(
          `SELECT url_id, vec_distance_cosine(vector, ?) AS distance FROM vectors
           WHERE url_id IN (SELECT value FROM json_each(?)) AND model = ? AND dimension = ? ORDER BY distance, url_id LIMIT ?`,
        )
        .all(vectorBlob(vector), JSON.stringify(ids), model, vector.length, k) as Array<{ url_id: string; distance: number }>;
      return rows.map((r) => ({ id: r.url_id, distance: r.distance }));
    }
    this.lastPlan = 'exact';
    const rows = this.sql
      .get(
        `SELECT url_id, vec_distance_cosine(vector, ?) AS distance FROM vectors v WHERE model = ? AND dimension = ?${where.sql}
         ORDER BY distance, url_id LIMIT ?`,
      )
      .all(vectorBlob(vector), model, vector.length, ...where.params, k) as Array<{ url_id: string; distance: number }>;
    return rows.map((r) => ({ id: r.url_id, distance: r.distance }));
  }

  async list(token: string | undefined, limit: number): Promise<{ entries: VectorEntry[]; next?: string }> {
    const rows = this.sql.get('SELECT url_id, model, dimension, hash FROM vectors WHERE url_id > ? ORDER BY url_id LIMIT ?').all(token ?? '', limit);
    const entries = (rows as Array<{ url_id: string; model: string; dimension: number; hash: string }>).map((r) => ({
      id: r.url_id,
      model: r.model,
      dimension: r.dimension,
      hash: r.hash,
    }));
    return { entries, next: entries.length === limit ? entries[entries.length - 1]!.id : undefined };
  }

  async entriesOf(ids: string[]): Promise<VectorEntry[]> {
    const one = this.sql.get('SELECT url_id, model, dimension, hash FROM vectors WHERE url_id = ?');
    return ids.flatMap((id) => {
      const r = one.get(id) as { url_id: string; model: string; dimension: number; hash: string } | undefined;
      return r ? [{ id: r.url_id, model: r.model, dimension: r.dimension, hash: r.hash }] : [];
    });
  }
}
