import {
  DeleteVectorsCommand,
  GetVectorsCommand,
  ListVectorsCommand,
  PutVectorsCommand,
  QueryVectorsCommand,
  type S3VectorsClient,
} from '@aws-sdk/client-s3vectors';
import type { SearchFilters, VectorEntry, VectorIndex, VectorRecord } from '../../ports/index.js';

/** S3 Vectors' limits: vectors per PutVectors and keys per DeleteVectors; keys per GetVectors; results per query. */
const WRITE_BATCH = 500;
const GET_BATCH = 100;
const MAX_TOP_K = 100;

/** An index entry from a vector's key and metadata. */
function entryOf(key: string, metadata: unknown): VectorEntry {
  const m = (metadata ?? {}) as { model?: string; dimension?: number; hash?: string };
  return { id: key, model: m.model ?? '', dimension: m.dimension ?? 0, hash: m.hash ?? '' };
}

/** The parent domains of a host, itself first (`a.b.example.com` → also `b.example.com`, `example.com`): what a domain filter matches. */
export function domainsOf(host: string): string[] {
  const name = host.toLowerCase().replace(/:\d+$/, '');
  const labels = name.split('.');
  const out = [host.toLowerCase()];
  for (let i = 0; i < labels.length - 1; i++) {
    const d = labels.slice(i).join('.');
    if (!out.includes(d)) out.push(d);
  }
  return out;
}

/** An ISO date (or its year / month prefix) as a number S3 Vectors can compare: 2024-05-17 → 20240517. */
export function dayNumber(date: string, end = false): number | undefined {
  const m = /^(\d{4})(?:-(\d{2}))?(?:-(\d{2}))?/.exec(date);
  if (!m) return undefined;
  return Number(m[1]) * 10_000 + Number(m[2] ?? (end ? 12 : 1)) * 100 + Number(m[3] ?? (end ? 31 : 1));
}

/** The query filter: S3 Vectors' operators ($eq on a list matches any element; $and; $gte/$lte on numbers). */
export function vectorFilter(model: string, filters: SearchFilters): Record<string, unknown> {
  const all: Array<Record<string, unknown>> = [{ model: { $eq: model } }];
  if (filters.domain) all.push({ domains: { $eq: filters.domain.toLowerCase() } });
  if (filters.language)
    all.push(filters.language.includes('-') ? { language: { $eq: filters.language.toLowerCase() } } : { lang: { $eq: filters.language.toLowerCase() } });
  const since = filters.since ? dayNumber(filters.since) : undefined;
  const until = filters.until ? dayNumber(filters.until, true) : undefined;
  if (since !== undefined) all.push({ day: { $gte: since } });
  if (until !== undefined) all.push({ day: { $lte: until } });
  for (const tag of filters.tags ?? []) all.push({ tags: { $eq: tag } });
  return all.length === 1 ? all[0]! : { $and: all };
}

/**
 * The cloud's vector sink: one Amazon S3 Vectors index (cosine, fixed dimension). Filterable
 * metadata beside each vector carries the model, host domains, language, day and tags, so a
 * filtered query is answered by the index alone.
 */
export class S3VectorsIndex implements VectorIndex {
  constructor(
    private readonly client: S3VectorsClient,
    private readonly bucket: string,
    private readonly index: string,
  ) {}

  async upsert(records: VectorRecord[]): Promise<void> {
    for (let i = 0; i < records.length; i += WRITE_BATCH) {
      const vectors = records.slice(i, i + WRITE_BATCH).map((r) => {
        const m = r.metadata;
        const language = m.language?.toLowerCase();
        const day = m.published ? dayNumber(m.published) : undefined;
        return {
          key: r.id,
          data: { float32: Array.from(r.vector) },
          metadata: {
            model: r.model,
            hash: r.hash,
            dimension: r.vector.length,
            domains: domainsOf(m.host),
            tags: m.tags,
            ...(language ? { language, lang: language.split('-')[0] } : {}),
            ...(day !== undefined ? { day } : {}),
          },
        };
      });
      await this.client.send(new PutVectorsCommand({ vectorBucketName: this.bucket, indexName: this.index, vectors }));
    }
  }

  async delete(ids: string[]): Promise<void> {
    for (let i = 0; i < ids.length; i += WRITE_BATCH) {
      await this.client.send(new DeleteVectorsCommand({ vectorBucketName: this.bucket, indexName: this.index, keys: ids.slice(i, i + WRITE_BATCH) }));
    }
  }

  async query(vector: Float32Array, model: string, k: number, filters: SearchFilters): Promise<Array<{ id: string; distance: number }>> {
    const out = await this.client.send(
      new QueryVectorsCommand({
        vectorBucketName: this.bucket,
        indexName: this.index,
        topK: Math.min(k, MAX_TOP_K),
        queryVector: { float32: Array.from(vector) },
        filter: vectorFilter(model, filters) as never,
        returnDistance: true,
      }),
    );
    return (out.vectors ?? []).map((v) => ({ id: v.key!, distance: v.distance ?? 1 }));
  }

  async entriesOf(ids: string[]): Promise<VectorEntry[]> {
    const out: VectorEntry[] = [];
    for (let i = 0; i < ids.length; i += GET_BATCH) {
      const got = await this.client.send(
        new GetVectorsCommand({ vectorBucketName: this.bucket, indexName: this.index, keys: ids.slice(i, i + GET_BATCH), returnMetadata: true }),
      );
      out.push(...(got.vectors ?? []).map((v) => entryOf(v.key!, v.metadata)));
    }
    return out;
  }

  async list(token: string | undefined, limit: number): Promise<{ entries: VectorEntry[]; next?: string }> {
    const out = await this.client.send(
      new ListVectorsCommand({
        vectorBucketName: this.bucket,
        indexName: this.index,
        maxResults: Math.min(limit, 1000),
        nextToken: token,
        returnMetadata: true,
      }),
    );
    const entries = (out.vectors ?? []).map((v) => entryOf(v.key!, v.metadata));
    return { entries, next: out.nextToken };
  }
}
