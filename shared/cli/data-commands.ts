import { createWriteStream } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import type { CrawlSettings } from '../config/settings.js';
import { errorMessage, UsageError } from '../errors.js';
import { reextract, type ReextractReport } from '../library/maintenance.js';
import { openStore } from '../library/store.js';
import { jsonLine } from './render.js';
import { JobBook } from '../store/local/job-book.js';

export interface ExportTarget {
  /** JSON lines go here. */
  out: (line: string) => void;
  /** A WACZ goes here (stdout); refused when it is a terminal. */
  stream: Writable & { isTTY?: boolean };
}

/**
 * `trawl export --format jsonl`: pages (with extraction), edges and interactions, one JSON object a
 * line; `--format wacz [--run N]`: the archive as a WACZ; `--format parquet [--run N]`: its captures
 * as a Parquet index. Returns the records, pages or captures written.
 */
export async function exportCommand(dataDir: string, flags: { format?: string; run?: string; output?: string }, to: ExportTarget): Promise<number> {
  const format = flags.format ?? 'jsonl';
  if (format !== 'jsonl' && format !== 'wacz' && format !== 'parquet')
    throw new UsageError(`unknown export format ${JSON.stringify(format)}: use jsonl, wacz or parquet`);
  if (flags.run !== undefined && format === 'jsonl') throw new UsageError('--run goes with --format wacz or parquet; the jsonl export holds every run');
  const runId = flags.run === undefined ? undefined : runNumber(flags.run);
  if (flags.output !== undefined) return atomicFile(flags.output, (stream) => exportTo(dataDir, format, runId, { stream, out: lineWriter(stream) }));
  if ((format === 'wacz' || format === 'parquet') && to.stream.isTTY)
    throw new UsageError(
      `a ${format === 'wacz' ? 'WACZ' : 'Parquet file'} is binary: write it to a file (trawl export --format ${format} --output crawl.${format})`,
    );
  return exportTo(dataDir, format, runId, to);
}

async function exportTo(dataDir: string, format: 'jsonl' | 'wacz' | 'parquet', runId: number | undefined, to: ExportTarget): Promise<number> {
  const store = openStore(dataDir);
  try {
    if (format === 'wacz') return (await store.wacz(to.stream, { runId })).pages;
    if (format === 'parquet') return (await store.captureIndex(to.stream, { runId })).captures;
    let n = 0;
    for await (const record of store.export()) {
      to.out(jsonLine(record));
      n++;
      if (to.stream.writableNeedDrain) await once(to.stream, 'drain');
    }
    return n;
  } finally {
    await store.close();
  }
}

/** JSON lines into a file stream, waiting when it is full. */
function lineWriter(stream: Writable): (line: string) => void {
  return (line) => void stream.write(`${line}\n`);
}

/**
 * Writes `path` whole or not at all: into a file beside it, renamed over it once complete and on
 * disk. A failure (a full disk) or a kill leaves the target as it was; the partial file is removed
 * on failure, and named `.partial` so a kill's leftover is plainly not the export.
 */
async function atomicFile(path: string, write: (stream: Writable) => Promise<number>): Promise<number> {
  const target = resolve(path);
  const partial = join(dirname(target), `.${basename(target)}.partial-${process.pid}`);
  const stream = createWriteStream(partial, { flags: 'wx' });
  const failed = new Promise<never>((_, reject) => stream.once('error', reject));
  failed.catch(() => {});
  try {
    const n = await Promise.race([write(stream), failed]);
    await Promise.race([new Promise<void>((ok) => stream.end(ok)), failed]);
    const fd = await open(partial, 'r');
    await fd.sync().finally(() => fd.close());
    await rename(partial, target);
    return n;
  } catch (err) {
    stream.destroy();
    await rm(partial, { force: true });
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'ENOSPC' ? `the disk holding ${dirname(target)} is full (free some space, or write to another disk)` : errorMessage(err);
    throw new Error(`the export to ${target} failed, and nothing was written there: ${why}`, { cause: err });
  }
}

function runNumber(raw: string): number {
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`invalid value ${JSON.stringify(raw)} for --run: expected a run number (trawl status lists them)`);
  return n;
}

/** `trawl replay --reextract`: extraction again over the archive, with no network. */
export async function replayCommand(
  settings: CrawlSettings,
  flags: { reextract?: boolean; run?: string },
  json: boolean,
  out: (line: string) => void,
): Promise<ReextractReport> {
  if (!flags.reextract) throw new UsageError('trawl replay needs --reextract (re-run extraction over the archive)');
  const runId = flags.run ? Number(flags.run) : undefined;
  if (runId !== undefined && !Number.isInteger(runId))
    throw new UsageError(`invalid --run ${JSON.stringify(flags.run)}: give a run number (trawl status shows it)`);
  const report = await reextract({ ...settings, env: {}, runId } as Parameters<typeof reextract>[0]);
  if (json) out(jsonLine({ type: 'reextract', ...report }));
  else {
    out(`re-extracted ${report.pages} pages from the archive: ${report.changed} changed, ${report.unchanged} unchanged, ${report.failed.length} failed`);
    for (const [field, count] of Object.entries(report.fields)) out(`  ${field.padEnd(8)} changed on ${count} pages`);
    for (const f of report.failed.slice(0, 20)) out(`  failed: ${f.url}: ${f.error}`);
  }
  return report;
}

/** `trawl history <url>`: every interaction with a URL, marking content drift between fetches. */
export async function historyCommand(dataDir: string, url: string | undefined, json: boolean, out: (line: string) => void): Promise<void> {
  if (!url) throw new UsageError('trawl history needs a URL: trawl history https://example.com/page');
  const store = openStore(dataDir);
  try {
    const entries = await store.history(url);
    if (entries.length === 0) out(json ? jsonLine({ type: 'history', url, entries: [] }) : `${url} was never fetched`);
    for (const e of entries)
      out(
        json
          ? jsonLine({ type: 'fetch', ...e })
          : `run ${e.runId}  ${new Date(e.fetchedAt).toISOString()}  ${e.status ?? e.error ?? '-'}  ${e.contentHash?.slice(0, 12) ?? ''}${e.changed ? '  changed' : ''}`,
      );
  } finally {
    await store.close();
  }
}

/**
 * `trawl webhooks [--failed]`: the deliveries `trawl serve` recorded in jobs.db, newest first, with
 * their attempts and last answer. Returns how many of those listed never got a 2xx (the exit code
 * says whether any failed).
 */
export async function webhooksCommand(
  dataDir: string,
  flags: { failed: boolean; limit?: number },
  json: boolean,
  out: (line: string) => void,
): Promise<number> {
  const book = JobBook.open(dataDir, true);
  if (!book) {
    out(
      json
        ? jsonLine({ type: 'webhooks', deliveries: 0 })
        : `no webhook deliveries in ${dataDir}: they are recorded by trawl serve --write-token … --webhook URL`,
    );
    return 0;
  }
  try {
    const deliveries = book.deliveries(flags.failed, flags.limit ?? 100);
    if (!deliveries.length && !json) out(flags.failed ? 'no failed webhook deliveries' : 'no webhook deliveries yet');
    for (const d of deliveries)
      out(
        json
          ? jsonLine({ type: 'delivery', ...d })
          : `${new Date(d.at).toISOString()}  ${d.ok ? 'delivered' : 'FAILED   '}  ${d.event.padEnd(14)} ${d.url}  ${d.attempts} attempt${d.attempts === 1 ? '' : 's'}, ${d.status ? `HTTP ${d.status}` : (d.error ?? '-')}${d.job ? `  job ${d.job}` : ''}`,
      );
    return deliveries.filter((d) => !d.ok).length;
  } finally {
    book.close();
  }
}
