/* eslint-disable @typescript-eslint/no-explicit-any -- the JSON request bodies of the S3 Vectors API, read loosely */
import { serve } from '../helpers.js';

/**
 * A loopback server speaking the Amazon S3 Vectors data API (restJson1: POST /PutVectors,
 * /GetVectors, /ListVectors, /DeleteVectors, /QueryVectors, /CreateIndex), with its limits and
 * errors: unknown index (NotFoundException), wrong dimension or too many vectors (ValidationException),
 * metadata filters with $eq/$ne/$in/$nin/$gt/$gte/$lt/$lte/$exists/$and/$or ($eq on a list matches
 * any element), cosine distance, and token pagination. No emulator for S3 Vectors exists.
 */
interface Stored {
  data: number[];
  metadata: Record<string, unknown>;
}

type Filter = Record<string, unknown>;

class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
    message: string,
  ) {
    super(message);
  }
}

function matchValue(value: unknown, cond: unknown): boolean {
  if (cond === null || typeof cond !== 'object' || Array.isArray(cond)) return matchValue(value, { $eq: cond });
  const values = Array.isArray(value) ? value : [value];
  return Object.entries(cond as Record<string, unknown>).every(([op, arg]) => {
    switch (op) {
      case '$eq':
        return values.some((v) => v === arg);
      case '$ne':
        return values.every((v) => v !== arg);
      case '$in':
        return values.some((v) => (arg as unknown[]).includes(v));
      case '$nin':
        return values.every((v) => !(arg as unknown[]).includes(v));
      case '$gt':
        return typeof value === 'number' && value > (arg as number);
      case '$gte':
        return typeof value === 'number' && value >= (arg as number);
      case '$lt':
        return typeof value === 'number' && value < (arg as number);
      case '$lte':
        return typeof value === 'number' && value <= (arg as number);
      case '$exists':
        return (value !== undefined) === arg;
      default:
        throw new ApiError(400, 'ValidationException', `Invalid filter operator ${op}`);
    }
  });
}

function matches(metadata: Record<string, unknown>, filter: Filter | undefined): boolean {
  if (!filter) return true;
  return Object.entries(filter).every(([key, cond]) => {
    if (key === '$and') return (cond as Filter[]).every((f) => matches(metadata, f));
    if (key === '$or') return (cond as Filter[]).some((f) => matches(metadata, f));
    return matchValue(metadata[key], cond);
  });
}

function cosineDistance(a: number[], b: number[]): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return na === 0 || nb === 0 ? 1 : 1 - dot / Math.sqrt(na * nb);
}

export async function startS3VectorsServer() {
  const indexes = new Map<string, { dimension: number; vectors: Map<string, Stored> }>();
  const calls: Array<{ op: string; body: Record<string, unknown> }> = [];
  const indexOf = (body: Record<string, unknown>) => {
    const idx = indexes.get(`${body.vectorBucketName}/${body.indexName}`);
    if (!idx) throw new ApiError(404, 'NotFoundException', `The specified index could not be found: ${body.indexName}`);
    return idx;
  };
  const ops: Record<string, (body: Record<string, any>) => unknown> = {
    CreateIndex(body) {
      indexes.set(`${body.vectorBucketName}/${body.indexName}`, { dimension: body.dimension, vectors: new Map() });
      return {};
    },
    PutVectors(body) {
      const idx = indexOf(body);
      if (body.vectors.length > 500) throw new ApiError(400, 'ValidationException', 'vectors: at most 500 per request');
      for (const v of body.vectors) {
        if (v.data.float32.length !== idx.dimension)
          throw new ApiError(
            400,
            'ValidationException',
            `Invalid record for key '${v.key}': vector dimension ${v.data.float32.length} does not match index dimension ${idx.dimension}`,
          );
      }
      for (const v of body.vectors) idx.vectors.set(v.key, { data: v.data.float32, metadata: v.metadata ?? {} });
      return {};
    },
    DeleteVectors(body) {
      const idx = indexOf(body);
      for (const k of body.keys) idx.vectors.delete(k);
      return {};
    },
    GetVectors(body) {
      const idx = indexOf(body);
      return { vectors: (body.keys as string[]).filter((k) => idx.vectors.has(k)).map((k) => ({ key: k, metadata: idx.vectors.get(k)!.metadata })) };
    },
    ListVectors(body) {
      const idx = indexOf(body);
      const keys = [...idx.vectors.keys()];
      const start = body.nextToken ? Number(Buffer.from(body.nextToken, 'base64').toString()) : 0;
      const max = body.maxResults ?? 500;
      const page = keys.slice(start, start + max);
      const next = start + max < keys.length ? Buffer.from(String(start + max)).toString('base64') : undefined;
      return {
        vectors: page.map((k) => ({
          key: k,
          ...(body.returnData ? { data: { float32: idx.vectors.get(k)!.data } } : {}),
          ...(body.returnMetadata ? { metadata: idx.vectors.get(k)!.metadata } : {}),
        })),
        ...(next ? { nextToken: next } : {}),
      };
    },
    QueryVectors(body) {
      const idx = indexOf(body);
      const q = body.queryVector.float32 as number[];
      if (q.length !== idx.dimension)
        throw new ApiError(400, 'ValidationException', `Query vector dimension ${q.length} does not match index dimension ${idx.dimension}`);
      if (body.topK < 1 || body.topK > 100) throw new ApiError(400, 'ValidationException', 'topK must be between 1 and 100');
      const hits = [...idx.vectors.entries()]
        .filter(([, v]) => matches(v.metadata, body.filter))
        .map(([key, v]) => ({ key, distance: cosineDistance(q, v.data), metadata: v.metadata }))
        .sort((a, b) => a.distance - b.distance || a.key.localeCompare(b.key))
        .slice(0, body.topK);
      return {
        vectors: hits.map((h) => ({
          key: h.key,
          ...(body.returnDistance ? { distance: h.distance } : {}),
          ...(body.returnMetadata ? { metadata: h.metadata } : {}),
        })),
        distanceMetric: 'cosine',
      };
    },
  };
  const server = await serve((req, res) => {
    let raw = '';
    req.on('data', (d: Buffer) => (raw += d.toString()));
    req.on('end', () => {
      const op = (req.url ?? '/').replace(/^\//, '').split('?')[0]!;
      try {
        const body = raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
        calls.push({ op, body });
        const handler = ops[op];
        if (!handler) throw new ApiError(404, 'UnknownOperationException', `unknown operation ${op}`);
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(handler(body)));
      } catch (err) {
        const e = err instanceof ApiError ? err : new ApiError(500, 'InternalServerException', (err as Error).message);
        res.writeHead(e.status, { 'content-type': 'application/json', 'x-amzn-errortype': e.type }).end(JSON.stringify({ message: e.message }));
      }
    });
  });
  return { ...server, calls, indexes };
}
