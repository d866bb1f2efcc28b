import { responseOfRecord } from '../../archive/warc-reader.js';
import { archiveKeys } from '../../ports/archive-keys.js';
import { readRunWarcRange } from './warc-read.js';
import { contentHashOf } from '../../ports/content-hash.js';
import type { CloudContext } from './cloud-context.js';
import type { PageTask } from './fetch-claimed.js';

/**
 * A fetched page's body for the steps after the fetch: its response record in the run's WARC
 * file (one ranged GET; the fetch worker uploads the file before it starts the workflow; after
 * the run's end compacted it, the range in its part's object), or the
 * blob store for a task whose fetch was not archived. The bytes are checked against the task's
 * hash, so a wrong location fails here instead of extracting another page.
 */
export async function taskBody(ctx: Pick<CloudContext, 'objects' | 'blobs'>, task: PageTask): Promise<Buffer> {
  if (!task.contentHash) return Buffer.alloc(0);
  let body: Buffer | undefined;
  let from: string;
  if (task.warc) {
    from = archiveKeys.warc(task.runId, task.warc.file);
    // Once the run has ended, its WARC objects may be compacted: the record is then read where it went.
    const record = await readRunWarcRange(ctx.objects, task.runId, task.warc.file, task.warc.offset, task.warc.length);
    body = record && (await responseOfRecord(record, task.warc)).body;
    from = `${from} at ${task.warc.offset}`;
  } else {
    from = archiveKeys.raw(task.contentHash);
    body = await ctx.blobs.get(task.contentHash);
  }
  if (!body) throw new Error(`the body of ${task.row.url} is missing from S3 (${from}): the fetch must be redone`);
  if (contentHashOf(body) !== task.contentHash)
    throw new Error(`the body of ${task.row.url} read from ${from} is not the one fetched (hash ${task.contentHash})`);
  return body;
}
