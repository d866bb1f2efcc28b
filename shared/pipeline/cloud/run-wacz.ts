// A WACZ per run in the bucket (`wacz/run-<id>.wacz`), written by FinalizeRun from the run's WARC
// objects and stored pages: each WARC object is streamed twice (index and hash, then the zip) and
// the package is uploaded in parts as it is written, so neither is ever held whole. Beside it, the
// run's captures as a Parquet index (`captures/run=<id>/captures.parquet`), made from the same
// CDXJ lines.
//
// A run ranked shard by shard is packaged in parts the same way: FinalizeStart groups the run's
// WARC objects (at most WACZ_PART_BYTES and WACZ_PART_FILES a part), a child of the run machine's
// PackageParts map writes each part's WACZ (`wacz/run-<id>/part-<n>.wacz`, listing the pages of
// its own WARC files) and Parquet (`captures/run=<id>/part-<n>.parquet`), and FinalizeRun writes
// the collection replay tools open as one archive (`wacz/run-<id>.json`, wabac.js's multi-WACZ
// JSON: each part's name, path, hash and size).
import { createHash } from 'node:crypto';
import { basename } from 'node:path';
import { PassThrough, Transform } from 'node:stream';
import { Readable } from 'node:stream';
import { writeWacz, type WaczResult } from '../../archive/wacz.js';
import { capturesOfCdxj, capturesParquet } from '../../archive/capture-index.js';
import { CONTENT_KINDS, type ChangeStore } from '../../store/ports/index.js';
import { archiveKeys } from '../../store/archive-keys.js';
import type { ArchivedPage, ArchivedPages, ObjectStore, RunRecord } from '../../store/ports/index.js';

/** A WACZ part holds WARC objects of at most this many bytes in all (a part is read twice by one Lambda). */
export const WACZ_PART_BYTES = 1024 ** 3;
/** …and at most this many WARC objects. */
export const WACZ_PART_FILES = 1000;

/** One part of a run's archive, as the collection lists it. */
export interface WaczPart {
  name: string;
  path: string;
  hash: string;
  bytes: number;
  records: number;
  pages: number;
}

const partsKey = (runId: number) => `${archiveKeys.finalizeScratch(runId)}wacz/parts.json`;
const partKey = (runId: number, part: number) => `${archiveKeys.finalizeScratch(runId)}wacz/part-${String(part).padStart(5, '0')}.json`;
const partName = (part: number) => `part-${String(part).padStart(5, '0')}`;

/** Groups the run's WARC objects into parts (kept in the run's finalize scratch); returns how many. */
export async function planWaczParts(objects: ObjectStore, runId: number, maxFiles = WACZ_PART_FILES, maxBytes = WACZ_PART_BYTES): Promise<number> {
  const parts: Array<Array<{ key: string; size: number }>> = [];
  let bytes = 0;
  for (const w of await objects.list(archiveKeys.warcRun(runId))) {
    const last = parts.at(-1);
    if (!last || last.length >= maxFiles || bytes + w.size > maxBytes) {
      parts.push([w]);
      bytes = w.size;
    } else {
      last.push(w);
      bytes += w.size;
    }
  }
  await objects.putStream(partsKey(runId), Readable.from([Buffer.from(JSON.stringify(parts))]), 'application/json');
  return parts.length;
}

/** Pages by URL id and change kinds by URL id, for one part's own captures. */
export interface PartPages {
  archivedPagesOf(runId: number, urlIds: string[]): AsyncIterable<ArchivedPage>;
}
export interface PartChanges {
  contentKinds(runId: number, urlIds: string[]): Promise<Map<string, string>>;
}

/** One part of a run's archive: its WACZ and Parquet, and its entry in the collection (kept in the scratch for FinalizeRun). */
export async function writeWaczPart(
  deps: { objects: ObjectStore; pages: PartPages; changes?: PartChanges },
  run: RunRecord,
  crawl: string,
  part: number,
): Promise<WaczPart> {
  const plan = JSON.parse((await deps.objects.get(partsKey(run.id)))?.toString() ?? '[]') as Array<Array<{ key: string; size: number }>>;
  const warcs = plan[part];
  if (!warcs) throw new Error(`WACZ part ${part} of run ${run.id} is not in its plan (${plan.length} parts): FinalizeStart plans the parts first`);
  const key = `wacz/run-${run.id}/${partName(part)}.wacz`;
  const hash = createHash('sha256');
  let bytes = 0;
  const out = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      hash.update(chunk);
      bytes += chunk.length;
      cb(null, chunk);
    },
  });
  let index: readonly string[] = [];
  // The part lists the pages its own WARC files hold, once they are indexed.
  let ids: string[] = [];
  async function* pages(): AsyncGenerator<ArchivedPage> {
    yield* deps.pages.archivedPagesOf(run.id, ids);
  }
  const stored = deps.objects.putStream(key, out, 'application/wacz');
  const written = writeWacz(
    {
      warcFiles: warcs.map((w) => ({ name: basename(w.key), size: w.size, open: () => deps.objects.stream(w.key) })),
      pages: pages(),
      title: `trawl crawl "${crawl}", run ${run.id}, ${partName(part)}`,
      software: 'trawl (cloud)',
      ...(run.seeds[0] ? { mainPageUrl: run.seeds[0] } : {}),
      indexed: (lines) => {
        index = lines;
        // The pages whose 2xx answer this part holds (an attempt that failed before it may sit in another part).
        ids = capturesOfCdxj(lines).flatMap((c) =>
          c.pageId && c.warcRecordType === 'response' && c.fetchStatus !== null && c.fetchStatus >= 200 && c.fetchStatus < 300 ? [c.pageId] : [],
        );
      },
    },
    out,
  ).catch((err: unknown) => {
    out.destroy(err as Error);
    throw err;
  });
  const [result] = await Promise.all([written, stored]);
  const kinds = (await deps.changes?.contentKinds(run.id, ids)) ?? new Map<string, string>();
  const parquet = capturesParquet(
    capturesOfCdxj(index, (runId, pageId) => (runId === run.id ? kinds.get(pageId) : undefined)),
    'trawl (cloud)',
  );
  await deps.objects.putStream(`captures/run=${run.id}/${partName(part)}.parquet`, Readable.from([Buffer.from(parquet)]), 'application/vnd.apache.parquet');
  const entry: WaczPart = {
    name: `${partName(part)}.wacz`,
    path: `run-${run.id}/${partName(part)}.wacz`,
    hash: `sha256:${hash.digest('hex')}`,
    bytes,
    records: result.records,
    pages: result.pages,
  };
  await deps.objects.putStream(partKey(run.id, part), Readable.from([Buffer.from(JSON.stringify(entry))]), 'application/json');
  return entry;
}

/** The collection of a run's WACZ parts (`wacz/run-<id>.json`), which wabac.js and ReplayWeb.page open as one archive. */
export async function writeWaczCollection(
  objects: ObjectStore,
  run: RunRecord,
  crawl: string,
  parts: number,
): Promise<{ key: string; captures: string } | undefined> {
  if (parts === 0) return undefined;
  const resources: WaczPart[] = [];
  for (let part = 0; part < parts; part++) {
    const entry = await objects.get(partKey(run.id, part));
    if (!entry) throw new Error(`WACZ part ${part} of run ${run.id} was not written: the PackageParts map writes every part before FinalizeRun`);
    resources.push(JSON.parse(entry.toString()) as WaczPart);
  }
  const key = archiveKeys.waczCollection(run.id);
  const collection = {
    profile: 'multi-wacz-package',
    title: `trawl crawl "${crawl}", run ${run.id}`,
    software: 'trawl (cloud)',
    created: new Date().toISOString(),
    resources: resources.map(({ name, path, hash, bytes }) => ({ name, path, hash, bytes })),
  };
  await objects.putStream(key, Readable.from([Buffer.from(JSON.stringify(collection, null, 2))]), 'application/json');
  return { key, captures: `captures/run=${run.id}/` };
}

export async function writeRunWacz(
  deps: { objects: ObjectStore; pages: ArchivedPages; changes?: ChangeStore },
  run: RunRecord,
  crawl: string,
): Promise<(WaczResult & { key: string; captures: string }) | undefined> {
  const warcs = await deps.objects.list(archiveKeys.warcRun(run.id));
  if (warcs.length === 0) return undefined;
  const key = archiveKeys.wacz(run.id);
  const out = new PassThrough();
  let index: readonly string[] = [];
  const stored = deps.objects.putStream(key, out, 'application/wacz');
  const written = writeWacz(
    {
      warcFiles: warcs.map((w) => ({ name: basename(w.key), size: w.size, open: () => deps.objects.stream(w.key) })),
      pages: deps.pages.archivedPages(run.id),
      title: `trawl crawl "${crawl}", run ${run.id}`,
      software: 'trawl (cloud)',
      ...(run.seeds[0] ? { mainPageUrl: run.seeds[0] } : {}),
      indexed: (lines) => {
        index = lines;
      },
    },
    out,
  ).catch((err: unknown) => {
    // The upload reads `out`: ended with the error, it aborts instead of waiting for bytes.
    out.destroy(err as Error);
    throw err;
  });
  const [result] = await Promise.all([written, stored]);
  const kinds = new Map((await deps.changes?.changes({ runId: run.id, kinds: [...CONTENT_KINDS] }))?.map((c) => [c.urlId, c.kind]));
  const captures = archiveKeys.captures(run.id);
  const parquet = capturesParquet(
    capturesOfCdxj(index, (runId, pageId) => (runId === run.id ? kinds.get(pageId) : undefined)),
    'trawl (cloud)',
  );
  await deps.objects.putStream(captures, Readable.from([Buffer.from(parquet)]), 'application/vnd.apache.parquet');
  return { key, captures, ...result };
}
