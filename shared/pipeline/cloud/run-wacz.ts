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
//
// Packaging compacts the archive (`warc-compaction.ts`): a WACZ holds the one WARC object a part
// its small objects were concatenated into, and they are deleted once the part is written.
import { PassThrough, Readable } from 'node:stream';
import { writeWacz, type WaczResult } from '../../archive/wacz.js';
import { digesting } from '../../util/digesting.js';
import { capturesOfCdxj, capturesParquet, type RecordDetails } from '../../archive/capture-index.js';
import { CONTENT_KINDS, type ChangeStore } from '../../ports/index.js';
import { archiveKeys } from '../../ports/archive-keys.js';
import type { ArchivedPage, ArchivedPages, ObjectStore, RunRecord } from '../../ports/index.js';
import { cdxjKeyOf, compactWarcs, plannedSources, planWaczParts, retireSources, type Source } from './warc-compaction.js';

export { planWaczParts } from './warc-compaction.js';

/** The CDXJ lines that index one WARC file of a package's index. */
function linesOf(lines: readonly string[], name: string): string[] {
  const needle = `"filename":${JSON.stringify(name)}`;
  return lines.filter((l) => l.includes(needle));
}

const putText = (objects: ObjectStore, key: string, lines: readonly string[], type: string) =>
  objects.putStream(key, Readable.from([Buffer.from(lines.length ? `${lines.join('\n')}\n` : '')]), type);

/** One part of a run's archive, as the collection lists it. */
export interface WaczPart {
  name: string;
  path: string;
  hash: string;
  bytes: number;
  records: number;
  pages: number;
}

const partKey = (runId: number, part: number) => `${archiveKeys.finalizeScratch(runId)}wacz/part-${String(part).padStart(5, '0')}.json`;
const partName = (part: number) => `part-${String(part).padStart(5, '0')}`;

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
  const warcs = await plannedSources(deps.objects, run.id, part);
  // A retry after the part was written only finishes retiring its sources.
  const done = await deps.objects.get(partKey(run.id, part));
  if (done) {
    const entry = JSON.parse(done.toString()) as WaczPart & { warc?: string };
    await retireSources(deps.objects, warcs, new Set(entry.warc ? [entry.warc] : []));
    return entry;
  }
  const compacted = await compactWarcs(deps.objects, run.id, warcs);
  const key = `wacz/run-${run.id}/${partName(part)}.wacz`;
  const { stream: out, digest, bytes } = digesting('sha256');
  let index: readonly string[] = [];
  let recordDetails: ReadonlyMap<string, RecordDetails> = new Map();
  // The part lists the pages its own WARC files hold, once they are indexed.
  let ids: string[] = [];
  async function* pages(): AsyncGenerator<ArchivedPage> {
    yield* deps.pages.archivedPagesOf(run.id, ids);
  }
  const stored = deps.objects.putStream(key, out, 'application/wacz');
  const written = writeWacz(
    {
      warcFiles: [{ name: compacted.name, size: compacted.size, open: () => deps.objects.stream(compacted.key) }],
      pages: pages(),
      title: `trawl crawl "${crawl}", run ${run.id}, ${partName(part)}`,
      software: 'trawl (cloud)',
      ...(run.seeds[0] ? { mainPageUrl: run.seeds[0] } : {}),
      indexed: (lines, details) => {
        index = lines;
        recordDetails = details;
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
  await putText(deps.objects, cdxjKeyOf(compacted.key), index, 'application/cdxj');
  const kinds = (await deps.changes?.contentKinds(run.id, ids)) ?? new Map<string, string>();
  const parquet = capturesParquet(
    capturesOfCdxj(index, (runId, pageId) => (runId === run.id ? kinds.get(pageId) : undefined), recordDetails),
    'trawl (cloud)',
  );
  await deps.objects.putStream(`captures/run=${run.id}/${partName(part)}.parquet`, Readable.from([Buffer.from(parquet)]), 'application/vnd.apache.parquet');
  const entry: WaczPart & { warc: string } = {
    name: `${partName(part)}.wacz`,
    path: `run-${run.id}/${partName(part)}.wacz`,
    hash: `sha256:${digest()}`,
    bytes: bytes(),
    records: result.records,
    pages: result.pages,
    warc: compacted.key,
  };
  await deps.objects.putStream(partKey(run.id, part), Readable.from([Buffer.from(JSON.stringify(entry))]), 'application/json');
  await retireSources(deps.objects, warcs, new Set([compacted.key]));
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
  const parts = await planWaczParts(deps.objects, run.id);
  if (parts === 0) return undefined;
  const groups: Source[][] = [];
  for (let part = 0; part < parts; part++) groups.push(await plannedSources(deps.objects, run.id, part));
  const compacted: Array<Source & { name: string }> = [];
  for (const group of groups) compacted.push(await compactWarcs(deps.objects, run.id, group));
  const key = archiveKeys.wacz(run.id);
  const out = new PassThrough();
  let index: readonly string[] = [];
  let recordDetails: ReadonlyMap<string, RecordDetails> = new Map();
  const stored = deps.objects.putStream(key, out, 'application/wacz');
  const written = writeWacz(
    {
      warcFiles: compacted.map((w) => ({ name: w.name, size: w.size, open: () => deps.objects.stream(w.key) })),
      pages: deps.pages.archivedPages(run.id),
      title: `trawl crawl "${crawl}", run ${run.id}`,
      software: 'trawl (cloud)',
      ...(run.seeds[0] ? { mainPageUrl: run.seeds[0] } : {}),
      indexed: (lines, details) => {
        index = lines;
        recordDetails = details;
      },
    },
    out,
  ).catch((err: unknown) => {
    // The upload reads `out`: ended with the error, it aborts instead of waiting for bytes.
    out.destroy(err as Error);
    throw err;
  });
  const [result] = await Promise.all([written, stored]);
  for (const w of compacted) await putText(deps.objects, cdxjKeyOf(w.key), linesOf(index, w.name), 'application/cdxj');
  const kinds = new Map((await deps.changes?.changes({ runId: run.id, kinds: [...CONTENT_KINDS] }))?.map((c) => [c.urlId, c.kind]));
  const captures = archiveKeys.captures(run.id);
  const parquet = capturesParquet(
    capturesOfCdxj(index, (runId, pageId) => (runId === run.id ? kinds.get(pageId) : undefined), recordDetails),
    'trawl (cloud)',
  );
  await deps.objects.putStream(captures, Readable.from([Buffer.from(parquet)]), 'application/vnd.apache.parquet');
  await retireSources(deps.objects, groups.flat(), new Set(compacted.map((w) => w.key)));
  return { key, captures, ...result };
}
