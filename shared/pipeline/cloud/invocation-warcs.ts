import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { WarcWriter } from '../../archive/warc-writer.js';
import { warcWriterFor } from '../stages/context.js';
import type { CrawlSettings } from '../../config/settings.js';
import type { ObjectStore } from '../../ports/index.js';

/**
 * The WARC files of one invocation that takes several turns at once (a fetch worker's batch): its
 * turns write one file a run, uploaded once when they are all done, so a batch costs one PUT a
 * run instead of one a turn. The records' locations hold as written: a page's workflow may start
 * once `close()` has uploaded its file.
 */
export class InvocationWarcs {
  private readonly writers = new Map<number, WarcWriter>();
  private readonly dir = mkdtempSync(join(tmpdir(), 'trawl-warc-'));
  /** Names the invocation in its files' names. */
  readonly tag = randomBytes(6).toString('hex');

  constructor(private readonly objects: ObjectStore) {}

  /** The run's writer, made by the first turn of the run with the run's WARC settings. */
  writerFor(runId: number, settings: CrawlSettings): WarcWriter {
    let writer = this.writers.get(runId);
    // The body's only copy is its record (`bodies: 'archive'`).
    if (!writer) this.writers.set(runId, (writer = warcWriterFor(this.dir, settings, { fileTag: this.tag, bodies: 'archive' })));
    return writer;
  }

  /** Closes every file and uploads it to `warc/run-<id>/`; the local copies go whatever happens. */
  async close(): Promise<void> {
    try {
      for (const [runId, writer] of this.writers) {
        writer.close();
        for (const file of writer.files) await this.objects.putWarc(runId, basename(file), readFileSync(file));
      }
    } finally {
      this.writers.clear();
      rmSync(this.dir, { recursive: true, force: true });
    }
  }
}
