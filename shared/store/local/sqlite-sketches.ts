// The vectors' sketches (signs and byte codes): written beside each vector, held in memory by each
// reading connection, brought up to date from the sequence numbers other connections' writes left.
import type { Db } from './sqlite-types.js';
import { bestCodes, bestSketches, ByteCodes, sketchBytes, sketchTable, sketchVector } from '../../search/vector-sketch.js';
import { Statements } from './sqlite-rows.js';

/** Deletions bump this meta key, so a reader knows its copy holds sketches that are gone. */
const DELETIONS_KEY = 'vector_sketch_deletions';

/** The table, with a sequence number no write reuses (AUTOINCREMENT): readers fetch what is newer than what they hold. */
export const SKETCHES_SQL = `CREATE TABLE IF NOT EXISTS vector_sketches (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  url_id TEXT NOT NULL UNIQUE,
  model TEXT NOT NULL,
  dimension INTEGER NOT NULL,
  sketch BLOB NOT NULL,
  weight REAL NOT NULL,
  codes BLOB NOT NULL
);`;

/** Writes the sketch of a vector, replacing the page's old one (inside the caller's transaction). */
export function putSketch(sql: Statements, urlId: string, model: string, vector: Float32Array): void {
  const { bits, weight, codes } = sketchVector(vector);
  sql
    .get('INSERT OR REPLACE INTO vector_sketches (url_id, model, dimension, sketch, weight, codes) VALUES (?, ?, ?, ?, ?, ?)')
    .run(
      urlId,
      model,
      vector.length,
      Buffer.from(bits.buffer, bits.byteOffset, bits.byteLength),
      weight,
      Buffer.from(codes.buffer, codes.byteOffset, codes.byteLength),
    );
}

export function deleteSketch(sql: Statements, urlId: string): void {
  if (sql.get('DELETE FROM vector_sketches WHERE url_id = ?').run(urlId).changes === 0) return;
  sql.get(`INSERT INTO meta (key, value) VALUES ('${DELETIONS_KEY}', '1') ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1`).run();
}

/** Schema 10's step: a sketch for every vector an older trawl stored. */
export function backfillSketches(db: Db): void {
  db.exec(SKETCHES_SQL);
  const sql = new Statements(db);
  const page = db.prepare('SELECT url_id, model, vector FROM vectors WHERE url_id > ? ORDER BY url_id LIMIT 1000');
  // In pages: a connection cannot write while it reads.
  for (let after = ''; ;) {
    const rows = page.all(after) as Array<{ url_id: string; model: string; vector: Uint8Array }>;
    if (rows.length === 0) return;
    for (const r of rows) {
      const copy = new Uint8Array(r.vector);
      putSketch(sql, r.url_id, r.model, new Float32Array(copy.buffer, 0, copy.byteLength >> 2));
    }
    after = rows[rows.length - 1]!.url_id;
  }
}

/** One model's sketches, slot by slot. */
class Group {
  bits: Uint8Array;
  weights: Float32Array;
  readonly codes: ByteCodes;
  ids: string[] = [];
  live = 0;
  readonly bytes: number;
  constructor(readonly dimension: number) {
    this.bytes = sketchBytes(dimension);
    this.bits = new Uint8Array(1024 * this.bytes);
    this.weights = new Float32Array(1024);
    this.codes = new ByteCodes(dimension, 1024);
  }

  private grow(slot: number): void {
    const size = Math.max(slot + 1, this.weights.length * 2);
    const bits = new Uint8Array(size * this.bytes);
    bits.set(this.bits);
    this.bits = bits;
    const weights = new Float32Array(size);
    weights.set(this.weights);
    this.weights = weights;
  }

  set(slot: number, bits: Uint8Array, weight: number, codes: Int8Array): void {
    if (slot >= this.weights.length) this.grow(slot);
    this.codes.set(slot, codes);
    if (this.weights[slot] === 0 && weight !== 0) this.live++;
    if (this.weights[slot] !== 0 && weight === 0) this.live--;
    this.bits.set(bits.subarray(0, this.bytes), slot * this.bytes);
    // A zero vector's sketch says nothing; a tiny weight keeps the slot live (its exact distance decides).
    this.weights[slot] = weight || (bits.length ? Number.MIN_VALUE : 0);
  }
}

/**
 * A reading connection's copy of the sketches. `refresh` costs two point reads when nothing
 * changed, a read of the new rows when some were written, and a reload when some were deleted.
 */
export class SketchCache {
  private readonly sql: Statements;
  private readonly groups = new Map<string, Group>();
  private readonly where = new Map<string, { group: Group; slot: number }>();
  private seq = 0;
  private deletions = '';
  /** Whether the copy has been loaded (it is then kept up to date at every call). */
  loaded = false;

  constructor(db: Db) {
    this.sql = new Statements(db);
  }

  /** Brings the copy up to date with the database. */
  refresh(): void {
    this.loaded = true;
    const deletions = (this.sql.get('SELECT value FROM meta WHERE key = ?').get(DELETIONS_KEY) as { value: string } | undefined)?.value ?? '0';
    if (deletions !== this.deletions) {
      this.groups.clear();
      this.where.clear();
      this.seq = 0;
      this.deletions = deletions;
    }
    const top = (this.sql.get("SELECT seq FROM sqlite_sequence WHERE name = 'vector_sketches'").get() as { seq: number } | undefined)?.seq ?? 0;
    if (top <= this.seq) return;
    const rows = this.sql
      .get('SELECT seq, url_id, model, dimension, sketch, weight, codes FROM vector_sketches WHERE seq > ? ORDER BY seq')
      .iterate(this.seq) as Iterable<{ seq: number; url_id: string; model: string; dimension: number; sketch: Uint8Array; weight: number; codes: Uint8Array }>;
    for (const r of rows) {
      const key = `${r.model}\u0000${r.dimension}`;
      const old = this.where.get(r.url_id);
      if (old && old.group !== this.groups.get(key)) old.group.set(old.slot, new Uint8Array(0), 0, new Int8Array(0));
      let group = this.groups.get(key);
      if (!group) this.groups.set(key, (group = new Group(r.dimension)));
      const slot = old?.group === group ? old.slot : group.ids.length;
      if (slot === group.ids.length) group.ids.push(r.url_id);
      group.set(slot, r.sketch, r.weight, new Int8Array(r.codes.buffer, r.codes.byteOffset, r.codes.byteLength));
      this.where.set(r.url_id, { group, slot });
      this.seq = r.seq;
    }
  }

  /** How many pages have a vector of this model (as of the last refresh). */
  size(model: string, dimension: number): number {
    return this.groups.get(`${model}\u0000${dimension}`)?.live ?? 0;
  }

  /**
   * The pages nearest the query by their sketches, for an exact comparison to decide among: the
   * `scan` best by their signs, and of those the `keep` best by their byte codes (as of the last refresh).
   */
  candidates(query: Float32Array, model: string, scan: number, keep: number): string[] {
    const group = this.groups.get(`${model}\u0000${query.length}`);
    if (!group) return [];
    const slots = bestSketches(sketchTable(query), { bits: group.bits, weights: group.weights, bytes: group.bytes, slots: group.ids.length }, scan);
    return bestCodes(query, group.codes, slots, keep).map((s) => group.ids[s]!);
  }
}
