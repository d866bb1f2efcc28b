import type { CrawlSettings } from '../config/settings.js';
import { UsageError } from '../errors.js';
import type { EmbeddedOverrides } from '../pipeline/embedded.js';
import { openEmbedded } from '../pipeline/embedded.js';
import { CrawlRunner } from '../pipeline/crawl-runner.js';
import type { CrawlEvent } from '../pipeline/progress.js';
import type { RunSummary } from '../store/ports.js';
import { canonicalize } from '../url/canonical.js';
import { jsonLine, progressLine, summaryText } from './render.js';
import { requireDataDir } from './data-commands.js';
import { resumableRun } from '../pipeline/run-start.js';
import { SqliteCrawlStore } from '../store/local/sqlite-store.js';

/** Says why `--resume` cannot work, reading the data directory without changing it. */
async function checkResumable(dataDir: string): Promise<void> {
  requireDataDir(dataDir, 'nothing to resume');
  const store = new SqliteCrawlStore(dataDir, { readonly: true });
  try {
    await resumableRun(store, dataDir);
  } finally {
    await store.close();
  }
}

export interface CrawlIo {
  out: (line: string) => void;
  /** Rewrites the live progress line (a terminal); absent when output is not a TTY. */
  status?: (line: string) => void;
  onSignal?: (handler: () => void) => void;
}

/** Checks seeds: absolute http(s) URLs, nothing else. */
export function validateSeeds(seeds: string[]): string[] {
  if (seeds.length === 0) throw new UsageError('no seed URL given: run trawl crawl https://example.com/');
  return seeds.map((seed) => {
    const url = canonicalize(seed);
    if (!url) throw new UsageError(`invalid seed ${JSON.stringify(seed)}: give an absolute http:// or https:// URL`);
    return url;
  });
}

/** `trawl crawl`: runs the embedded crawler and prints progress and a summary. */
export async function crawlCommand(seedArgs: string[], settings: CrawlSettings, io: CrawlIo, overrides: EmbeddedOverrides = {}): Promise<RunSummary> {
  const seeds = settings.resume && seedArgs.length === 0 ? [] : validateSeeds(seedArgs);
  // Everything is checked before the data directory is touched: a failed start leaves it as it was.
  if (settings.resume) await checkResumable(settings.data);
  const ctx = openEmbedded(settings, { command: `trawl crawl ${settings.resume ? '--resume' : seeds.join(' ')}`.slice(0, 200), ...overrides });
  const runner = new CrawlRunner(ctx, { seeds, resume: settings.resume, graph: ctx.graph, onEvent: (e) => onEvent(e) });
  let lastLine = 0;
  const onEvent = (e: CrawlEvent) => {
    if (settings.json) {
      if (e.type !== 'done') io.out(jsonLine(e));
      return;
    }
    if (e.type === 'host-parked') io.out(`parked ${e.host}: ${e.reason}`);
    if (e.type === 'deferred') io.out(`deferred ${e.urls} URLs of ${e.host} until ${new Date(e.until).toISOString()} (backed off): trawl crawl --resume or the next crawl picks them up`);
    const now = ctx.clock();
    if (io.status && now - lastLine > 200) {
      lastLine = now;
      const live = runner.liveCounts();
      io.status(progressLine(runner.progress.stats(), live.queued, live.activeHosts));
    }
  };
  io.onSignal?.(() => runner.stop());
  const started = ctx.clock();
  try {
    const summary = await runner.crawl();
    const elapsed = ctx.clock() - started;
    if (settings.json) io.out(jsonLine({ type: 'summary', ...summary, elapsedMs: elapsed, stats: runner.progress.stats() }));
    else {
      io.status?.('');
      io.out(summaryText(summary, settings.data, elapsed));
    }
    return summary;
  } finally {
    await ctx.close();
  }
}
