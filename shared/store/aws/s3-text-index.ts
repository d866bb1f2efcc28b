import { fnv1a } from '../../enrich/local-embedding.js';
import type { PostedDoc } from '../../search/text-postings.js';
import { archiveKeys } from '../archive-keys.js';
import type { S3Objects } from './s3-store.js';

/** Term shards of a generation: a query reads one object per distinct query term. */
export const TEXT_SHARDS = 64;
/** How long a container trusts the manifest it read (a newer generation is picked up after it). */
const MANIFEST_TTL_MS = 30_000;
/** Term shards kept in memory per container (a shard of a 100k-page index is a few MB). */
const SHARD_CACHE = 48;

export interface TextIndexManifest {
  generation: string;
  /** Wall-clock ms when the build started: enrichments logged from then on are the index's delta. */
  builtAt: number;
  docs: number;
  totalLength: number;
  shards: number;
}

/** A document row of a generation: url id, host, language, published, tags, weighted length. */
type DocRow = [string, string, string | null, string | null, string[], number];

export function shardOf(term: string, shards = TEXT_SHARDS): number {
  return fnv1a(term) % shards;
}

/** One generation of the index as a query reads it. */
export class TextSnapshot {
  readonly positions: Map<string, number>;
  private readonly shards = new Map<number, Promise<Record<string, number[]>>>();

  constructor(
    private readonly objects: S3Objects,
    readonly manifest: TextIndexManifest,
    readonly docs: DocRow[],
  ) {
    this.positions = new Map(docs.map((d, i) => [d[0], i]));
  }

  doc(i: number): Omit<PostedDoc, 'terms'> {
    const [urlId, host, language, published, tags, length] = this.docs[i]!;
    return { urlId, host, language: language ?? undefined, published: published ?? undefined, tags, length };
  }

  /** The term's postings: document positions and weighted frequencies, interleaved. */
  async postings(term: string): Promise<number[]> {
    const n = shardOf(term, this.manifest.shards);
    let shard = this.shards.get(n);
    if (!shard) {
      if (this.shards.size >= SHARD_CACHE) this.shards.delete(this.shards.keys().next().value!);
      shard = this.objects.get(archiveKeys.textIndexShard(this.manifest.generation, n)).then((b) => (b ? JSON.parse(b.toString()) : {}));
      this.shards.set(n, shard);
      shard.catch(() => this.shards.delete(n));
    }
    return (await shard)[term] ?? [];
  }
}

/**
 * The cloud's full-text index: immutable generations in S3 (a document table and term shards),
 * built from the enrichment items and switched atomically by rewriting one manifest. What was
 * enriched after a build is the delta the store scores beside it (see DynamoEnrichStore).
 */
export class S3TextIndex {
  private cached?: { at: number; snapshot?: TextSnapshot };

  constructor(private readonly objects: S3Objects) {}

  /** Writes a new generation from every document and makes it current. */
  async build(docs: AsyncIterable<PostedDoc>, builtAt: number, shards = TEXT_SHARDS): Promise<TextIndexManifest> {
    const generation = `${builtAt.toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
    const rows: DocRow[] = [];
    const terms: Array<Record<string, number[]>> = Array.from({ length: shards }, () => Object.create(null));
    let totalLength = 0;
    for await (const d of docs) {
      const i = rows.length;
      rows.push([d.urlId, d.host, d.language ?? null, d.published ?? null, d.tags, d.length]);
      totalLength += d.length;
      for (const [t, tf] of d.terms) (terms[shardOf(t, shards)]![t] ??= []).push(i, tf);
    }
    await this.objects.put(archiveKeys.textIndexDocs(generation), JSON.stringify(rows), 'application/json');
    for (let n = 0; n < shards; n += 8) {
      await Promise.all(
        terms.slice(n, n + 8).map((shard, j) => this.objects.put(archiveKeys.textIndexShard(generation, n + j), JSON.stringify(shard), 'application/json')),
      );
    }
    const manifest: TextIndexManifest = { generation, builtAt, docs: rows.length, totalLength, shards };
    // A build that started later (another run's FinalizeRun, a long run's rebuild) stays current:
    // it holds everything this one does, and it dropped the log entries it folded in.
    const current = await this.manifest();
    if (!current || current.builtAt <= builtAt) await this.objects.put(archiveKeys.textIndexManifest(), JSON.stringify(manifest), 'application/json');
    this.cached = undefined;
    return manifest;
  }

  /** The current generation's manifest alone (no document table read), or undefined before the first build. */
  async manifest(): Promise<TextIndexManifest | undefined> {
    const raw = await this.objects.get(archiveKeys.textIndexManifest());
    return raw ? (JSON.parse(raw.toString()) as TextIndexManifest) : undefined;
  }

  /** The current generation, or undefined before the first build. */
  async snapshot(now = Date.now()): Promise<TextSnapshot | undefined> {
    if (this.cached && now - this.cached.at < MANIFEST_TTL_MS) return this.cached.snapshot;
    const manifest = await this.manifest();
    let snapshot = this.cached?.snapshot;
    if (!manifest) snapshot = undefined;
    else if (snapshot?.manifest.generation !== manifest.generation) {
      const docs = await this.objects.get(archiveKeys.textIndexDocs(manifest.generation));
      if (!docs) throw new Error(`the text index generation ${manifest.generation} has no document table in S3: rebuild it (FinalizeRun does)`);
      snapshot = new TextSnapshot(this.objects, manifest, JSON.parse(docs.toString()) as DocRow[]);
    }
    this.cached = { at: now, snapshot };
    return snapshot;
  }

  /** Forgets the cached manifest (after another container built a generation). */
  refresh(): void {
    this.cached = undefined;
  }
}
