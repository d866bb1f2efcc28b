// The in-flight journal: a line per request a crawl starts (`<run> <url id>`), appended with a
// synchronous write before the request. A crawl's database writes run on their own thread and are
// committed in groups, so when the process is killed the last requests may have no committed
// in-flight mark; the journal has them (a written line survives the process, as the OS holds it),
// and a resume counts their attempts from it. Costs a few microseconds a request.
//
// It also holds answers (`A <run> <url id> <json>`): a final answer whose exchange reached the WARC
// file is written here at once, and stays open until the URL's commit is in the database, so a
// resume processes it from the archive instead of asking the host again.
//
// It stays small however long the crawl: past ROTATE_LINES the file becomes `trawl.inflight.1`
// and a new one starts; the old file is deleted as soon as the database has committed every mark
// it holds, so at most two files of ROTATE_LINES lines exist, whatever the number of pages.
import { closeSync, existsSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { ArchivedAnswer } from '../../ports/records.js';

export const JOURNAL_FILE = 'trawl.inflight';
const ROTATE_LINES = 4096;

/** Which file a mark went to: handed back with `committed` once the database holds the mark. */
export type JournalMark = number;

export class InFlightJournal {
  private fd: number | undefined;
  private lines = 0;
  private generation = 0;
  private marked = false;
  /** Marks and answers of the current and the previous file the database has not committed yet. */
  private readonly open = new Map<number, number>();
  /** The file (generation) of each answer not yet committed, by url id. */
  private readonly answerFiles = new Map<string, JournalMark>();

  constructor(private readonly dataDir: string) {}

  private get file(): string {
    return join(this.dataDir, JOURNAL_FILE);
  }

  private get previousFile(): string {
    return `${this.file}.1`;
  }

  /** A new run: the journal starts empty (what it held belonged to an earlier run). */
  reset(): void {
    this.closeFile();
    rmSync(this.previousFile, { force: true });
    this.fd = openSync(this.file, 'w');
    this.lines = 0;
    this.open.clear();
    this.answerFiles.clear();
  }

  /** Records that a request for `urlId` of run `runId` is about to start. */
  mark(runId: number, urlId: string): JournalMark {
    return this.append(`${runId} ${urlId}\n`);
  }

  /** Records a final answer that reached the archive; open until `settled(urlId)`. */
  answered(runId: number, urlId: string, answer: ArchivedAnswer): void {
    const previous = this.answerFiles.get(urlId);
    this.answerFiles.set(urlId, this.append(`A ${runId} ${urlId} ${JSON.stringify(answer)}\n`));
    if (previous !== undefined) this.committed(previous);
  }

  /** The URL's commit is in the database: its answer is no longer needed. */
  settled(urlId: string): void {
    const file = this.answerFiles.get(urlId);
    if (file === undefined) return;
    this.answerFiles.delete(urlId);
    this.committed(file);
  }

  private append(line: string): JournalMark {
    if (this.lines >= ROTATE_LINES && !this.open.has(this.generation - 1)) this.rotate();
    this.fd ??= openSync(this.file, 'a');
    this.marked = true;
    writeSync(this.fd, line);
    this.lines++;
    this.open.set(this.generation, (this.open.get(this.generation) ?? 0) + 1);
    return this.generation;
  }

  /** The database has committed the mark: a previous file whose marks are all committed goes. */
  committed(mark: JournalMark): void {
    const left = (this.open.get(mark) ?? 1) - 1;
    if (left > 0) {
      this.open.set(mark, left);
      return;
    }
    this.open.delete(mark);
    if (mark === this.generation - 1) rmSync(this.previousFile, { force: true });
  }

  private rotate(): void {
    this.closeFile();
    if (existsSync(this.file)) renameSync(this.file, this.previousFile);
    this.generation++;
    this.lines = 0;
    // Every mark of the file just moved may be committed already.
    if (!this.open.has(this.generation - 1)) rmSync(this.previousFile, { force: true });
  }

  /** The requests each URL of the run started, by the journal (missing files: none). */
  attempts(runId: number): Map<string, number> {
    const out = new Map<string, number>();
    for (const id of this.linesOf(`${runId} `)) if (id) out.set(id, (out.get(id) ?? 0) + 1);
    return out;
  }

  /** The answers of the run the journal holds, the last one of each URL (missing files: none). */
  answers(runId: number): Map<string, ArchivedAnswer> {
    const out = new Map<string, ArchivedAnswer>();
    const prefix = `A ${runId} `;
    for (const line of this.linesOf(prefix)) {
      const space = line.indexOf(' ');
      if (space <= 0) continue;
      try {
        out.set(line.slice(0, space), JSON.parse(line.slice(space + 1)) as ArchivedAnswer);
      } catch {
        // A line the kill cut short: its answer is not known, the URL is fetched again.
      }
    }
    return out;
  }

  /** The lines of both files that start with `prefix`, without it, oldest first. */
  private *linesOf(prefix: string): Generator<string> {
    for (const file of [this.previousFile, this.file]) {
      if (!existsSync(file)) continue;
      for (const line of readFileSync(file, 'utf8').split('\n')) if (line.startsWith(prefix)) yield line.slice(prefix.length).trim();
    }
  }

  /**
   * The store closes: once the database holds every mark this journal made, its files go (a
   * finished or stopped crawl leaves none). A journal that made no mark (a reader's) leaves the
   * files alone: they may be a running crawl's.
   */
  close(): void {
    this.closeFile();
    if (this.marked && this.open.size === 0) {
      rmSync(this.previousFile, { force: true });
      rmSync(this.file, { force: true });
    }
  }

  private closeFile(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}
