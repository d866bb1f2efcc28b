// A full-text segment's objects in S3 (see `text-segments.ts` for what they hold): written once,
// read when asked and held by their size in a container, and the view of one manifest's segments a
// query reads through them. `s3-text-index.ts` decides which segments exist.
import { LRUCache } from 'lru-cache';
import type { SegmentReader } from '../../search/segment-search.js';
import {
  chunksOf,
  decodeRowFields,
  encodeIdTable,
  encodeRowFields,
  IdTable,
  isDead,
  ROWS_PER_CHUNK,
  rowFields,
  segmentInfo,
  termShardOf,
  type DocRow,
  type LegacyTable,
  type RowFields,
  type SegmentData,
  type SegmentInfo,
  type SegmentLiveness,
  type TermShard,
} from '../../search/text-segments.js';
import { archiveKeys } from '../../ports/archive-keys.js';
import type { S3Objects } from './s3-store.js';

/** Bytes of term shards, row chunks, lengths and dead-row bitsets a container keeps for queries (parsed, estimated). */
const CACHE_BYTES = 256 * 2 ** 20;

export interface TextIndexManifest {
  /** Wall-clock ms when the last fold started: changes logged from then on are the index's delta. */
  builtAt: number;
  /** Oldest first: a page has one live row in them, in the segment that took it last. */
  segments: SegmentInfo[];
  /** Segments merged away (or left with no live row), deleted RETIRE_AFTER_MS (`s3-text-index.ts`) after `at`. */
  retired: Array<SegmentInfo & { at: number }>;
  /** Dead-row bitsets replaced by a newer version, deleted RETIRE_AFTER_MS (`s3-text-index.ts`) after `at`. */
  retiredObjects?: Array<{ key: string; at: number }>;
}

/** A parsed object and about how many bytes it holds in memory. */
interface Held {
  value: unknown;
  bytes: number;
}

/**
 * The segments of one manifest as a query reads them (a `SegmentReader`): corpus statistics from
 * the manifest, each segment's dead rows, lengths, postings and rows read when asked and cached by
 * bytes. An index whose segments are of the earlier layout (no fold has converted them yet) is read
 * from their page tables, held whole, as it was.
 */
export class TextSnapshot implements SegmentReader {
  readonly docs: number;
  readonly totalLength: number;

  constructor(
    private readonly index: SegmentObjects,
    readonly manifest: TextIndexManifest,
    private readonly legacy?: { tables: LegacyTable[]; liveness: SegmentLiveness[] },
  ) {
    const sums = manifest.segments.map((s, i) => legacy?.liveness[i] ?? { live: s.live ?? 0, liveLength: s.liveLength ?? 0 });
    this.docs = sums.reduce((n, s) => n + s.live, 0);
    this.totalLength = sums.reduce((n, s) => n + s.liveLength, 0);
  }

  get segments(): readonly SegmentInfo[] {
    return this.manifest.segments;
  }

  dead(s: number): Promise<Uint8Array | undefined> {
    if (this.legacy) return Promise.resolve(this.legacy.liveness[s]!.dead);
    return this.index.deadOf(this.manifest.segments[s]!);
  }

  async lengths(s: number): Promise<Uint32Array> {
    if (this.legacy) return Uint32Array.from(this.legacy.tables[s]!.rows, (r) => r[5]);
    return this.index.lengthsOf(this.manifest.segments[s]!);
  }

  async fields(s: number): Promise<RowFields> {
    if (this.legacy) return rowFields(this.legacy.tables[s]!.rows);
    return this.index.fieldsOf(this.manifest.segments[s]!);
  }

  async postings(s: number, term: string): Promise<readonly number[]> {
    const info = this.manifest.segments[s]!;
    return (await this.index.shard(info, termShardOf(term, info.shards)))[term] ?? [];
  }

  async rows(s: number, rows: readonly number[]): Promise<DocRow[]> {
    if (this.legacy) return rows.map((i) => this.legacy!.tables[s]!.rows[i]!);
    const info = this.manifest.segments[s]!;
    const chunks = new Map<number, DocRow[]>();
    for (const i of rows) {
      const c = Math.floor(i / ROWS_PER_CHUNK);
      if (!chunks.has(c)) chunks.set(c, await this.index.rowChunk(info, c));
    }
    return rows.map((i) => chunks.get(Math.floor(i / ROWS_PER_CHUNK))![i % ROWS_PER_CHUNK]!);
  }

  /** The url ids given that have a live row in the segments (read from their id tables). */
  async indexed(ids: readonly string[]): Promise<Set<string>> {
    const out = new Set<string>();
    for (let s = 0; s < this.segments.length; s++) {
      if (this.legacy) {
        const wanted = new Set(ids);
        this.legacy.tables[s]!.rows.forEach((r, i) => !isDead(this.legacy!.liveness[s]!.dead, i) && wanted.has(r[0]) && out.add(r[0]));
        continue;
      }
      const table = await this.index.idTable(this.segments[s]!);
      const dead = await this.dead(s);
      for (const id of ids) {
        const at = table.find(id);
        if (at && !isDead(dead, at.row)) out.add(id);
      }
    }
    return out;
  }
}

/** A segment's objects: written whole, read on demand and held by their size. */
export class SegmentObjects {
  /** Page tables of the earlier layout, while an index of them is read unconverted. */
  private readonly legacyTables = new Map<string, Promise<LegacyTable>>();
  private readonly held = new LRUCache<string, Held>({ maxSize: CACHE_BYTES, sizeCalculation: (h) => Math.max(1, h.bytes) });
  private readonly reading = new Map<string, Promise<unknown>>();

  constructor(
    private readonly objects: S3Objects,
    /** The wall clock: a new bitset's version. */
    private readonly now: () => number,
  ) {}

  /** Writes a new version of a segment's dead-row bitset and returns the version. */
  async putDead(id: string, dead: Uint8Array): Promise<string> {
    const version = objectName(this.now());
    await this.objects.put(archiveKeys.textIndexDead(id, version), Buffer.from(dead), 'application/octet-stream');
    return version;
  }

  /** Writes a segment's objects and returns its entry. */
  async write(id: string, level: number, data: SegmentData): Promise<SegmentInfo> {
    await this.writeRows(id, data.rows);
    for (let n = 0; n < data.shards.length; n += 8) {
      await Promise.all(data.shards.slice(n, n + 8).map((shard, j) => this.putShard(id, n + j, shard)));
    }
    return segmentInfo(id, level, { rows: data.rows, shards: data.shards.length });
  }

  /** A segment's page table in chunks, its id table, its rows' filter fields and lengths. */
  async writeRows(id: string, rows: readonly DocRow[]): Promise<void> {
    const chunks = chunksOf(rows.length);
    for (let c = 0; c < chunks; c += 8) {
      await Promise.all(
        Array.from({ length: Math.min(8, chunks - c) }, (_, j) =>
          this.objects.put(
            archiveKeys.textIndexRows(id, c + j),
            JSON.stringify(rows.slice((c + j) * ROWS_PER_CHUNK, (c + j + 1) * ROWS_PER_CHUNK)),
            'application/json',
          ),
        ),
      );
    }
    await this.objects.put(archiveKeys.textIndexIds(id), encodeIdTable(rows), 'application/octet-stream');
    await this.objects.put(archiveKeys.textIndexFields(id), encodeRowFields(rowFields(rows)), 'application/octet-stream');
    const lengths = Uint32Array.from(rows, (r) => r[5]);
    await this.objects.put(archiveKeys.textIndexLengths(id), Buffer.from(lengths.buffer, lengths.byteOffset, lengths.byteLength), 'application/octet-stream');
  }

  /** Every row of a segment, its chunks read in turn. */
  async allRows(info: SegmentInfo): Promise<DocRow[]> {
    const rows: DocRow[] = [];
    for (let c = 0; c < chunksOf(info.docs); c++) for (const r of await this.readJson<DocRow[]>(archiveKeys.textIndexRows(info.id, c), info)) rows.push(r);
    return rows;
  }

  /** An object of a segment, which must be there. */
  private async required(key: string, info: SegmentInfo): Promise<Buffer> {
    const bytes = await this.objects.get(key);
    if (!bytes) throw new Error(`the full-text segment ${info.id} has lost ${key} in S3: restore search/text/${info.id}/ from the bucket's versions`);
    return bytes;
  }

  private async readJson<T>(key: string, info: SegmentInfo): Promise<T> {
    return JSON.parse((await this.required(key, info)).toString()) as T;
  }

  /** A page table of the earlier layout and its tombstones. */
  legacyTable(info: SegmentInfo): Promise<LegacyTable> {
    let got = this.legacyTables.get(info.id);
    if (!got) {
      got = (async () => {
        const rows = await this.readJson<DocRow[]>(archiveKeys.textIndexDocs(info.id), info);
        const tombstones = info.tombstones > 0 ? await this.readJson<string[]>(archiveKeys.textIndexTombstones(info.id), info) : [];
        return { rows, tombstones };
      })();
      this.legacyTables.set(info.id, got);
      got.catch(() => this.legacyTables.delete(info.id));
    }
    return got;
  }

  /** An object read once and held by its size, shared by the queries that ask for it meanwhile. */
  private hold<T>(key: string, read: () => Promise<Held>): Promise<T> {
    const have = this.held.get(key);
    if (have) return Promise.resolve(have.value as T);
    let pending = this.reading.get(key) as Promise<T> | undefined;
    if (!pending) {
      pending = read().then((h) => {
        this.held.set(key, h);
        return h.value as T;
      });
      this.reading.set(key, pending);
      void pending.then(
        () => this.reading.delete(key),
        () => this.reading.delete(key),
      );
    }
    return pending;
  }

  /** A term shard of a segment. */
  shard(info: SegmentInfo, n: number): Promise<TermShard> {
    return this.hold(archiveKeys.textIndexShard(info.id, n), async () => {
      const bytes = await this.objects.get(archiveKeys.textIndexShard(info.id, n));
      // Parsed numbers take about four times their JSON digits.
      return { value: bytes ? (JSON.parse(bytes.toString()) as TermShard) : {}, bytes: 4 * (bytes?.length ?? 0) };
    });
  }

  /** Chunk `c` of a segment's page table. */
  rowChunk(info: SegmentInfo, c: number): Promise<DocRow[]> {
    const key = archiveKeys.textIndexRows(info.id, c);
    return this.hold(key, async () => {
      const rows = await this.readJson<DocRow[]>(key, info);
      return { value: rows, bytes: 200 * rows.length };
    });
  }

  /** A binary object of a segment, decoded and held by its size. */
  private holdBinary<T>(info: SegmentInfo, key: string, decode: (bytes: Buffer) => T): Promise<T> {
    return this.hold(key, async () => {
      const bytes = await this.required(key, info);
      return { value: decode(bytes), bytes: bytes.length };
    });
  }

  /** The weighted length of each row of a segment. */
  lengthsOf(info: SegmentInfo): Promise<Uint32Array> {
    return this.holdBinary(info, archiveKeys.textIndexLengths(info.id), (bytes) => {
      const lengths = new Uint32Array(bytes.length / 4);
      Buffer.from(lengths.buffer).set(bytes);
      return lengths;
    });
  }

  /** A segment's filter fields by row. */
  fieldsOf(info: SegmentInfo): Promise<RowFields> {
    return this.holdBinary(info, archiveKeys.textIndexFields(info.id), decodeRowFields);
  }

  /** A segment's dead-row bitset, if a fold has marked any of its rows dead. */
  deadOf(info: SegmentInfo): Promise<Uint8Array | undefined> {
    if (!info.dead) return Promise.resolve(undefined);
    return this.holdBinary(info, archiveKeys.textIndexDead(info.id, info.dead), (bytes) => new Uint8Array(bytes));
  }

  /** A segment's id table (read by folds, not held). */
  async idTable(info: SegmentInfo): Promise<IdTable> {
    return new IdTable(await this.required(archiveKeys.textIndexIds(info.id), info));
  }

  async readShard(id: string, n: number): Promise<TermShard> {
    const bytes = await this.objects.get(archiveKeys.textIndexShard(id, n));
    return bytes ? (JSON.parse(bytes.toString()) as TermShard) : {};
  }

  /** Writes term shard `n` of a segment. */
  putShard(id: string, n: number, shard: TermShard): Promise<void> {
    return this.objects.put(archiveKeys.textIndexShard(id, n), JSON.stringify(shard), 'application/json');
  }

  /** Forgets the page tables of the earlier layout (once no segment in the manifest has it). */
  forgetLegacy(): void {
    this.legacyTables.clear();
  }
}

/** A name for a segment or a bitset version written at `at` (ms): unique between writers. */
export function objectName(at: number): string {
  return `${at.toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
}
