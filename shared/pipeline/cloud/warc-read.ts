// Every step's read path to a fetch's WARC record: the bytes where its fetch recorded them, or in
// the compacted object of its part once the run's end compacted them away. No import here is
// heavier than the object port: the fetch and page steps read records through this module.
import { archiveKeys } from '../../ports/archive-keys.js';
import type { ObjectStore } from '../../ports/index.js';
import { compactedKeyOf, partsKey, readJson, type PlannedPart, type Source } from './warc-compaction.js';

/**
 * `length` bytes at `offset` of one of the run's WARC objects, where it is now: the object itself,
 * or, once the run's end compacted it away, the same bytes in the compacted object of its part. Every
 * step that reads a fetch's record (the page workflow, replay) reads it this way.
 */
export async function readRunWarcRange(objects: ObjectStore, runId: number, file: string, offset: number, length: number): Promise<Buffer | undefined> {
  const key = archiveKeys.warc(runId, file);
  const direct = await objects.getRange(key, offset, length);
  if (direct) return direct;
  const index = await readJson<PlannedPart[]>(objects, partsKey(runId));
  const planned = index?.find((p) => p.first <= key && key <= p.last);
  const sources = planned && (await readJson<Source[]>(objects, planned.plan));
  const at = sources?.findIndex((s) => s.key === key) ?? -1;
  if (!sources || at < 0) return undefined;
  const base = sources.slice(0, at).reduce((n, s) => n + s.size, 0);
  return objects.getRange(compactedKeyOf(runId, sources), base + offset, length);
}
