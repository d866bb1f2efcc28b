// The in-flight journal: a line per request a crawl starts (`<run> <url id>`), appended with a
// synchronous write before the request. A crawl's database writes run on their own thread and are
// committed in groups, so when the process is killed the last requests may have no committed
// in-flight mark; the journal has them (a written line survives the process, as the OS holds it),
// and a resume counts their attempts from it. Costs a few microseconds a request.
import { closeSync, existsSync, openSync, readFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';

export const JOURNAL_FILE = 'trawl.inflight';

export class InFlightJournal {
  private fd: number | undefined;

  constructor(private readonly dataDir: string) {}

  private get file(): string {
    return join(this.dataDir, JOURNAL_FILE);
  }

  /** A new run: the journal starts empty (what it held belonged to an earlier run). */
  reset(): void {
    this.close();
    this.fd = openSync(this.file, 'w');
  }

  /** Records that a request for `urlId` of run `runId` is about to start. */
  mark(runId: number, urlId: string): void {
    this.fd ??= openSync(this.file, 'a');
    writeSync(this.fd, `${runId} ${urlId}\n`);
  }

  /** The requests each URL of the run started, by the journal (a missing file: none). */
  attempts(runId: number): Map<string, number> {
    const out = new Map<string, number>();
    if (!existsSync(this.file)) return out;
    const prefix = `${runId} `;
    for (const line of readFileSync(this.file, 'utf8').split('\n')) {
      if (!line.startsWith(prefix)) continue;
      const id = line.slice(prefix.length).trim();
      if (id) out.set(id, (out.get(id) ?? 0) + 1);
    }
    return out;
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}
