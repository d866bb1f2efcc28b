// BM25 over the segments of the cloud's full-text index, holding a bounded amount whatever the
// index holds: segments are read one at a time, a posting's liveness is one bit, corpus statistics
// come from the manifest, filters are tested on the segment's field columns (each distinct value
// once), and only the best hits' rows are read.
import type { SearchFilters, TextHit } from '../ports/index.js';
import { bm25, fieldFilters, passesFilters, type CorpusStats, type PostedDoc } from './text-postings.js';
import { isDead, type DocRow, type RowFields, type SegmentInfo } from './text-segments.js';

/** BM25's usual constants (as `bm25`). */
const K1 = 1.2;
const B = 0.75;

/** What a query reads of the segments of one manifest. */
export interface SegmentReader {
  readonly segments: readonly SegmentInfo[];
  /** Live pages and their summed weighted length, over every segment. */
  readonly docs: number;
  readonly totalLength: number;
  /** The weighted length of each row of the segment. */
  lengths(s: number): Promise<Uint32Array>;
  /** The segment's dead-row bitset (none: every row is live). */
  dead(s: number): Promise<Uint8Array | undefined>;
  /** The term's postings in the segment: row and weighted frequency, interleaved. */
  postings(s: number, term: string): Promise<readonly number[]>;
  /** The segment's filter fields by row. */
  fields(s: number): Promise<RowFields>;
  /** Rows of the segment, in the order asked. */
  rows(s: number, rows: readonly number[]): Promise<DocRow[]>;
}

/** Pages changed since the segments were folded: their entries in the segments no longer count as hits. */
export interface TextDelta {
  replaced: ReadonlySet<string>;
  fresh: readonly PostedDoc[];
}

interface Candidate {
  score: number;
  s: number;
  row: number;
  urlId?: string;
}

const hasFilters = (f: SearchFilters): boolean => Boolean(f.domain || f.language || f.since || f.until || (f.tags && f.tags.length > 0));

/** Which rows of a segment pass the filters: each field's distinct values tested once. */
function passingRows(fields: RowFields, filters: SearchFilters): (row: number) => boolean {
  const p = fieldFilters(filters);
  const host = fields.hosts.map((h) => p.host(h));
  const language = fields.languages.map((l) => p.language(l ?? undefined));
  const published = fields.published.map((d) => p.published(d ?? undefined));
  const tags = fields.tags.map((t) => p.tags(t));
  const ids = fields.ids;
  return (row) => host[ids[4 * row]!]! && language[ids[4 * row + 1]!]! && published[ids[4 * row + 2]!]! && tags[ids[4 * row + 3]!]!;
}

/**
 * The best `limit` pages for the query's index terms, over the segments and the pages changed
 * since (each scored as the page is now). A changed page's segment entry still counts in the
 * corpus statistics until the next fold takes it, as deleted documents count in Lucene's until a
 * merge: a fold's backlog is bounded, so the statistics move by that much at most.
 */
export async function searchSegments(
  reader: SegmentReader,
  query: readonly string[],
  delta: TextDelta,
  filters: SearchFilters,
  limit: number,
): Promise<TextHit[]> {
  const df = new Map<string, number>();
  for (let s = 0; s < reader.segments.length; s++) {
    const dead = await reader.dead(s);
    for (const t of query) {
      const list = await reader.postings(s, t);
      let n = 0;
      for (let j = 0; j < list.length; j += 2) if (!isDead(dead, list[j]!)) n += 1;
      if (n > 0) df.set(t, (df.get(t) ?? 0) + n);
    }
  }
  let docs = reader.docs;
  let totalLength = reader.totalLength;
  for (const d of delta.fresh) {
    docs += 1;
    totalLength += d.length;
    for (const t of query) if (d.terms.has(t)) df.set(t, (df.get(t) ?? 0) + 1);
  }
  const stats: CorpusStats = { docs, totalLength, df: (t) => df.get(t) ?? 0 };
  const filtered = hasFilters(filters);
  const top = new TopCandidates(limit + delta.replaced.size);
  for (let s = 0; s < reader.segments.length; s++) {
    const { rows, scores } = await scoreSegment(reader, s, query, stats);
    if (rows.length === 0) continue;
    const passes = filtered ? passingRows(await reader.fields(s), filters) : () => true;
    for (const row of rows) if (passes(row)) top.add({ score: scores[row]!, s, row });
  }
  const hits = await top.hits(reader, delta.replaced, limit);
  for (const d of delta.fresh) {
    if (!passesFilters(d, filters)) continue;
    const score = bm25(d, [...query], stats);
    if (score > 0) hits.push({ urlId: d.urlId, score });
  }
  return hits.sort((a, b) => b.score - a.score || (a.urlId < b.urlId ? -1 : 1)).slice(0, limit);
}

/** BM25 of the live rows of one segment that hold a query term: those rows, and the scores by row (a typed array of the segment's rows). */
async function scoreSegment(reader: SegmentReader, s: number, query: readonly string[], stats: CorpusStats): Promise<{ rows: number[]; scores: Float64Array }> {
  const dead = await reader.dead(s);
  const avgdl = Math.max(stats.docs > 0 ? stats.totalLength / stats.docs : 1, 1e-9);
  let lengths: Uint32Array | undefined;
  let scores: Float64Array | undefined;
  const touched: number[] = [];
  for (const t of query) {
    const df = stats.df(t);
    if (df === 0) continue;
    const list = await reader.postings(s, t);
    if (list.length === 0) continue;
    lengths ??= await reader.lengths(s);
    const into = (scores ??= new Float64Array(lengths.length));
    const idf = Math.log(1 + (stats.docs - df + 0.5) / (df + 0.5));
    for (let j = 0; j < list.length; j += 2) {
      const row = list[j]!;
      if (isDead(dead, row)) continue;
      const tf = list[j + 1]!;
      if (into[row] === 0) touched.push(row);
      into[row] = into[row]! + (idf * tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * lengths[row]!) / avgdl));
    }
  }
  return { rows: touched, scores: scores ?? new Float64Array() };
}

/**
 * The best candidates seen so far: at least `keep` of them and every one tied with the last kept
 * (ties are broken by url id, which is read only for the candidates left at the end).
 */
class TopCandidates {
  private items: Candidate[] = [];
  private floor = -Infinity;

  constructor(private readonly keep: number) {}

  add(c: Candidate): void {
    if (c.score < this.floor) return;
    this.items.push(c);
    if (this.items.length > 2 * this.keep + 1024) this.prune();
  }

  private prune(): void {
    this.items.sort((a, b) => b.score - a.score);
    this.floor = this.items[this.keep - 1]!.score;
    let end = this.keep;
    while (end < this.items.length && this.items[end]!.score === this.floor) end += 1;
    this.items.length = end;
  }

  /** The best `limit` hits whose pages were not changed since, read in score order. */
  async hits(reader: SegmentReader, replaced: ReadonlySet<string>, limit: number): Promise<TextHit[]> {
    this.items.sort((a, b) => b.score - a.score);
    const out: TextHit[] = [];
    // Ties with the last hit are read for their url ids (the order's tie-break), up to a bound: a
    // query whose best pages all score alike would read every row otherwise.
    const tieBound = 4 * limit + 64;
    for (let k = 0; k < this.items.length;) {
      const last = out.at(-1);
      if (out.length >= limit && last && (this.items[k]!.score < last.score || k >= tieBound)) break;
      const batch = this.items.slice(k, k + Math.max(limit, 16));
      k += batch.length;
      await Promise.all(
        batch.map(async (c) => {
          c.urlId ??= (await reader.rows(c.s, [c.row]))[0]![0];
        }),
      );
      for (const c of batch) if (!replaced.has(c.urlId!)) out.push({ urlId: c.urlId!, score: c.score });
    }
    return out;
  }
}
