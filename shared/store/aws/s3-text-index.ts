import { LRUCache } from 'lru-cache';
import type { SegmentReader } from '../../search/segment-search.js';
import type { PostedDoc } from '../../search/text-postings.js';
import {
  buildSegment,
  chunksOf,
  deadRows,
  decodeRowFields,
  encodeRowFields,
  encodeIdTable,
  IdTable,
  isDead,
  legacyLiveness,
  markDead,
  mergeRows,
  mergeGroups,
  mergeShards,
  plannedMerge,
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
import type { DynamoTextManifest } from './dynamo-text-log.js';
import type { S3Objects } from './s3-store.js';

/** How long a container trusts the manifest it read (a newer one is picked up after it). */
const MANIFEST_TTL_MS = 30_000;
/** Bytes of term shards, row chunks, lengths and dead-row bitsets a container keeps for queries (parsed, estimated). */
const CACHE_BYTES = 256 * 2 ** 20;
/** A merged-away segment's objects (and a replaced dead-row bitset) are deleted this long after: a query that read the manifest before still finds them. */
export const RETIRE_AFTER_MS = 10 * 60_000;

export interface TextIndexManifest {
  /** Wall-clock ms when the last fold started: changes logged from then on are the index's delta. */
  builtAt: number;
  /** Oldest first: a page has one live row in them, in the segment that took it last. */
  segments: SegmentInfo[];
  /** Segments merged away (or left with no live row), deleted RETIRE_AFTER_MS after `at`. */
  retired: Array<SegmentInfo & { at: number }>;
  /** Dead-row bitsets replaced by a newer version, deleted RETIRE_AFTER_MS after `at`. */
  retiredObjects?: Array<{ key: string; at: number }>;
}

/** What a fold did. */
export interface TextFold {
  /** The fold was committed (false: another fold committed first; the log keeps its changes for the next). */
  committed: boolean;
  /** Pages written in the new segment, and pages deleted (an older row marked dead, no new one). */
  folded: number;
  deleted: number;
  /** Segments the index has after the fold and its merges, and how many merges ran. */
  segments: number;
  merges: number;
}

/** A parsed object and about how many bytes it holds in memory. */
interface Held {
  value: unknown;
  bytes: number;
}

/** A level for the one generation an index had before segments: about where merges of 1,000-page folds would have put it. */
function legacyLevel(docs: number): number {
  return Math.max(0, Math.ceil(Math.log(Math.max(1, docs / 1000)) / Math.log(8)));
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
    private readonly index: S3TextIndex,
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

/**
 * The cloud's full-text index: immutable segments in S3, listed by a manifest item that is
 * swapped only by a writer that read the version it replaces. A fold writes what changed as a
 * new segment; merges of the newest segments of a level keep their count logarithmic; what was
 * enriched after the last fold is the delta the store scores beside them (see DynamoEnrichStore).
 */
export class S3TextIndex {
  private cached?: { at: number; snapshot?: TextSnapshot };
  /** Page tables of the earlier layout, while an index of them is read unconverted. */
  private readonly legacyTables = new Map<string, Promise<LegacyTable>>();
  private readonly held = new LRUCache<string, Held>({ maxSize: CACHE_BYTES, sizeCalculation: (h) => Math.max(1, h.bytes) });
  private readonly reading = new Map<string, Promise<unknown>>();

  constructor(
    private readonly objects: S3Objects,
    private readonly cell: DynamoTextManifest,
    /** The wall clock (tests move it to retire segments). */
    private readonly now: () => number = Date.now,
  ) {}

  /** The stored manifest and its version; an index from before segments reads as its one generation (version 0). */
  async manifest(): Promise<{ version: number; manifest: TextIndexManifest } | undefined> {
    const stored = await this.cell.read();
    if (stored) return { version: stored.version, manifest: JSON.parse(stored.manifest) as TextIndexManifest };
    const raw = await this.objects.get(archiveKeys.textIndexManifest());
    if (!raw) return undefined;
    const old = JSON.parse(raw.toString()) as { generation: string; builtAt: number; docs: number; shards: number };
    return {
      version: 0,
      manifest: {
        builtAt: old.builtAt,
        segments: [{ id: old.generation, level: legacyLevel(old.docs), docs: old.docs, tombstones: 0, shards: old.shards }],
        retired: [],
      },
    };
  }

  /**
   * Folds changed pages in as a new segment (`docs` as they are now; `deleted`, url ids whose
   * entry is gone): their rows in older segments are marked dead first. Then runs the merges that
   * are due and deletes what was retired long enough. `builtAt` is when the fold started reading
   * the change log, `current` the manifest it read then: the fold is committed only if no other
   * fold committed since. Segments of the earlier layout are converted first.
   */
  async fold(current: { version: number; manifest: TextIndexManifest } | undefined, docs: PostedDoc[], deleted: string[], builtAt: number): Promise<TextFold> {
    const base: TextIndexManifest = current?.manifest ?? { builtAt: 0, segments: [], retired: [] };
    const data = buildSegment(docs);
    const folded = new Set(data.rows.map((r) => r[0]));
    const gone = [...new Set(deleted)].filter((id) => !folded.has(id));
    const retiredObjects = [...(base.retiredObjects ?? [])];
    const retired = [...base.retired];
    const marked = await this.markDead(await this.converted(base.segments), [...folded, ...gone], retiredObjects);
    const segments = marked.filter((s) => s.live! > 0);
    for (const s of marked) if (s.live === 0) retired.push({ ...s, at: this.now() });
    if (data.rows.length > 0) segments.push(await this.write(`${builtAt.toString(36)}-${random()}`, 0, data));
    let version = current?.version ?? 0;
    let next: TextIndexManifest = { builtAt: Math.max(base.builtAt, builtAt), segments, retired, retiredObjects };
    const out: TextFold = { committed: false, folded: data.rows.length, deleted: gone.length, segments: segments.length, merges: 0 };
    if (!(await this.cell.swap(JSON.stringify(next), version))) return out;
    out.committed = true;
    version += 1;
    for (let from = plannedMerge(next.segments); from !== undefined; from = plannedMerge(next.segments)) {
      const inputs = next.segments.slice(from);
      const merged = await this.merge(inputs);
      const after: TextIndexManifest = {
        ...next,
        segments: [...next.segments.slice(0, from), merged],
        retired: [...next.retired, ...inputs.map((s) => ({ ...s, at: this.now() }))],
      };
      if (!(await this.cell.swap(JSON.stringify(after), version))) break;
      version += 1;
      next = after;
      out.merges += 1;
    }
    next = await this.sweep(next, version);
    out.segments = next.segments.length;
    this.cached = undefined;
    return out;
  }

  /** Deletes the objects of segments and bitsets retired long enough, and drops them from the manifest. */
  private async sweep(manifest: TextIndexManifest, version: number): Promise<TextIndexManifest> {
    const due = (at: number) => this.now() - at >= RETIRE_AFTER_MS;
    const segments = manifest.retired.filter((s) => due(s.at));
    const objects = (manifest.retiredObjects ?? []).filter((o) => due(o.at));
    if (segments.length + objects.length === 0) return manifest;
    const keys = objects.map((o) => o.key);
    // A segment's prefix whole: its page table and every bitset version, a lost fold's ones too.
    for (const s of segments) keys.push(...(await this.objects.list(`${archiveKeys.textIndex()}${s.id}/`)).map((o) => o.key));
    await this.objects.deleteMany(keys);
    const after = {
      ...manifest,
      retired: manifest.retired.filter((s) => !segments.includes(s)),
      retiredObjects: (manifest.retiredObjects ?? []).filter((o) => !objects.includes(o)),
    };
    return (await this.cell.swap(JSON.stringify(after), version)) ? after : manifest;
  }

  /**
   * Marks dead the rows the url ids have in the segments (oldest first), one segment at a time:
   * a segment with rows newly dead gets a new version of its bitset, and its live sums go down.
   */
  private async markDead(segments: SegmentInfo[], ids: string[], retiredObjects: Array<{ key: string; at: number }>): Promise<SegmentInfo[]> {
    if (ids.length === 0) return segments;
    const out: SegmentInfo[] = [];
    for (const info of segments) {
      const table = await this.idTable(info);
      const before = await this.deadOf(info);
      let dead: Uint8Array | undefined;
      let live = info.live!;
      let liveLength = info.liveLength!;
      for (const id of ids) {
        const at = table.find(id);
        if (!at || isDead(dead ?? before, at.row)) continue;
        dead ??= deadRows(info.docs, before);
        markDead(dead, at.row);
        live -= 1;
        liveLength -= at.length;
      }
      if (!dead) {
        out.push(info);
        continue;
      }
      const version = await this.putDead(info.id, dead);
      if (info.dead) retiredObjects.push({ key: archiveKeys.textIndexDead(info.id, info.dead), at: this.now() });
      out.push({ ...info, dead: version, live, liveLength });
    }
    return out;
  }

  /**
   * Segments of the earlier layout converted: each one's page table written in chunks with its id
   * table and lengths, and the rows its newer entries (or tombstones) hid marked dead. Their term
   * shards stay as they are. Reads every such page table once (the first fold after an upgrade).
   */
  private async converted(segments: SegmentInfo[]): Promise<SegmentInfo[]> {
    if (segments.every((s) => s.format === 2)) return segments;
    const tables = await Promise.all(segments.map((s) => (s.format === 2 ? Promise.resolve(undefined) : this.legacyTable(s))));
    const legacy = tables.filter((t): t is LegacyTable => t !== undefined);
    const liveness = legacyLiveness(legacy);
    let k = 0;
    const out: SegmentInfo[] = [];
    for (let i = 0; i < segments.length; i++) {
      const table = tables[i];
      if (!table) {
        out.push(segments[i]!);
        continue;
      }
      const info = segments[i]!;
      const { dead, live, liveLength } = liveness[k++]!;
      await this.writeRows(info.id, table.rows);
      const anyDead = live < table.rows.length;
      out.push({ ...info, format: 2, live, liveLength, ...(anyDead ? { dead: await this.putDead(info.id, dead) } : {}) });
    }
    return out;
  }

  /** Writes a new version of a segment's dead-row bitset and returns the version. */
  private async putDead(id: string, dead: Uint8Array): Promise<string> {
    const version = `${this.now().toString(36)}-${random()}`;
    await this.objects.put(archiveKeys.textIndexDead(id, version), Buffer.from(dead), 'application/octet-stream');
    return version;
  }

  /** Writes a segment's objects and returns its entry. */
  private async write(id: string, level: number, data: SegmentData): Promise<SegmentInfo> {
    await this.writeRows(id, data.rows);
    for (let n = 0; n < data.shards.length; n += 8) {
      await Promise.all(
        data.shards.slice(n, n + 8).map((shard, j) => this.objects.put(archiveKeys.textIndexShard(id, n + j), JSON.stringify(shard), 'application/json')),
      );
    }
    return segmentInfo(id, level, { rows: data.rows, shards: data.shards.length });
  }

  /** A segment's page table in chunks, its id table, its rows' filter fields and lengths. */
  private async writeRows(id: string, rows: readonly DocRow[]): Promise<void> {
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

  /** Merges consecutive segments into one of the next level (their live rows), a group of output term shards at a time. */
  private async merge(inputs: SegmentInfo[]): Promise<SegmentInfo> {
    const tables: Array<{ rows: DocRow[]; dead?: Uint8Array }> = [];
    for (const s of inputs) tables.push({ rows: await this.allRows(s), dead: await this.deadOf(s) });
    const plan = mergeRows(tables);
    tables.length = 0;
    const id = `${this.now().toString(36)}-${random()}`;
    await this.writeRows(id, plan.rows);
    // A group of output shards at a time, from the input shards that hold their terms: each input shard is read once.
    for (const group of mergeGroups(
      inputs.map((s) => s.shards),
      plan.shards,
    )) {
      const shards = await Promise.all(inputs.map((s, i) => Promise.all(group.inputs[i]!.map((n) => this.readShard(s.id, n)))));
      const merged = mergeShards(group.outputs, plan, shards);
      shards.length = 0;
      for (const [j, shard] of merged) {
        await this.objects.put(archiveKeys.textIndexShard(id, j), JSON.stringify(shard), 'application/json');
        merged.delete(j);
      }
    }
    return segmentInfo(id, inputs[0]!.level + 1, { rows: plan.rows, shards: plan.shards });
  }

  /** Every row of a segment, its chunks read in turn. */
  private async allRows(info: SegmentInfo): Promise<DocRow[]> {
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
  private legacyTable(info: SegmentInfo): Promise<LegacyTable> {
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

  private async readShard(id: string, n: number): Promise<TermShard> {
    const bytes = await this.objects.get(archiveKeys.textIndexShard(id, n));
    return bytes ? (JSON.parse(bytes.toString()) as TermShard) : {};
  }

  /** The current segments as a query reads them, or undefined before the first fold. */
  async snapshot(now = Date.now()): Promise<TextSnapshot | undefined> {
    if (this.cached && now - this.cached.at < MANIFEST_TTL_MS) return this.cached.snapshot;
    const current = await this.manifest();
    let snapshot: TextSnapshot | undefined;
    if (current) {
      const segments = current.manifest.segments;
      const legacy = segments.some((s) => s.format !== 2);
      if (legacy) {
        const tables = await Promise.all(segments.map((s) => this.legacyTable(s)));
        snapshot = new TextSnapshot(this, current.manifest, { tables, liveness: legacyLiveness(tables) });
      } else {
        snapshot = new TextSnapshot(this, current.manifest);
        this.legacyTables.clear();
      }
    }
    this.cached = { at: now, snapshot };
    return snapshot;
  }

  /** Forgets the cached manifest (after another container folded changes in). */
  refresh(): void {
    this.cached = undefined;
  }
}

function random(): string {
  return Math.random().toString(36).slice(2, 8);
}
