// `trawl doctor --rebuild`: a data directory's database made again from its WARC files. Each
// archived answer goes through the same stages a crawl's answer goes through (stored, extracted,
// its links and aliases kept, committed), read back from its record instead of asked of the host;
// then the runs are ranked. Nothing is fetched.
import { createReadStream, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { WARCParser } from 'warcio';
import { errorMessage } from '../../errors.js';
import type { FetchKind } from '../../fetch/content-type.js';
import { frontierRowOf, type WarcLocation } from '../../ports/index.js';
import { canonicalize, urlId } from '../../url/canonical.js';
import type { CrawlContext } from '../stages/context.js';
import { archivedStage, storeStage } from '../stages/fetch-stage.js';
import { fetchRecord, processStage, toFetchCommit } from '../stages/process-stage.js';

/** What a rebuild found and made. */
export interface RebuildReport {
  warcFiles: number;
  /** The runs made again, by the run id the archive names (their ids in the new database may differ). */
  runs: Array<{ archived: number; runId: number; answers: number; pages: number }>;
  /** Archived answers that could not be processed (the rest of the run goes on). */
  failed: Array<{ url: string; error: string }>;
  /** Rendered views (the DOM Chromium produced) in the archive: their pages are extracted as served. */
  renderedViews: number;
}

/** One archived answer of the live fetcher: where its record is, and what its metadata record says. */
interface ArchivedCapture {
  url: string;
  at: number;
  warc: WarcLocation;
  kind: FetchKind;
  durationMs: number;
}

/** Kinds whose answers are processed as a crawl processes them; a robots.txt answer is kept in the fetch history only (the next crawl reads the file again). */
const PROCESSED: ReadonlySet<string> = new Set(['page', 'sitemap', 'feed']);
const HISTORY_ONLY: ReadonlySet<string> = new Set(['robots']);

/** The WARC files of a data directory by the run their name carries (`trawl-<run>-…`), oldest first. */
export function warcFilesByRun(warcDir: string): Map<number, string[]> {
  const byRun = new Map<number, string[]>();
  for (const name of readdirSync(warcDir).sort()) {
    const m = /^trawl-(\d+)-.*\.warc(\.gz)?$/.exec(name);
    if (!m) continue;
    const run = Number(m[1]);
    byRun.set(run, [...(byRun.get(run) ?? []), name]);
  }
  return new Map([...byRun].sort((a, b) => a[0] - b[0]));
}

/**
 * The live fetcher's answers in one WARC file, in order: each response or revisit with the
 * metadata record written with it (its fetch kind and time), and how many rendered views it holds.
 */
async function capturesOf(warcDir: string, file: string): Promise<{ captures: ArchivedCapture[]; renderedViews: number }> {
  const captures: ArchivedCapture[] = [];
  const pending = new Map<string, { url: string; at: number; warc: WarcLocation }>();
  let renderedViews = 0;
  const parser = new WARCParser(createReadStream(join(warcDir, file)));
  for await (const record of parser) {
    const payload = Buffer.from(await record.readFully(false));
    const offset = parser.offset;
    const length = parser.recordLength;
    const type = record.warcType;
    const id = record.warcHeader('WARC-Record-ID') ?? '';
    if (type === 'conversion') renderedViews++;
    if ((type === 'response' || type === 'revisit') && record.warcTargetURI) {
      pending.set(id, { url: record.warcTargetURI, at: Date.parse(record.warcDate ?? '') || 0, warc: { file, offset, length, recordId: id } });
      continue;
    }
    if (type !== 'metadata') continue;
    const answer = pending.get(record.warcHeader('WARC-Concurrent-To') ?? '');
    if (!answer) continue;
    pending.delete(record.warcHeader('WARC-Concurrent-To') ?? '');
    const fields = new Map(
      payload
        .toString('utf8')
        .split(/\r?\n/)
        .map((line) => [line.slice(0, line.indexOf(':')).trim(), line.slice(line.indexOf(':') + 1).trim()] as const),
    );
    if ((fields.get('fetcher') ?? 'http') !== 'http') continue;
    captures.push({ ...answer, kind: (fields.get('kind') ?? 'page') as FetchKind, durationMs: Number(fields.get('duration-ms') ?? 0) });
  }
  return { captures, renderedViews };
}

/** Makes the runs of the archive again in `ctx.store`, answer by answer, then ranks each run. */
export async function rebuildFromArchive(ctx: CrawlContext, warcDir: string, graph?: { computeRanks(runId: number): Promise<number> }): Promise<RebuildReport> {
  const report: RebuildReport = { warcFiles: 0, runs: [], failed: [], renderedViews: 0 };
  for (const [archived, files] of warcFilesByRun(warcDir)) {
    const captures: ArchivedCapture[] = [];
    for (const file of files) {
      const found = await capturesOf(warcDir, file);
      captures.push(...found.captures);
      report.renderedViews += found.renderedViews;
      report.warcFiles++;
    }
    const processed = captures.filter((c) => PROCESSED.has(c.kind) || HISTORY_ONLY.has(c.kind));
    if (!processed.some((c) => PROCESSED.has(c.kind))) continue;
    const seed = processed.find((c) => c.kind === 'page') ?? processed.find((c) => PROCESSED.has(c.kind))!;
    const run = await ctx.store.createRun([seed.url], { rebuiltFromArchive: archived }, captures[0]!.at);
    const entry = { archived, runId: run.id, answers: 0, pages: 0 };
    for (const capture of processed) {
      const url = canonicalize(capture.url) ?? capture.url;
      const row = frontierRowOf({ runId: run.id, urlId: urlId(url), url, host: new URL(url).host, kind: capture.kind });
      try {
        const fetched = await archivedStage(ctx, row, { warc: capture.warc, at: capture.at, durationMs: capture.durationMs, wireBytes: 0 });
        if (HISTORY_ONLY.has(capture.kind)) {
          await ctx.store.recordFetch(fetchRecord(row, await storeStage(ctx, row, fetched, Promise.resolve(capture.warc))));
          entry.answers++;
          continue;
        }
        await ctx.store.addUrls([row]);
        const outcome = await storeStage(ctx, row, fetched, Promise.resolve(capture.warc));
        const result = await processStage(ctx, row, outcome);
        await ctx.store.commitFetch(toFetchCommit(result, { runId: run.id, urlId: row.urlId, attempts: 1 }));
        entry.answers++;
        if (result.page) entry.pages++;
      } catch (err) {
        report.failed.push({ url, error: errorMessage(err) });
      }
    }
    await ctx.store.setRunStatus(run.id, 'finished', captures.at(-1)!.at);
    await graph?.computeRanks(run.id);
    report.runs.push(entry);
  }
  return report;
}
