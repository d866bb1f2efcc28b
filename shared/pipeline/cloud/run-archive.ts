// The cloud's archive as replay reads it: a fetch's response record in its run's WARC objects,
// found where the fetch recorded it whether or not the run's end has compacted them since.
import type { ArchiveReader } from '../../archive/replay.js';
import { responseOfRecord } from '../../archive/warc-reader.js';
import { archiveKeys } from '../../ports/archive-keys.js';
import type { ObjectStore } from '../../ports/index.js';
import { readRunWarcRange } from './warc-read.js';

/** Reads a fetch's archived response from its run's WARC objects (one ranged GET). */
export function runWarcArchive(objects: ObjectStore): ArchiveReader {
  return async (record) => {
    const { file, offset, length } = record.warc;
    const bytes = await readRunWarcRange(objects, record.runId, file, offset, length);
    if (!bytes) throw new Error(`the WARC record of ${record.url} is missing from the bucket (${archiveKeys.warc(record.runId, file)} at ${offset})`);
    return responseOfRecord(bytes, record.warc);
  };
}
