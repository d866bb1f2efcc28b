import type { PostedDoc } from '../../search/text-postings.js';
import {
  buildSegment,
  deadRows,
  isDead,
  legacyLiveness,
  markDead,
  mergeRows,
  mergeGroups,
  mergeShards,
  plannedMerge,
  segmentInfo,
  type DocRow,
  type LegacyTable,
  type SegmentInfo,
} from '../../search/text-segments.js';
import { archiveKeys } from '../../ports/archive-keys.js';
import type { DynamoTextManifest } from './dynamo-text-log.js';
import type { S3Objects } from './s3-store.js';
import { objectName, SegmentObjects, TextSnapshot, type TextIndexManifest } from './s3-text-segments.js';

/** How long a container trusts the manifest it read (a newer one is picked up after it). */
const MANIFEST_TTL_MS = 30_000;
/** A merged-away segment's objects (and a replaced dead-row bitset) are deleted this long after: a query that read the manifest before still finds them. */
export const RETIRE_AFTER_MS = 10 * 60_000;

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

/** A level for the one generation an index had before segments: about where merges of 1,000-page folds would have put it. */
function legacyLevel(docs: number): number {
  return Math.max(0, Math.ceil(Math.log(Math.max(1, docs / 1000)) / Math.log(8)));
}

/**
 * The cloud's full-text index: immutable segments in S3, listed by a manifest item that is
 * swapped only by a writer that read the version it replaces. A fold writes what changed as a
 * new segment; merges of the newest segments of a level keep their count logarithmic; what was
 * enriched after the last fold is the delta the store scores beside them (see DynamoEnrichStore).
 */
export class S3TextIndex {
  private cached?: { at: number; snapshot?: TextSnapshot };
  private readonly store: SegmentObjects;

  constructor(
    private readonly objects: S3Objects,
    private readonly cell: DynamoTextManifest,
    /** The wall clock (tests move it to retire segments). */
    private readonly now: () => number = Date.now,
  ) {
    this.store = new SegmentObjects(objects, now);
  }

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
    if (data.rows.length > 0) segments.push(await this.store.write(objectName(builtAt), 0, data));
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
      const table = await this.store.idTable(info);
      const before = await this.store.deadOf(info);
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
      const version = await this.store.putDead(info.id, dead);
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
    const tables = await Promise.all(segments.map((s) => (s.format === 2 ? Promise.resolve(undefined) : this.store.legacyTable(s))));
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
      await this.store.writeRows(info.id, table.rows);
      const anyDead = live < table.rows.length;
      out.push({ ...info, format: 2, live, liveLength, ...(anyDead ? { dead: await this.store.putDead(info.id, dead) } : {}) });
    }
    return out;
  }

  /** Merges consecutive segments into one of the next level (their live rows), a group of output term shards at a time. */
  private async merge(inputs: SegmentInfo[]): Promise<SegmentInfo> {
    const tables: Array<{ rows: DocRow[]; dead?: Uint8Array }> = [];
    for (const s of inputs) tables.push({ rows: await this.store.allRows(s), dead: await this.store.deadOf(s) });
    const plan = mergeRows(tables);
    tables.length = 0;
    const id = objectName(this.now());
    await this.store.writeRows(id, plan.rows);
    // A group of output shards at a time, from the input shards that hold their terms: each input shard is read once.
    for (const group of mergeGroups(
      inputs.map((s) => s.shards),
      plan.shards,
    )) {
      const shards = await Promise.all(inputs.map((s, i) => Promise.all(group.inputs[i]!.map((n) => this.store.readShard(s.id, n)))));
      const merged = mergeShards(group.outputs, plan, shards);
      shards.length = 0;
      for (const [j, shard] of merged) {
        await this.store.putShard(id, j, shard);
        merged.delete(j);
      }
    }
    return segmentInfo(id, inputs[0]!.level + 1, { rows: plan.rows, shards: plan.shards });
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
        const tables = await Promise.all(segments.map((s) => this.store.legacyTable(s)));
        snapshot = new TextSnapshot(this.store, current.manifest, { tables, liveness: legacyLiveness(tables) });
      } else {
        snapshot = new TextSnapshot(this.store, current.manifest);
        this.store.forgetLegacy();
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
