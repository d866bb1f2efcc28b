import { createHash } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import { FRONTIER_INDEX, INLINKS_INDEX, keys, queueOrder, urlQueueKey } from './table-layout.js';
import type { ChunkRecord, EdgeRecord, ExtractRecord, FetchRecord, FrontierRow, PageRecord } from '../../ports/index.js';

/** A stored item: the record's fields plus PK/SK, the item type and index keys. */
export type Item = Record<string, unknown>;

/** Removes the key and index attributes of an item (and the waiting batch that admitted a URL), leaving the record. */
export function recordOf<T>(item: Item | undefined): T | undefined {
  if (!item) return undefined;
  const {
    PK: _pk,
    SK: _sk,
    type: _type,
    GSI1PK: _g1,
    GSI1SK: _g1s,
    GSI2PK: _g2,
    GSI2SK: _g2s,
    QPK: _q,
    QSK: _qs,
    expiresAt: _ttl,
    admittedBy: _batch,
    ...rest
  } = item;
  return rest as T;
}

/** A RUN item's scope (a string set) as `RunRecord.scope`: sorted, absent when empty. */
export function scopeOf(item: Item): { scope?: string[] } {
  const scope = item.scope as Set<string> | string[] | undefined;
  return scope && [...scope].length ? { scope: [...scope].sort() } : {};
}

/** Where a run's items go: its partitions (`shards`) and the parts of each host's queue (`queueParts`). */
export interface RunLayout {
  shards: number;
  queueParts: number;
}

/** A URL item; a queued URL is also in its host's queue (the frontier index). */
export function frontierItem(row: FrontierRow, expiresAt: number, layout: RunLayout): Item {
  return {
    ...keys.frontier(row.runId, row.urlId, layout.shards),
    type: 'URL',
    ...row,
    expiresAt,
    ...(row.state === 'queued' ? queueEntry(row, layout.queueParts) : {}),
  };
}

/** The frontier index's attributes of a queued URL: its host's queue (the part its id falls in), and its place there. */
export function queueEntry(row: Pick<FrontierRow, 'runId' | 'host' | 'priority' | 'depth' | 'urlId'>, queueParts: number): Item {
  return {
    [FRONTIER_INDEX.pk]: urlQueueKey(row.runId, row.host, row.urlId, queueParts),
    [FRONTIER_INDEX.sk]: queueOrder(row.priority, row.depth, row.urlId),
  };
}

export function pageItem(p: PageRecord): Item {
  return { ...keys.page(p.urlId), type: 'PAGE', ...p };
}

/**
 * A fetch record's key is derived from its content, so a redelivered commit rewrites the same item;
 * `expiresAt` (epoch seconds) is when DynamoDB's TTL deletes it.
 */
export function fetchItem(f: FetchRecord, expiresAt: number): Item {
  const discriminator = createHash('sha256').update(JSON.stringify(f)).digest('hex').slice(0, 12);
  return { ...keys.fetch(f.urlId, f.fetchedAt, discriminator), type: 'FETCH', ...f, expiresAt };
}

/** A LINKS item stops well inside DynamoDB's 400 KB. */
const LINKS_ITEM_BYTES = 350_000;
type StoredEdge = Omit<EdgeRecord, 'fromId' | 'snapshot' | 'toPageId'>;

/**
 * A page snapshot's outlinks as one item: the edges (target, anchor, context, section, rel,
 * flags) as gzipped JSON in `links` and their `count`. One item costs a few write units where an
 * item per link cost two a link (it and its index entry).
 */
export function linksItem(fromId: string, snapshot: string, edges: EdgeRecord[]): Item {
  const stored = (list: EdgeRecord[], contextChars?: number): StoredEdge[] =>
    list.map(({ fromId: _f, snapshot: _s, toPageId: _derived, ...e }) =>
      contextChars === undefined ? e : { ...e, context: e.context.slice(0, contextChars) },
    );
  const pack = (list: EdgeRecord[], contextChars?: number) => gzipSync(JSON.stringify(stored(list, contextChars)));
  let kept = edges;
  let links = pack(kept);
  // Hundreds of long links: contexts are cut first, then the last links are left out (the whole
  // list stays in the snapshot's extracted/ JSON in S3), so the item never passes 400 KB.
  if (links.byteLength > LINKS_ITEM_BYTES) links = pack(kept, 80);
  while (links.byteLength > LINKS_ITEM_BYTES) {
    kept = kept.slice(0, Math.floor((kept.length * LINKS_ITEM_BYTES) / links.byteLength / 1.05));
    links = pack(kept, 80);
  }
  return {
    ...keys.links(fromId, snapshot),
    type: 'LINKS',
    urlId: fromId,
    snapshot,
    count: edges.length,
    ...(kept.length < edges.length ? { kept: kept.length } : {}),
    links,
  };
}

/** The edges of a LINKS item. */
export function edgesOf(item: Item | undefined): EdgeRecord[] {
  if (!item?.links) return [];
  const fromId = String(item.urlId);
  const snapshot = String(item.snapshot);
  const stored = JSON.parse(gunzipSync(item.links as Uint8Array).toString()) as StoredEdge[];
  return stored.map((e) => ({ fromId, snapshot, ...e }));
}

/**
 * CHUNK items of a page's chunks. A chunk whose text is a part of the page's markdown keeps only
 * where it is (`start`, `end` in the EXTRACT item's markdown, which holds the text once); one that
 * is not (whitespace the chunker joined differently) keeps its text.
 */
export function chunkItems(chunks: ChunkRecord[], markdown: string): Item[] {
  let from = 0;
  return chunks.map((c) => {
    const at = c.text ? markdown.indexOf(c.text, from) : -1;
    const key = { ...keys.chunk(c.urlId, c.seq), type: 'CHUNK' };
    if (at < 0) return { ...key, ...c };
    from = at + 1;
    const { text: _text, ...rest } = c;
    return { ...key, ...rest, start: at, end: at + c.text.length };
  });
}

/** A page's chunks from their items and the markdown their `start` and `end` point into. */
export function chunksOf(items: Item[], markdown: () => Promise<string>): Promise<ChunkRecord[]> {
  let text: Promise<string> | undefined;
  return Promise.all(
    items.map(async (item) => {
      const { start, end, ...rest } = recordOf<ChunkRecord & { start?: number; end?: number }>(item)!;
      if (typeof start !== 'number' || typeof end !== 'number') return rest;
      const md = await (text ??= markdown());
      if (md.length < end) throw new Error(`chunk ${rest.seq} of ${rest.urlId} points past its page's markdown: extract the page again (trawl reextract)`);
      return { ...rest, text: md.slice(start, end) };
    }),
  );
}

/** Markdown from this many bytes on is kept gzipped in its EXTRACT item (`markdownGz`): the item's write units are by its size. */
export const MARKDOWN_GZIP_FROM = 256;

/** A page's EXTRACT item, its markdown gzipped when long enough. */
export function extractItem(x: ExtractRecord, chunkCount: number): Item {
  const { markdown, ...rest } = x;
  const text = markdown ?? '';
  const body = Buffer.byteLength(text) >= MARKDOWN_GZIP_FROM ? { markdownGz: gzipSync(text) } : { markdown: text };
  return { ...keys.extract(x.urlId), type: 'EXTRACT', ...rest, ...body, chunkCount };
}

/** The markdown an EXTRACT item holds itself (gzipped or not); undefined when it has none (spilled to S3, or no item). */
export function itemMarkdown(item: Item | undefined): string | undefined {
  if (item?.markdownGz instanceof Uint8Array) return gunzipSync(item.markdownGz).toString();
  return typeof item?.markdown === 'string' ? item.markdown : undefined;
}

export const INDEX_NAMES = { inlinks: INLINKS_INDEX.name } as const;
