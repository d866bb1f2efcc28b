// A WACZ per run in the bucket (`wacz/run-<id>.wacz`), written by FinalizeRun from the run's WARC
// objects and stored pages: each WARC object is streamed twice (index and hash, then the zip) and
// the package is uploaded in parts as it is written, so neither is ever held whole. Beside it, the
// run's captures as a Parquet index (`captures/run=<id>/captures.parquet`), made from the same
// CDXJ lines.
import { basename } from 'node:path';
import { PassThrough } from 'node:stream';
import { Readable } from 'node:stream';
import { writeWacz, type WaczResult } from '../../archive/wacz.js';
import { capturesOfCdxj, capturesParquet } from '../../archive/capture-index.js';
import { CONTENT_KINDS, type ChangeStore } from '../../store/ports/index.js';
import { archiveKeys } from '../../store/archive-keys.js';
import type { ArchivedPages, ObjectStore, RunRecord } from '../../store/ports/index.js';

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
