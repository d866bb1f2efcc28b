// Compaction of a run's WARC objects at its end. The fetch workers write about one small WARC
// object a fetch; the run's end groups them into parts (PLAN: an index of the parts' key ranges and
// a listing a part, in the run's finalize scratch), and each part's objects are concatenated into
// one WARC object (gzip members concatenate into a valid WARC.gz),
// `warc/run-<id>/trawl-<id>-part-<digest>.warc.gz`, with its CDXJ index beside it (`….cdxj`).
// The small objects are deleted once the part is packaged; a record is still found by the
// location its fetch recorded (`warc-read.ts` follows the plan). No import here is heavier than
// the object port: the read path imports the plan's layout from here.
import { createHash } from 'node:crypto';
import { basename } from 'node:path';
import { Readable } from 'node:stream';
import { archiveKeys } from '../../ports/archive-keys.js';
import type { ObjectStore } from '../../ports/index.js';

/** A WACZ part holds WARC objects of at most this many bytes in all (a part is read three times by one Lambda). */
export const WACZ_PART_BYTES = 1024 ** 3;
/** …and at most this many WARC objects (read ahead COMPACT_AHEAD at a time when they are compacted). */
export const WACZ_PART_FILES = 10_000;
/** WARC objects a compaction has open at once, read ahead of the one it copies. */
const COMPACT_AHEAD = 16;
/** A WARC object a compaction wrote: kept as it is when it is a part's only source. */
const COMPACTED = /-part-[0-9a-f]{16}\.warc\.gz$/;

export type Source = { key: string; size: number };

/** A compacted WARC object's CDXJ index, beside it. */
export const cdxjKeyOf = (warcKey: string) => warcKey.replace(/\.warc\.gz$/, '.cdxj');

/** The sources' bytes in order, COMPACT_AHEAD objects opened ahead of the one being copied. */
async function* concatenated(objects: ObjectStore, sources: Source[]): AsyncGenerator<Buffer> {
  const opened: Readable[] = [];
  let next = 0;
  const fill = () => {
    while (next < sources.length && opened.length < COMPACT_AHEAD) {
      const stream = objects.stream(sources[next++]!.key);
      // An object that fails before its turn fails the copy when its turn comes (the stream keeps its error).
      stream.on('error', () => undefined);
      opened.push(stream);
    }
  };
  try {
    for (const source of sources) {
      fill();
      let bytes = 0;
      for await (const chunk of opened[0]! as AsyncIterable<Buffer>) {
        bytes += chunk.length;
        yield chunk;
      }
      opened.shift();
      if (bytes !== source.size) throw new Error(`${source.key} read ${bytes} bytes where the listing said ${source.size}: it changed while it was compacted`);
    }
  } finally {
    for (const stream of opened) stream.destroy();
  }
}

/**
 * One WARC object holding `sources` one after another, named by their keys (so a retry writes the
 * same object, and one already written whole is kept). A compacted object that is the only source
 * is returned as it is.
 */
export async function compactWarcs(objects: ObjectStore, runId: number, sources: Source[]): Promise<Source & { name: string }> {
  const key = compactedKeyOf(runId, sources);
  const name = basename(key);
  if (key === sources[0]!.key) return { ...sources[0]!, name };
  const size = sources.reduce((n, s) => n + s.size, 0);
  const existing = (await objects.list(key)).find((o) => o.key === key);
  if (existing?.size !== size) await objects.putStream(key, Readable.from(concatenated(objects, sources)), 'application/warc');
  return { key, size, name };
}

/** The key of the object compacting `sources`: named by their keys, or the one source when it is compacted already. */
export function compactedKeyOf(runId: number, sources: Source[]): string {
  if (sources.length === 1 && COMPACTED.test(sources[0]!.key)) return sources[0]!.key;
  const digest = createHash('sha256')
    .update(sources.map((s) => s.key).join('\n'))
    .digest('hex')
    .slice(0, 16);
  return archiveKeys.warc(runId, `trawl-${runId}-part-${digest}.warc.gz`);
}

/** The sources a compaction replaced (and the CDXJ of a compacted one among them), once its object and index are written. */
export async function retireSources(objects: ObjectStore, sources: Source[], kept: Set<string>): Promise<void> {
  const gone = sources.filter((s) => !kept.has(s.key)).flatMap((s) => (COMPACTED.test(s.key) ? [s.key, cdxjKeyOf(s.key)] : [s.key]));
  await objects.deleteMany(gone);
}

export const partsKey = (runId: number) => `${archiveKeys.finalizeScratch(runId)}wacz/parts.json`;
const planKey = (runId: number, window: number, n: number) =>
  `${archiveKeys.finalizeScratch(runId)}wacz/plan-${String(window).padStart(3, '0')}-${String(n).padStart(6, '0')}.json`;

/** Windows of the run's time its WARC objects are listed in, at once (their names start with their time). */
const PLAN_WINDOWS = 16;

/** One part of the plan: the key range of its WARC objects, and the object listing them. */
export interface PlannedPart {
  first: string;
  last: string;
  files: number;
  bytes: number;
  plan: string;
}

const stampOf = (ms: number) =>
  new Date(ms)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');

/**
 * Where each window of the listing starts: the WARC writer names a file `trawl-<run>-<time>…`, so
 * the run's time split in PLAN_WINDOWS splits its keys; the first window takes every key before the
 * second, the last every key after (compacted objects, other names).
 */
function windowStarts(runId: number, from: number, to: number): string[] {
  const prefix = `${archiveKeys.warcRun(runId)}trawl-${runId}-`;
  if (!(to > from)) return [];
  const step = (to - from) / PLAN_WINDOWS;
  const starts = Array.from({ length: PLAN_WINDOWS - 1 }, (_, k) => `${prefix}${stampOf(from + step * (k + 1))}`);
  return [...new Set(starts)];
}

/** Parts of one window of keys (from after `start` to before `end`), each part's listing stored as it closes. */
async function planWindow(
  objects: ObjectStore,
  runId: number,
  window: number,
  range: { start?: string; end?: string },
  limits: { files: number; bytes: number },
): Promise<PlannedPart[]> {
  const parts: PlannedPart[] = [];
  let open: Source[] = [];
  let bytes = 0;
  const close = async () => {
    if (open.length === 0) return;
    const plan = planKey(runId, window, parts.length);
    await objects.putStream(plan, Readable.from([Buffer.from(JSON.stringify(open))]), 'application/json');
    parts.push({ first: open[0]!.key, last: open.at(-1)!.key, files: open.length, bytes, plan });
    open = [];
    bytes = 0;
  };
  for await (const page of objects.scan(archiveKeys.warcRun(runId), range.start)) {
    for (const w of page) {
      if (range.end !== undefined && w.key >= range.end) return (await close(), parts);
      if (!w.key.endsWith('.warc.gz')) continue;
      if (open.length >= limits.files || (open.length > 0 && bytes + w.size > limits.bytes)) await close();
      open.push(w);
      bytes += w.size;
    }
  }
  await close();
  return parts;
}

/**
 * Groups the run's WARC objects into parts (kept in the run's finalize scratch: an index of the
 * parts' key ranges, and a listing a part); returns how many. The run's keys are listed in windows
 * of its time at once, and no more than one part's listing is held a window.
 */
export async function planWaczParts(
  objects: ObjectStore,
  runId: number,
  maxFiles = WACZ_PART_FILES,
  maxBytes = WACZ_PART_BYTES,
  span?: { from: number; to: number },
): Promise<number> {
  const starts = span ? windowStarts(runId, span.from, span.to) : [];
  const ranges = [undefined, ...starts].map((start, k) => ({ start, end: starts[k] }));
  const windows = await Promise.all(ranges.map((range, k) => planWindow(objects, runId, k, range, { files: maxFiles, bytes: maxBytes })));
  const parts = windows.flat();
  await objects.putStream(partsKey(runId), Readable.from([Buffer.from(JSON.stringify(parts))]), 'application/json');
  return parts.length;
}

/** A JSON object of the run's end (its parts' index, a part's listing), if it is there. */
export async function readJson<T>(objects: ObjectStore, key: string): Promise<T | undefined> {
  const body = await objects.get(key);
  return body ? (JSON.parse(body.toString()) as T) : undefined;
}

/** The WARC objects of one planned part. */
export async function plannedSources(objects: ObjectStore, runId: number, part: number): Promise<Source[]> {
  const index = (await readJson<PlannedPart[]>(objects, partsKey(runId))) ?? [];
  const planned = index[part];
  if (!planned) throw new Error(`WACZ part ${part} of run ${runId} is not in its plan (${index.length} parts): FinalizeStart plans the parts first`);
  const sources = await readJson<Source[]>(objects, planned.plan);
  if (!sources) throw new Error(`the listing of WACZ part ${part} of run ${runId} (${planned.plan}) is missing: plan the run's end again`);
  return sources;
}
