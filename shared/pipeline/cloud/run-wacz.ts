// A WACZ per run in the bucket (`wacz/run-<id>.wacz`), written by FinalizeRun from the run's WARC
// objects and stored pages: each WARC object is streamed twice (index and hash, then the zip) and
// the package is uploaded in parts as it is written, so neither is ever held whole.
import { basename } from 'node:path';
import { PassThrough } from 'node:stream';
import { writeWacz, type WaczResult } from '../../archive/wacz.js';
import { archiveKeys } from '../../store/archive-keys.js';
import type { ArchivedPages, ObjectStore, RunRecord } from '../../store/ports/index.js';

export async function writeRunWacz(
  deps: { objects: ObjectStore; pages: ArchivedPages },
  run: RunRecord,
  crawl: string,
): Promise<(WaczResult & { key: string }) | undefined> {
  const warcs = await deps.objects.list(archiveKeys.warcRun(run.id));
  if (warcs.length === 0) return undefined;
  const key = archiveKeys.wacz(run.id);
  const out = new PassThrough();
  const stored = deps.objects.putStream(key, out, 'application/wacz');
  const written = writeWacz(
    {
      warcFiles: warcs.map((w) => ({ name: basename(w.key), size: w.size, open: () => deps.objects.stream(w.key) })),
      pages: deps.pages.archivedPages(run.id),
      title: `trawl crawl "${crawl}", run ${run.id}`,
      software: 'trawl (cloud)',
      ...(run.seeds[0] ? { mainPageUrl: run.seeds[0] } : {}),
    },
    out,
  ).catch((err: unknown) => {
    // The upload reads `out`: ended with the error, it aborts instead of waiting for bytes.
    out.destroy(err as Error);
    throw err;
  });
  const [result] = await Promise.all([written, stored]);
  return { key, ...result };
}
