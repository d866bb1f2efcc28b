// The segments of a full-text index kept as immutable objects (the cloud's index in S3): how a
// segment is laid out, which segments merge, how a merge keeps only live rows, and which rows are
// live. No I/O here: `s3-text-index.ts` reads and writes the objects.
//
// A segment holds the pages folded in at one time: a row per page (url id, filter fields, weighted
// length) in chunks of ROWS_PER_CHUNK, its url ids sorted in an id table, and its postings split
// into term shards. A page folded in again lives in the newer segment: the fold looks the page up in
// the older segments' id tables and marks its old row dead in that segment's dead-row bitset (a new
// version of it), and keeps each segment's live rows and their summed length in the manifest. A
// query so needs no table of every page: corpus statistics are the manifest's sums, a posting's
// liveness one bit, and only its best hits' rows are read. Segments merge in tiers: the newest
// FAN_IN segments of one level become one segment of the next level, so an index of F folds holds at
// most (FAN_IN - 1) segments a level and log_FAN_IN(F) levels.
import { fnv1a } from '../enrich/local-embedding.js';
import type { PostedDoc } from './text-postings.js';

/** Segments of one level that merge into one of the next. */
export const FAN_IN = 8;
/** A merge whose pages would pass this many is not made: such segments stay (a query reads each). */
export const MAX_SEGMENT_DOCS = 2 ** 21;
/** Pages a term shard holds about: a query reads one shard of a segment per term. */
const DOCS_PER_SHARD = 2048;
/** Term shards a segment has at most. */
const MAX_SHARDS = 256;
/** Rows a chunk of a segment's page table holds: a query reads the chunks of its hits only. */
export const ROWS_PER_CHUNK = 4096;

/** A page's row: url id, host, language, published, tags, weighted length. */
export type DocRow = [string, string, string | null, string | null, string[], number];
/** A term shard: each term's postings, page position and weighted frequency interleaved. */
export type TermShard = Record<string, number[]>;

/** A segment as the manifest lists it. */
export interface SegmentInfo {
  id: string;
  /** 0 for a fold of changes; a merge of level-n segments is level n + 1. */
  level: number;
  /** Rows (pages) the segment holds, dead ones included. */
  docs: number;
  /** Url ids a segment of the earlier layout (no `format`) lists as deleted since the segments before it. */
  tombstones: number;
  shards: number;
  /**
   * 2: rows in chunks, an id table, and liveness in the manifest and a dead-row bitset. Absent: a
   * segment written before, with one page table and tombstones, read as it was until a fold
   * converts it.
   */
  format?: 2;
  /** Live rows and their summed weighted length (format 2). */
  live?: number;
  liveLength?: number;
  /** The version of the segment's dead-row bitset, once a fold has marked one of its rows dead. */
  dead?: string;
}

/** A segment's contents. */
export interface SegmentData {
  rows: DocRow[];
  shards: TermShard[];
}

/** A segment of the earlier layout: its page table and the url ids deleted since the segments before it. */
export interface LegacyTable {
  rows: DocRow[];
  tombstones: string[];
}

/** Which rows of a segment are live: those whose bit is clear. */
export interface SegmentLiveness {
  dead: Uint8Array;
  live: number;
  liveLength: number;
}

/** The shard of a term in a segment of `shards` term shards. */
export function termShardOf(term: string, shards: number): number {
  return fnv1a(term) % shards;
}

/** Term shards for a segment of `docs` pages: a power of two, so that a merge finds a term's postings in one input shard. */
export function shardsFor(docs: number): number {
  let n = 1;
  while (n < MAX_SHARDS && n * DOCS_PER_SHARD < docs) n *= 2;
  return n;
}

/** Chunks of a page table of `docs` rows. */
export function chunksOf(docs: number): number {
  return Math.ceil(docs / ROWS_PER_CHUNK);
}

/** A segment of pages folded in together (the last entry of a url id wins). */
export function buildSegment(docs: Iterable<PostedDoc>, shards?: number): SegmentData {
  const latest = new Map<string, PostedDoc>();
  for (const d of docs) latest.set(d.urlId, d);
  const n = shards ?? shardsFor(latest.size);
  const out: TermShard[] = Array.from({ length: n }, () => Object.create(null) as TermShard);
  const rows: DocRow[] = [];
  for (const d of latest.values()) {
    const i = rows.length;
    rows.push([d.urlId, d.host, d.language ?? null, d.published ?? null, d.tags, d.length]);
    for (const [t, tf] of d.terms) (out[termShardOf(t, n)]![t] ??= []).push(i, tf);
  }
  return { rows, shards: out };
}

/** The manifest's entry of a segment written whole now: every row live. */
export function segmentInfo(id: string, level: number, data: { rows: readonly DocRow[]; shards: number }): SegmentInfo {
  return { id, level, docs: data.rows.length, tombstones: 0, shards: data.shards, format: 2, live: data.rows.length, liveLength: summedLength(data.rows) };
}

function summedLength(rows: readonly DocRow[]): number {
  let n = 0;
  for (const r of rows) n += r[5];
  return n;
}

/** Whether row `row` is marked dead (no bitset: none is). */
export function isDead(dead: Uint8Array | undefined, row: number): boolean {
  return dead !== undefined && (dead[row >> 3]! & (1 << (row & 7))) !== 0;
}

/** A bitset of `docs` rows, none dead, or a copy of `from`. */
export function deadRows(docs: number, from?: Uint8Array): Uint8Array {
  const out = new Uint8Array(Math.ceil(docs / 8));
  if (from) out.set(from.subarray(0, out.length));
  return out;
}

export function markDead(dead: Uint8Array, row: number): void {
  dead[row >> 3]! |= 1 << (row & 7);
}

/** A segment's filter fields by row: each field's distinct values, and each row's value in each, as indexes. */
export interface RowFields {
  hosts: string[];
  languages: Array<string | null>;
  published: Array<string | null>;
  tags: string[][];
  /** Row r's host, language, published and tags: indexes into the lists above, at 4r to 4r + 3. */
  ids: Uint32Array;
}

/** The filter fields of a page table, each distinct value listed once. */
export function rowFields(rows: readonly DocRow[]): RowFields {
  const out: RowFields = { hosts: [], languages: [], published: [], tags: [], ids: new Uint32Array(4 * rows.length) };
  const seen = [new Map<string, number>(), new Map<string, number>(), new Map<string, number>(), new Map<string, number>()];
  const lists: unknown[][] = [out.hosts, out.languages, out.published, out.tags];
  rows.forEach((row, r) => {
    [row[1], row[2], row[3], row[4]].forEach((value, k) => {
      const key = JSON.stringify(value);
      let at = seen[k]!.get(key);
      if (at === undefined) {
        at = lists[k]!.push(value) - 1;
        seen[k]!.set(key, at);
      }
      out.ids[4 * r + k] = at;
    });
  });
  return out;
}

/** Row fields as bytes: the length of the lists' JSON (u32), that JSON, padding to a multiple of 4, the indexes (u32 each). */
export function encodeRowFields(fields: RowFields): Buffer {
  const lists = Buffer.from(JSON.stringify([fields.hosts, fields.languages, fields.published, fields.tags]));
  const at = 4 + lists.length + ((4 - (lists.length % 4)) % 4);
  const out = Buffer.alloc(at + fields.ids.byteLength);
  out.writeUInt32LE(lists.length, 0);
  lists.copy(out, 4);
  Buffer.from(fields.ids.buffer, fields.ids.byteOffset, fields.ids.byteLength).copy(out, at);
  return out;
}

export function decodeRowFields(bytes: Buffer): RowFields {
  const length = bytes.readUInt32LE(0);
  const [hosts, languages, published, tags] = JSON.parse(bytes.subarray(4, 4 + length).toString()) as [
    string[],
    Array<string | null>,
    Array<string | null>,
    string[][],
  ];
  const at = 4 + length + ((4 - (length % 4)) % 4);
  const ids = new Uint32Array((bytes.length - at) / 4);
  Buffer.from(ids.buffer).set(bytes.subarray(at));
  return { hosts, languages, published, tags, ids };
}

/**
 * A segment's id table: its url ids sorted by their UTF-8 bytes, each with its row and weighted
 * length. Laid out as the row count (u32), the rows (u32 each), the lengths (f64 each), the offsets
 * of the ids' bytes (u32 each, one more than rows), then the ids' bytes; read in place.
 */
export function encodeIdTable(rows: readonly DocRow[]): Buffer {
  const ids = rows.map((r, i) => ({ bytes: Buffer.from(r[0]), row: i, length: r[5] }));
  ids.sort((a, b) => Buffer.compare(a.bytes, b.bytes));
  const n = ids.length;
  const idBytes = ids.reduce((sum, id) => sum + id.bytes.length, 0);
  const out = Buffer.alloc(4 + n * 4 + n * 8 + (n + 1) * 4 + idBytes);
  out.writeUInt32LE(n, 0);
  let offset = 0;
  const blob = 4 + n * 16 + 4;
  ids.forEach((id, k) => {
    out.writeUInt32LE(id.row, 4 + k * 4);
    out.writeDoubleLE(id.length, 4 + n * 4 + k * 8);
    out.writeUInt32LE(offset, 4 + n * 12 + k * 4);
    id.bytes.copy(out, blob + offset);
    offset += id.bytes.length;
  });
  out.writeUInt32LE(offset, 4 + n * 12 + n * 4);
  return out;
}

/** An id table read in place: which row a url id has in the segment. */
export class IdTable {
  private readonly n: number;
  private readonly blob: number;

  constructor(private readonly bytes: Buffer) {
    this.n = bytes.readUInt32LE(0);
    this.blob = 4 + this.n * 16 + 4;
  }

  private id(k: number): Buffer {
    const at = 4 + this.n * 12 + k * 4;
    return this.bytes.subarray(this.blob + this.bytes.readUInt32LE(at), this.blob + this.bytes.readUInt32LE(at + 4));
  }

  /** The url id's row and weighted length, if the segment holds it. */
  find(urlId: string): { row: number; length: number } | undefined {
    const want = Buffer.from(urlId);
    let lo = 0;
    let hi = this.n - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const c = Buffer.compare(this.id(mid), want);
      if (c === 0) return { row: this.bytes.readUInt32LE(4 + mid * 4), length: this.bytes.readDoubleLE(4 + this.n * 4 + mid * 8) };
      if (c < 0) lo = mid + 1;
      else hi = mid - 1;
    }
    return undefined;
  }
}

/**
 * The merge due, if any: the newest FAN_IN segments when they share a level and their pages fit
 * in MAX_SEGMENT_DOCS. Returns the index of the first of them.
 */
export function plannedMerge(segments: readonly SegmentInfo[], fanIn = FAN_IN, maxDocs = MAX_SEGMENT_DOCS): number | undefined {
  if (segments.length < fanIn) return undefined;
  const from = segments.length - fanIn;
  const run = segments.slice(from);
  const level = run[0]!.level;
  if (run.some((s) => s.level !== level)) return undefined;
  if (run.reduce((n, s) => n + s.docs, 0) > maxDocs) return undefined;
  return from;
}

/** How the rows of merged segments map into the merged one. */
export interface MergePlan {
  rows: DocRow[];
  /** For each input segment, each row's position in the merged segment, or -1 where it is dead. */
  remap: Int32Array[];
  shards: number;
}

/** The rows of a merge of segments: their live rows, in order (a page has one live row in the index, so nothing else is dropped). */
export function mergeRows(inputs: ReadonlyArray<{ rows: readonly DocRow[]; dead?: Uint8Array }>, shards?: number): MergePlan {
  const rows: DocRow[] = [];
  const remap = inputs.map((input) => {
    const map = new Int32Array(input.rows.length).fill(-1);
    input.rows.forEach((row, i) => {
      if (isDead(input.dead, i)) return;
      map[i] = rows.length;
      rows.push(row);
    });
    return map;
  });
  return { rows, remap, shards: shards ?? shardsFor(rows.length) };
}

/**
 * How a merge writes its output shards so that it reads each input shard once: in m groups, m the
 * fewest shards of any input or of the output (all powers of two), group r writing the output
 * shards j ≡ r (mod m) from the input shards n ≡ r (mod m) — a term's shard in each is its hash
 * modulo the shard count, so both fall in the group of its hash modulo m.
 */
export function mergeGroups(inputShards: readonly number[], outputShards: number): Array<{ outputs: number[]; inputs: number[][] }> {
  const m = Math.min(outputShards, ...inputShards);
  const congruent = (count: number, r: number) => Array.from({ length: count / m }, (_, k) => r + k * m);
  return Array.from({ length: m }, (_, r) => ({ outputs: congruent(outputShards, r), inputs: inputShards.map((k) => congruent(k, r)) }));
}

/** Output shards `outputs` of a merge: the live postings of their terms from every input shard given (per input, oldest first), renumbered. */
export function mergeShards(
  outputs: readonly number[],
  plan: Pick<MergePlan, 'remap' | 'shards'>,
  inputs: ReadonlyArray<ReadonlyArray<TermShard>>,
): Map<number, TermShard> {
  const out = new Map(outputs.map((j) => [j, Object.create(null) as TermShard]));
  inputs.forEach((shards, s) => {
    const map = plan.remap[s]!;
    for (const shard of shards) {
      for (const term in shard) {
        const into = out.get(termShardOf(term, plan.shards));
        if (!into) continue;
        const postings = shard[term]!;
        let merged: number[] | undefined;
        for (let k = 0; k < postings.length; k += 2) {
          const to = map[postings[k]!]!;
          if (to < 0) continue;
          (merged ??= into[term] ??= []).push(to, postings[k + 1]!);
        }
      }
    }
  });
  return out;
}

/**
 * The liveness of segments of the earlier layout (oldest first), as a fold converts them and a
 * query reads an index no fold has converted yet: each url id's newest entry is live, and a
 * tombstone hides the entries before it.
 */
export function legacyLiveness(tables: readonly LegacyTable[]): SegmentLiveness[] {
  const out = tables.map((t) => ({ dead: deadRows(t.rows.length), live: 0, liveLength: 0 }));
  const seen = new Set<string>();
  for (let s = tables.length - 1; s >= 0; s--) {
    const table = tables[s]!;
    const mine = out[s]!;
    // Within a segment the last row of an id wins, as a fold built it.
    for (let i = table.rows.length - 1; i >= 0; i--) {
      const row = table.rows[i]!;
      if (seen.has(row[0])) markDead(mine.dead, i);
      else {
        seen.add(row[0]);
        mine.live += 1;
        mine.liveLength += row[5];
      }
    }
    for (const id of table.tombstones) seen.add(id);
  }
  return out;
}
