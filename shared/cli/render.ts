import { printableJson } from './terminal-text.js';
import { CHANGE_KINDS, type ChangeKind, type RunSummary } from '../ports/index.js';
import type { CrawlEvent, ProgressStats } from '../pipeline/stages/progress.js';

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 ** 2) return `${(n / 1024).toFixed(1)} KiB`;
  if (n < 1024 ** 3) return `${(n / 1024 ** 2).toFixed(1)} MiB`;
  return `${(n / 1024 ** 3).toFixed(2)} GiB`;
}

/** 1h02m, 3m05s, 42s. */
export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s >= 3600) return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
  if (s >= 60) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${s}s`;
}

/**
 * The crawl's one-line progress on a terminal: pages and requests with their rates, the queue,
 * hosts being fetched and waiting out a delay, errors, elapsed time, and an ETA under a page budget.
 */
export function progressLine(s: ProgressStats, queued: number, activeHosts: number, waitingHosts = 0, maxPages?: number): string {
  const seconds = s.elapsedMs / 1000;
  const rps = seconds > 0 ? s.requests / seconds : 0;
  // The work queued now, at the current request rate (a page budget caps it): an ETA toward
  // `maxPages` alone promised hours for a small site that runs out of URLs in a minute.
  const left = Math.min(queued, maxPages !== undefined ? Math.max(0, maxPages - s.pages) : Infinity);
  const eta = left > 0 && rps > 0 ? `  ETA ~${formatDuration((left / rps) * 1000)}` : '';
  return (
    `pages ${s.pages} (${s.pagesPerSecond.toFixed(1)}/s)  requests ${s.requests} (${rps.toFixed(1)}/s)  queued ${queued}  ` +
    `hosts ${activeHosts} fetching, ${waitingHosts} waiting, ${s.hostsParked} parked  errors ${s.errors}  blocked ${s.blocked}` +
    `${s.rendered ? `  rendered ${s.rendered}` : ''}  ${formatBytes(s.bytes)}  ${formatDuration(s.elapsedMs)}${eta}`
  );
}

function table(title: string, counts: Record<string, number>): string[] {
  const entries = Object.entries(counts).sort((a, b) => b[1] - a[1]);
  if (entries.length === 0) return [`${title}: none`];
  return [`${title}:`, ...entries.map(([k, v]) => `  ${k.padEnd(24)} ${v}`)];
}

/** The people-facing summary printed at the end of a crawl and by `trawl status`. */
export function summaryText(summary: RunSummary, dataDir: string, elapsedMs?: number): string {
  const traps = Object.entries(summary.skipsByReason)
    .filter(([k]) => k.startsWith('trap:'))
    .reduce((n, [, v]) => n + v, 0);
  const lines = [
    `run ${summary.runId} ${summary.status}  seeds: ${[...summary.seeds, ...(summary.targets ?? [])].join(' ')}`,
    `requests ${summary.requests}  pages stored ${summary.pagesStored}  unchanged ${summary.unchanged}  duplicates ${summary.duplicates}  bytes ${formatBytes(summary.bytes)}`,
    `robots-blocked ${summary.skipsByReason.robots ?? 0}  traps avoided ${traps}${elapsedMs !== undefined ? `  time ${(elapsedMs / 1000).toFixed(1)} s` : ''}`,
    ...table('urls by state', summary.urlsByState),
    ...table('responses by status', summary.fetchesByStatus),
    ...table('skips by reason', summary.skipsByReason),
  ];
  if (summary.hostsParked.length) lines.push('parked hosts:', ...summary.hostsParked.map((h) => `  ${h.host}: ${h.reason}`));
  if (summary.changes) lines.push(`changes since the run before: ${changeCountsText(summary.changes)} (trawl changes --run ${summary.runId})`);
  lines.push(`stored in ${dataDir} (trawl.db, warc/, blobs/)`);
  return lines.join('\n');
}

/** `2 changed, 1 new, …` in the order of CHANGE_KINDS. */
export function changeCountsText(counts: Partial<Record<ChangeKind, number>>): string {
  const parts = CHANGE_KINDS.filter((k) => counts[k]).map((k) => `${counts[k]} ${k}`);
  return parts.length ? parts.join(', ') : 'none';
}

export function jsonLine(event: CrawlEvent | Record<string, unknown>): string {
  // JSON escapes C0 controls itself; DEL, C1 and bidi overrides get \u escapes too, so a line is
  // safe to print whatever the page held.
  return printableJson(JSON.stringify(event));
}

/** One line per search or social target a crawl started from: what it led to, or why it failed. */
export function targetLine(e: Extract<CrawlEvent, { type: 'target' }>): string {
  const what = e.kind === 'search' ? 'search' : 'social';
  if (e.error) return `${what} ${e.key} failed (the crawl goes on without it): ${e.error}`;
  return `${what} ${e.key}: ${e.links} URLs to crawl${e.source === 'archive' ? ' (its answer from this run’s archive)' : ''}`;
}

/** Where a crawl's time went (`--stage-times`), in ms per request, by thread. */
export function stageText(stages: Record<string, number>, requests: number): string {
  const per = (ms: number) => (ms / Math.max(1, requests)).toFixed(2);
  // A PDF is read where pages are extracted (its time is the wait for its text).
  const EXTRACTION = ['parse', 'render signals', 'links', 'metadata', 'main content', 'markdown', 'chunks', 'simhash', 'fields', 'PDF'];
  const WRITER = ['SQLite', 'SQLite checkpoints', 'blob files'];
  const line = (label: string, names: string[]) => {
    const parts = names.filter((n) => stages[n]).map((n) => `${n} ${per(stages[n]!)}`);
    return parts.length ? `  ${label}: ${parts.join(', ')}` : undefined;
  };
  const crawl = stages['crawl thread'] ?? 0;
  const archive = stages.WARC ?? 0;
  return [
    `time by stage, ms per request (${requests} requests):`,
    `  crawl thread: ${per(crawl)} (fetch, scheduling, records ${per(crawl - archive)}, WARC ${per(archive)})`,
    line('extraction', EXTRACTION),
    line('writer thread', WRITER),
  ]
    .filter(Boolean)
    .join('\n');
}

/** `1 page`, `2 pages`: a count with its noun, singular for one. */
export function counted(n: number, noun: string, plural = `${noun}s`): string {
  return `${n} ${n === 1 ? noun : plural}`;
}
