// The segments of a full-text index kept as immutable objects (the cloud's index in S3): how a
// segment is laid out, which segments merge, how a merge keeps only each page's newest entry, and
// which entries a query counts. No I/O here: `s3-text-index.ts` reads and writes the objects.
//
// A segment holds the pages folded in at one time: a row per page (url id, filter fields, weighted
// length), tombstones for pages deleted since, and its postings split into term shards. A page
// folded in again lives in the newer segment; the older entry is dead from then on, and a merge
// drops it. Segments merge in tiers: the newest FAN_IN segments of one level become one segment of
// the next level, so an index of F folds holds at most (FAN_IN - 1) segments a level and
// log_FAN_IN(F) levels.
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
  tombstones: number;
  shards: number;
}

/** A segment's contents. */
export interface SegmentData {
  rows: DocRow[];
  tombstones: string[];
  shards: TermShard[];
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

/** A segment of pages folded in together (the last entry of a url id wins) and the url ids deleted since. */
export function buildSegment(docs: Iterable<PostedDoc>, deleted: Iterable<string>, shards?: number): SegmentData {
  const latest = new Map<string, PostedDoc>();
  for (const d of docs) latest.set(d.urlId, d);
  const tombstones = [...new Set(deleted)].filter((id) => !latest.has(id)).sort();
  const n = shards ?? shardsFor(latest.size);
  const out: TermShard[] = Array.from({ length: n }, () => Object.create(null) as TermShard);
  const rows: DocRow[] = [];
  for (const d of latest.values()) {
    const i = rows.length;
    rows.push([d.urlId, d.host, d.language ?? null, d.published ?? null, d.tags, d.length]);
    for (const [t, tf] of d.terms) (out[termShardOf(t, n)]![t] ??= []).push(i, tf);
  }
  return { rows, tombstones, shards: out };
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
  tombstones: string[];
  /** For each input segment, each row's position in the merged segment, or -1 where it is dead. */
  remap: Int32Array[];
  shards: number;
}

/**
 * The rows of a merge of consecutive segments (`inputs` oldest first): each url id's newest entry
 * is kept, a row or a tombstone. Tombstones are kept only when older segments remain outside the
 * merge (`olderRemain`): there is nothing left for them to hide otherwise.
 */
export function mergeRows(inputs: ReadonlyArray<Pick<SegmentData, 'rows' | 'tombstones'>>, olderRemain: boolean, shards?: number): MergePlan {
  const seen = new Set<string>();
  const tombstones: string[] = [];
  const keep: Array<Array<number>> = inputs.map(() => []);
  for (let s = inputs.length - 1; s >= 0; s--) {
    const input = inputs[s]!;
    for (const id of input.tombstones) {
      if (seen.has(id)) continue;
      seen.add(id);
      if (olderRemain) tombstones.push(id);
    }
    for (let i = 0; i < input.rows.length; i++) {
      const id = input.rows[i]![0];
      if (seen.has(id)) continue;
      seen.add(id);
      keep[s]!.push(i);
    }
  }
  const rows: DocRow[] = [];
  const remap = inputs.map((input, s) => {
    const map = new Int32Array(input.rows.length).fill(-1);
    for (const i of keep[s]!) {
      map[i] = rows.length;
      rows.push(input.rows[i]!);
    }
    return map;
  });
  return { rows, tombstones: tombstones.sort(), remap, shards: shards ?? shardsFor(rows.length) };
}

/** The input shards of segment `inputShards` term shards that hold the terms of output shard `j` of `outputShards`. */
export function inputShardsFor(j: number, inputShards: number, outputShards: number): number[] {
  if (inputShards <= outputShards) return [j % inputShards];
  const out: number[] = [];
  for (let s = j; s < inputShards; s += outputShards) out.push(s);
  return out;
}

/** Output shard `j` of a merge: the live postings of its terms from every input shard given, renumbered. */
export function mergeShard(j: number, plan: Pick<MergePlan, 'remap' | 'shards'>, inputs: ReadonlyArray<ReadonlyArray<TermShard>>): TermShard {
  const out: TermShard = Object.create(null);
  inputs.forEach((shards, s) => {
    const map = plan.remap[s]!;
    for (const shard of shards) {
      for (const term in shard) {
        if (termShardOf(term, plan.shards) !== j) continue;
        const postings = shard[term]!;
        let merged: number[] | undefined;
        for (let k = 0; k < postings.length; k += 2) {
          const to = map[postings[k]!]!;
          if (to < 0) continue;
          (merged ??= out[term] ??= []).push(to, postings[k + 1]!);
        }
      }
    }
  });
  return out;
}

/**
 * Which entry of each url id counts across segments (oldest first): the newest. A query counts a
 * posting only when it points at its page's live row, and the corpus statistics (pages, summed
 * length) are those of the live rows.
 */
export class LiveRows {
  /** Url id → segment × 2^32 + row of its live entry; a tombstone is -1 - segment. */
  private readonly live = new Map<string, number>();
  docs = 0;
  totalLength = 0;

  private readonly rows: Array<readonly DocRow[]>;

  constructor(segments: ReadonlyArray<Pick<SegmentData, 'rows' | 'tombstones'>>) {
    this.rows = segments.map((s) => s.rows);
    segments.forEach((segment, s) => {
      for (const id of segment.tombstones) this.set(id, -1 - s, 0);
      segment.rows.forEach((row, i) => this.set(row[0], s * 2 ** 32 + i, row[5]));
    });
  }

  private set(id: string, at: number, length: number): void {
    const before = this.live.get(id);
    if (before !== undefined && before >= 0) {
      this.docs -= 1;
      this.totalLength -= this.rowAt(before)[5];
    }
    this.live.set(id, at);
    if (at >= 0) {
      this.docs += 1;
      this.totalLength += length;
    }
  }

  private rowAt(at: number): DocRow {
    return this.rows[Math.floor(at / 2 ** 32)]![at % 2 ** 32]!;
  }

  /** Whether row `row` of segment `segment` is its page's live entry. */
  isLive(segment: number, row: number): boolean {
    return this.live.get(this.rows[segment]![row]![0]) === segment * 2 ** 32 + row;
  }

  /** The live row of a url id, if it has one. */
  rowOf(urlId: string): DocRow | undefined {
    const at = this.live.get(urlId);
    return at === undefined || at < 0 ? undefined : this.rowAt(at);
  }
}
