import type { PostedDoc } from '../../search/text-postings.js';
import {
  buildSegment,
  inputShardsFor,
  LiveRows,
  mergeRows,
  mergeShard,
  plannedMerge,
  termShardOf,
  type DocRow,
  type SegmentData,
  type SegmentInfo,
  type TermShard,
} from '../../search/text-segments.js';
import { archiveKeys } from '../../ports/archive-keys.js';
import type { DynamoTextManifest } from './dynamo-text-log.js';
import type { S3Objects } from './s3-store.js';

/** How long a container trusts the manifest it read (a newer one is picked up after it). */
const MANIFEST_TTL_MS = 30_000;
/** Term shards kept in memory per container. */
const SHARD_CACHE = 256;
/** A merged-away segment's objects are deleted this long after the merge: a query that read the manifest before still finds them. */
export const RETIRE_AFTER_MS = 10 * 60_000;

export interface TextIndexManifest {
  /** Wall-clock ms when the last fold started: changes logged from then on are the index's delta. */
  builtAt: number;
  /** Oldest first: a page's entry in a later segment replaces its entries in earlier ones. */
  segments: SegmentInfo[];
  /** Segments merged away, deleted RETIRE_AFTER_MS after `at`. */
  retired: Array<SegmentInfo & { at: number }>;
}

/** What a fold did. */
export interface TextFold {
  /** The fold was committed (false: another fold committed first; the log keeps its changes for the next). */
  committed: boolean;
  /** Pages and tombstones written in the new segment. */
  folded: number;
  deleted: number;
  /** Segments the index has after the fold and its merges, and how many merges ran. */
  segments: number;
  merges: number;
}

const segmentKeys = (s: SegmentInfo): string[] => [
  archiveKeys.textIndexDocs(s.id),
  ...(s.tombstones > 0 ? [archiveKeys.textIndexTombstones(s.id)] : []),
  ...Array.from({ length: s.shards }, (_, n) => archiveKeys.textIndexShard(s.id, n)),
];

/** A level for the one generation an index had before segments: about where merges of 1,000-page folds would have put it. */
function legacyLevel(docs: number): number {
  return Math.max(0, Math.ceil(Math.log(Math.max(1, docs / 1000)) / Math.log(8)));
}

/** The segments of one manifest as a query reads them: rows, which entry of each page is live, postings on demand. */
export class TextSnapshot {
  readonly live: LiveRows;

  constructor(
    private readonly index: S3TextIndex,
    readonly manifest: TextIndexManifest,
    readonly segments: ReadonlyArray<Pick<SegmentData, 'rows' | 'tombstones'>>,
    live?: LiveRows,
  ) {
    this.live = live ?? new LiveRows(segments);
  }

  /** The term's postings in segment `s`: row positions and weighted frequencies, interleaved. */
  async postings(s: number, term: string): Promise<number[]> {
    const info = this.manifest.segments[s]!;
    return (await this.index.shard(info, termShardOf(term, info.shards)))[term] ?? [];
  }

  row(s: number, i: number): DocRow {
    return this.segments[s]!.rows[i]!;
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
  private readonly loaded = new Map<string, Promise<Pick<SegmentData, 'rows' | 'tombstones'>>>();
  private readonly shards = new Map<string, Promise<TermShard>>();

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
   * entry is gone), then runs the merges that are due and deletes segments retired long enough.
   * `builtAt` is when the fold started reading the change log, `current` the manifest it read
   * then: the fold is committed only if no other fold committed since.
   */
  async fold(current: { version: number; manifest: TextIndexManifest } | undefined, docs: PostedDoc[], deleted: string[], builtAt: number): Promise<TextFold> {
    const base: TextIndexManifest = current?.manifest ?? { builtAt: 0, segments: [], retired: [] };
    const data = buildSegment(docs, deleted);
    const segments = [...base.segments];
    if (data.rows.length + data.tombstones.length > 0) segments.push(await this.write(`${builtAt.toString(36)}-${random()}`, 0, data));
    let version = current?.version ?? 0;
    let next: TextIndexManifest = { builtAt: Math.max(base.builtAt, builtAt), segments, retired: base.retired };
    const out: TextFold = { committed: false, folded: data.rows.length, deleted: data.tombstones.length, segments: segments.length, merges: 0 };
    if (!(await this.cell.swap(JSON.stringify(next), version))) return out;
    out.committed = true;
    version += 1;
    for (let from = plannedMerge(next.segments); from !== undefined; from = plannedMerge(next.segments)) {
      const inputs = next.segments.slice(from);
      const merged = await this.merge(inputs, from > 0);
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
    const due = next.retired.filter((s) => this.now() - s.at >= RETIRE_AFTER_MS);
    if (due.length > 0) {
      await this.objects.deleteMany(due.flatMap(segmentKeys));
      const after = { ...next, retired: next.retired.filter((s) => !due.includes(s)) };
      if (await this.cell.swap(JSON.stringify(after), version)) next = after;
    }
    out.segments = next.segments.length;
    this.cached = undefined;
    return out;
  }

  /** Writes a segment's objects and returns its entry. */
  private async write(id: string, level: number, data: SegmentData): Promise<SegmentInfo> {
    const info: SegmentInfo = { id, level, docs: data.rows.length, tombstones: data.tombstones.length, shards: data.shards.length };
    await this.writeTable(id, data);
    for (let n = 0; n < data.shards.length; n += 8) {
      await Promise.all(
        data.shards.slice(n, n + 8).map((shard, j) => this.objects.put(archiveKeys.textIndexShard(id, n + j), JSON.stringify(shard), 'application/json')),
      );
    }
    return info;
  }

  /** Merges consecutive segments into one of the next level, one output term shard at a time. */
  private async merge(inputs: SegmentInfo[], olderRemain: boolean): Promise<SegmentInfo> {
    const plan = mergeRows(await Promise.all(inputs.map((s) => this.segment(s))), olderRemain);
    const id = `${this.now().toString(36)}-${random()}`;
    const info: SegmentInfo = { id, level: inputs[0]!.level + 1, docs: plan.rows.length, tombstones: plan.tombstones.length, shards: plan.shards };
    await this.writeTable(id, plan);
    for (let j = 0; j < plan.shards; j++) {
      // An input shard is read for each output shard it feeds (several when it has fewer shards): S3 reads, not memory.
      const shards = await Promise.all(inputs.map((s) => Promise.all(inputShardsFor(j, s.shards, plan.shards).map((n) => this.readShard(s.id, n)))));
      await this.objects.put(archiveKeys.textIndexShard(id, j), JSON.stringify(mergeShard(j, plan, shards)), 'application/json');
    }
    return info;
  }

  /** A segment's page table, and its tombstones when it has any. */
  private async writeTable(id: string, table: Pick<SegmentData, 'rows' | 'tombstones'>): Promise<void> {
    await this.objects.put(archiveKeys.textIndexDocs(id), JSON.stringify(table.rows), 'application/json');
    if (table.tombstones.length > 0) await this.objects.put(archiveKeys.textIndexTombstones(id), JSON.stringify(table.tombstones), 'application/json');
  }

  /** A segment's rows and tombstones (cached: segments never change). */
  segment(info: SegmentInfo): Promise<Pick<SegmentData, 'rows' | 'tombstones'>> {
    let got = this.loaded.get(info.id);
    if (!got) {
      got = (async () => {
        const rows = await this.objects.get(archiveKeys.textIndexDocs(info.id));
        if (!rows) throw new Error(`the full-text segment ${info.id} has no page table in S3: restore search/text/${info.id}/ from the bucket's versions`);
        const tombstones = info.tombstones > 0 ? await this.objects.get(archiveKeys.textIndexTombstones(info.id)) : undefined;
        return { rows: JSON.parse(rows.toString()) as DocRow[], tombstones: tombstones ? (JSON.parse(tombstones.toString()) as string[]) : [] };
      })();
      this.loaded.set(info.id, got);
      got.catch(() => this.loaded.delete(info.id));
    }
    return got;
  }

  /** A term shard of a segment (cached for queries). */
  shard(info: SegmentInfo, n: number): Promise<TermShard> {
    const key = `${info.id}/${n}`;
    let shard = this.shards.get(key);
    if (!shard) {
      if (this.shards.size >= SHARD_CACHE) this.shards.delete(this.shards.keys().next().value!);
      shard = this.readShard(info.id, n);
      this.shards.set(key, shard);
      shard.catch(() => this.shards.delete(key));
    }
    return shard;
  }

  private async readShard(id: string, n: number): Promise<TermShard> {
    const bytes = await this.objects.get(archiveKeys.textIndexShard(id, n));
    return bytes ? (JSON.parse(bytes.toString()) as TermShard) : {};
  }

  /** The current segments as a query reads them, or undefined before the first fold. */
  async snapshot(now = Date.now()): Promise<TextSnapshot | undefined> {
    if (this.cached && now - this.cached.at < MANIFEST_TTL_MS) return this.cached.snapshot;
    const current = await this.manifest();
    let snapshot = this.cached?.snapshot;
    if (!current) snapshot = undefined;
    else if (!snapshot || JSON.stringify(snapshot.manifest.segments) !== JSON.stringify(current.manifest.segments)) {
      const segments = await Promise.all(current.manifest.segments.map((s) => this.segment(s)));
      snapshot = new TextSnapshot(this, current.manifest, segments);
      // Segments merged away are not read again by this container.
      const kept = new Set(current.manifest.segments.map((s) => s.id));
      for (const id of this.loaded.keys()) if (!kept.has(id)) this.loaded.delete(id);
    } else snapshot = new TextSnapshot(this, current.manifest, snapshot.segments, snapshot.live);
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
