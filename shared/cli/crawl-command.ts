import type { CrawlSettings } from '../config/settings.js';
import { crawl } from '../library/crawl.js';
import type { CrawlEvent } from '../pipeline/stages/progress.js';
import type { RunRecord, RunSummary } from '../ports/index.js';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { openLocalForReading } from '../store/local/open-local.js';
import { liveLockHolder } from '../store/local/data-lock.js';
import { UsageError } from '../errors.js';
import { counted, jsonLine, progressLine, stageText, summaryText, targetLine } from './render.js';
import type { Env } from '../config/resolve.js';
import { enrichSummaryText } from './search-commands.js';
import type { EnrichRunResult } from '../pipeline/stages/enrich-stage.js';
import { storedSelectionText } from './select-command.js';
import { changeLine } from './changes-command.js';

/** Changes a crawl prints as it ends; `trawl changes` lists them all. */
const TOLD_LINES = 20;

export interface CrawlIo {
  out: (line: string) => void;
  /** Why a crawl stored nothing, or its enrichment all failed: stderr, so `trawl crawl … > out.txt` still shows it. @default out */
  err?: (line: string) => void;
  /** Rewrites the live progress line (a terminal); absent when output is not a TTY. */
  status?: (line: string) => void;
  onSignal?: (handler: () => void) => void;
  /** One JSON object per event instead of the progress line and the summary text. */
  json?: boolean;
  /** Where the search and social backends' endpoints and keys are read (settings are already resolved). @default {} */
  env?: Env;
  /** The command that goes on with this crawl (`trawl crawl --resume …`), said when it ends interrupted. */
  resumeCommand?: string;
  /** `--new-run`: start a new crawl even when the last run was interrupted (it is abandoned). Without it, such a crawl is refused. */
  newRun?: boolean;
}

/** What a connection error means, in words a user acts on. */
export function reachHint(error: string): string {
  if (/ENOTFOUND|EAI_AGAIN|EAI_NONAME|does not resolve/i.test(error)) return `its name does not resolve: check the spelling, or this machine's DNS (${error})`;
  if (/ECONNREFUSED/.test(error)) return `the connection was refused: nothing listens there (${error})`;
  if (/ECONNRESET|EPIPE/.test(error)) return `the connection was cut (${error})`;
  if (/ETIMEDOUT|timed? ?out/i.test(error)) return `it did not answer in time (${error})`;
  if (/CERT|certificate|SSL|TLS/i.test(error)) return `its TLS certificate was refused (${error})`;
  return error;
}

/**
 * A crawl's summary, the hosts it could not reach (host: the error), which made it store nothing
 * when it stored nothing, and its enrichment's result when it enriched.
 */
export type CrawlOutcome = RunSummary & { unreachable: Record<string, string>; enrichment?: EnrichRunResult };

/** Whether an enrichment pass failed every page it tried (none enriched, none already done). */
export const enrichmentAllFailed = (r: EnrichRunResult | undefined): boolean => r !== undefined && r.failed > 0 && r.enriched === 0 && r.unchanged === 0;

/**
 * The CLI's exit code for a crawl: 1 when it stored no page and a host could not be reached, or
 * when its enrichment failed on every page; else 0.
 */
export const crawlExitCode = (outcome: CrawlOutcome): number =>
  (outcome.pagesStored === 0 && Object.keys(outcome.unreachable).length > 0) || enrichmentAllFailed(outcome.enrichment) ? 1 : 0;

/** `trawl crawl`: the library's `crawl` with progress on the terminal (or JSON lines) and a summary. */
/**
 * The same command again after Ctrl-C would abandon the interrupted run: refused, naming both ways
 * on (`--resume`, or `--new-run` to start over), before anything is touched.
 */
async function refuseOverInterrupted(dataDir: string, resumeCommand: string | undefined): Promise<void> {
  if (!existsSync(join(dataDir, 'trawl.db'))) return;
  let latest: RunRecord | undefined;
  try {
    const local = openLocalForReading(dataDir);
    try {
      latest = await local.store.latestRun();
    } finally {
      await local.close();
    }
  } catch {
    // A database the crawl cannot read as it is (half made, an older schema to migrate, damaged):
    // the crawl's own opening says what is wrong, or mends it.
    return;
  }
  // A run still marked running whose process is gone (killed, its machine restarted) was interrupted too.
  const orphaned = latest?.status === 'running' && !liveLockHolder(dataDir);
  if (latest?.status !== 'interrupted' && !orphaned) return;
  throw new UsageError(
    `run ${latest!.id} in ${dataDir} was interrupted${orphaned ? ' (its crawl process is gone: killed, or its machine restarted)' : ''}: go on where it stopped with  ${resumeCommand ?? 'trawl crawl --resume'}  or pass --new-run to start a new crawl (run ${latest!.id} is then abandoned)`,
  );
}

export async function crawlCommand(seedArgs: string[], settings: CrawlSettings, io: CrawlIo): Promise<CrawlOutcome> {
  const abort = new AbortController();
  const unreachable: Record<string, string> = {};
  const err = io.err ?? io.out;
  let enrichment: EnrichRunResult | undefined;
  io.onSignal?.(() => abort.abort());
  let last: Extract<CrawlEvent, { type: 'progress' }> | undefined;
  let done: Extract<CrawlEvent, { type: 'done' }> | undefined;
  const onEvent = (e: CrawlEvent) => {
    if (e.type === 'progress') last = e;
    if (e.type === 'done') done = e;
    // Said at once, not after the back-off gives up: a mistyped or unreachable host otherwise shows nothing for minutes.
    const firstFailure = e.type === 'robots' && e.policy === 'unreachable' && e.error !== undefined && !(e.host in unreachable);
    if (firstFailure) unreachable[e.host] = e.error!;
    if (firstFailure && !io.json) err(`cannot reach ${e.host}: ${reachHint(e.error!)}`);
    if (e.type === 'enriched') enrichment = e.result;
    if (io.json) {
      if (e.type !== 'done' && e.type !== 'progress') io.out(jsonLine(e));
      return;
    }
    // A host said unreachable above is not said again with its cause.
    if (e.type === 'host-parked') io.out(`parked ${e.host}: ${e.host in unreachable ? 'it could not be reached (said above)' : e.reason}`);
    if (e.type === 'target') io.out(targetLine(e));
    if (e.type === 'render' && !e.ok) io.out(`render failed for ${e.url} (extracted as served): ${e.error ?? 'unknown'}`);
    if (e.type === 'deferred')
      io.out(
        `deferred ${counted(e.urls, 'URL')} of ${e.host} until ${new Date(e.until).toISOString()} (backed off): trawl crawl --resume or the next crawl picks them up`,
      );
    if (e.type === 'progress') io.status?.(progressLine(e.stats, e.queued, e.activeHosts, e.waitingHosts, settings.maxPages));
    if (e.type === 'enriched') io.out(enrichSummaryText(e.result));
    if (e.type === 'selected') for (const line of storedSelectionText(e.selections, e.report)) io.out(line);
    if (e.type === 'changes') {
      for (const c of e.told.slice(0, TOLD_LINES)) io.out(changeLine(c));
      if (e.told.length > TOLD_LINES) io.out(`… and ${e.told.length - TOLD_LINES} more: trawl changes --run ${e.runId}`);
    }
  };
  const started = Date.now();
  const report = (summary: RunSummary) => {
    const elapsedMs = Date.now() - started;
    if (io.json) return io.out(jsonLine({ type: 'summary', ...summary, elapsedMs, stats: done?.stats ?? last?.stats }));
    io.status?.('');
    io.out(summaryText(summary, settings.data, elapsedMs));
    if (done?.stages) io.out(stageText(done.stages, summary.requests));
    if (done && done.stats.rendered + done.stats.renderFailures > 0)
      io.out(
        `rendered in Chromium: ${counted(done.stats.rendered, 'page')} (${counted(done.stats.renderFailures, 'render')} failed; ${done.stats.renderFailures === 1 ? 'that page was' : 'those pages were'} extracted as served)`,
      );
    for (const [what, n] of Object.entries(done?.stats.renderSkipped ?? {}))
      io.out(`rendering skipped ${counted(n, 'page')} of ${what}: its renders added no text or links (--render always or --render-host renders them)`);
  };
  if (!settings.resume && !io.newRun) await refuseOverInterrupted(settings.data, io.resumeCommand);
  let summary: RunSummary;
  try {
    // Settings come resolved; `env` is read only for the backends of search and social seeds (and enrichment providers).
    summary = await crawl(seedArgs, { ...settings, env: io.env ?? {}, signal: abort.signal, onEvent });
  } catch (err) {
    // A run that ended early but summed itself up (a full disk) shows what it stored before the error.
    if (done) report(done.summary);
    throw err;
  }
  report(summary);
  if (summary.status === 'interrupted' && io.resumeCommand && !io.json) io.out(`interrupted: go on where it stopped with  ${io.resumeCommand}`);
  const hosts = Object.keys(unreachable);
  if (summary.pagesStored === 0 && hosts.length > 0 && !io.json)
    err(`no page stored: ${hosts.join(', ')} could not be reached${io.err ? ' (said above)' : ''}`);
  if (enrichmentAllFailed(enrichment) && !io.json)
    err(`enrichment failed on every page it tried (${counted(enrichment!.failed, 'page')}): the failures are listed above; trawl enrich retries them`);
  return { ...summary, unreachable, ...(enrichment ? { enrichment } : {}) };
}
