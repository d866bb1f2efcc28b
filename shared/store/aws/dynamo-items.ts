import { createHash } from 'node:crypto';
import { BANDS_INDEX, INLINKS_INDEX, keys, pad } from './table.js';
import type { ChunkRecord, EdgeRecord, ExtractRecord, FetchRecord, FrontierRow, PageRecord } from '../ports/index.js';

/** A stored item: the record's fields plus PK/SK, the item type and index keys. */
export type Item = Record<string, unknown>;

/** Removes the key and index attributes of an item, leaving the record. */
export function recordOf<T>(item: Item | undefined): T | undefined {
  if (!item) return undefined;
  const { PK: _pk, SK: _sk, type: _type, GSI1PK: _g1, GSI1SK: _g1s, GSI2PK: _g2, GSI2SK: _g2s, expiresAt: _ttl, ...rest } = item;
  return rest as T;
}

/** A RUN item's scope (a string set) as `RunRecord.scope`: sorted, absent when empty. */
export function scopeOf(item: Item): { scope?: string[] } {
  const scope = item.scope as Set<string> | string[] | undefined;
  return scope && [...scope].length ? { scope: [...scope].sort() } : {};
}

export function frontierItem(row: FrontierRow, expiresAt: number): Item {
  return { ...keys.frontier(row.runId, row.urlId), type: 'URL', ...row, expiresAt };
}

export function pageItem(p: PageRecord): Item {
  return { ...keys.page(p.urlId), type: 'PAGE', ...p };
}

/** A fetch record's key is derived from its content, so a redelivered commit rewrites the same item. */
export function fetchItem(f: FetchRecord): Item {
  const discriminator = createHash('sha256').update(JSON.stringify(f)).digest('hex').slice(0, 12);
  return { ...keys.fetch(f.urlId, f.fetchedAt, discriminator), type: 'FETCH', ...f };
}

export function edgeItem(e: EdgeRecord): Item {
  const { toPageId: _derived, ...rest } = e;
  return {
    ...keys.edge(e.fromId, e.snapshot, e.toId),
    type: 'EDGE',
    [INLINKS_INDEX.pk]: `TO#${e.toId}`,
    [INLINKS_INDEX.sk]: `FROM#${e.fromId}#${e.snapshot}`,
    ...rest,
  };
}

export function chunkItem(c: ChunkRecord): Item {
  return { ...keys.chunk(c.urlId, c.seq), type: 'CHUNK', ...c };
}

export function extractItem(x: ExtractRecord, chunkCount: number): Item {
  return { ...keys.extract(x.urlId), type: 'EXTRACT', ...x, chunkCount };
}

/** The band item's sort key orders candidates oldest first; it is set once, on the first write. */
export function bandKeys(urlId: string, band: number, value: string, firstSeen: number): { pk: string; sk: string } {
  return { pk: `BAND#${band}#${value}`, sk: `${pad(firstSeen, 15)}#${urlId}` };
}

export const INDEX_NAMES = { inlinks: INLINKS_INDEX.name, bands: BANDS_INDEX.name } as const;
