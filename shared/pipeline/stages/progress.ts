import type { StoredPage } from './context.js';
import type { EnrichRunResult } from './enrich-stage.js';
import type { ChangeKind, ChangeRecord, FrontierRow, RunSummary, SelectionRecord, UrlReason, UrlState } from '../../ports/index.js';
import type { FetchKind } from '../../fetch/content-type.js';
import type { ProcessResult } from './process-stage.js';
import type { RobotsLoad } from './robots-stage.js';
import type { RenderCapture } from './render-stage.js';
import type { TargetDiscovery } from './discover-stage.js';
import type { StageTimes } from '../../log/stage-clock.js';
import { renderStoppedBy } from '../../render/decision.js';

export interface ProgressStats {
  runId: number;
  pages: number;
  requests: number;
  errors: number;
  blocked: number;
  bytes: number;
  hostsParked: number;
  /** Pages rendered in Chromium, and renders that failed. */
  rendered: number;
  renderFailures: number;
  /**
   * Pages not rendered because renders of their template (`template /app/:n`) or host
   * (`host a.test`) had gained nothing this run, by what stopped them.
   */
  renderSkipped: Record<string, number>;
  elapsedMs: number;
  pagesPerSecond: number;
}

/** What the runner reports as it goes; the CLI renders these as a progress line or JSON lines. */
export type CrawlEvent =
  | { type: 'start'; runId: number; resumed: boolean; requeued?: number; exhausted?: number; carried?: number; fromArchive?: number }
  | { type: 'fetch'; url: string; kind: FetchKind; status?: number; state: UrlState; reason?: UrlReason; ms: number; bytes: number }
  | { type: 'blocked'; url: string; reason: 'robots' }
  | {
      type: 'render';
      url: string;
      reason: string;
      ok: boolean;
      gained: boolean;
      /** The page's network and DOM went quiet before the render's time was up. */
      settled: boolean;
      ms: number;
      requests: number;
      blocked: Record<string, number>;
      error?: string;
    }
  | { type: 'robots'; host: string; policy: string; requested: boolean; status?: number; error?: string }
  | { type: 'host-parked'; host: string; reason: string; dropped: number }
  | { type: 'deferred'; host: string; urls: number; until: number }
  /** A search query or social account of the crawl was called (or its answer taken from the run's archive): the URLs it led to. */
  | ({ type: 'target' } & TargetDiscovery)
  /** At most every 250 ms while the crawl runs: the counters, URLs waiting and hosts being fetched. */
  | { type: 'progress'; stats: ProgressStats; queued: number; activeHosts: number; waitingHosts?: number }
  /** `stages` (with `--stage-times`): milliseconds by stage, the `crawl thread`'s total among them (its event loop's busy time). */
  | { type: 'done'; summary: RunSummary; stats: ProgressStats; stages?: StageTimes }
  /** After a crawl with `enrich`: the Summarize and Index pass over its pages (inline, then the sweep). */
  | { type: 'enriched'; result: EnrichRunResult; inline: number }
  /** What changed since the run before (a finished run that had one): the counts, and the changes the crawl's monitor tells. */
  | { type: 'changes'; runId: number; counts: Partial<Record<ChangeKind, number>>; told: ChangeRecord[] }
  | { type: 'selected'; selections: SelectionRecord[]; report: string };

/** Running counters of a crawl, and the event stream. */
export class CrawlProgress {
  private runId = 0;
  private readonly startedAt: number;
  private pages = 0;
  private requests = 0;
  private errors = 0;
  private blockedCount = 0;
  private bytes = 0;
  private parkedHosts = 0;
  private renders = 0;
  private renderFailures = 0;
  private readonly renderSkipped: Record<string, number> = {};
  private lastTick = 0;

  constructor(
    private readonly clock: () => number,
    private readonly emit: (e: CrawlEvent) => void = () => {},
  ) {
    this.startedAt = clock();
  }

  started(runId: number, resumed: boolean, counts?: { requeued?: number; exhausted?: number; carried?: number; fromArchive?: number }): void {
    this.runId = runId;
    this.emit({ type: 'start', runId, resumed, ...counts });
  }

  target(d: TargetDiscovery): void {
    this.requests += d.source === 'live' ? 1 : 0;
    this.emit({ type: 'target', ...d });
  }

  deferred(host: string, urls: number, until: number): void {
    this.emit({ type: 'deferred', host, urls, until });
  }

  fetched(row: FrontierRow, r: ProcessResult): void {
    this.requests++;
    if (row.kind === 'page' && !r.retry && r.fetch?.status !== undefined) this.pages++;
    if (r.state === 'failed' || (r.fetch?.error && !r.fetch.error.startsWith('skipped'))) this.errors++;
    this.bytes += r.fetch?.bytes ?? 0;
    const stopped = r.page?.render?.outcome === 'not-rendered' ? renderStoppedBy(r.page.render.reason) : undefined;
    if (stopped) {
      const key = stopped === 'host' ? `host ${row.host}` : `${stopped} of ${row.host}`;
      this.renderSkipped[key] = (this.renderSkipped[key] ?? 0) + 1;
    }
    this.emit({
      type: 'fetch',
      url: row.url,
      kind: row.kind,
      status: r.fetch?.status,
      state: r.state,
      reason: r.reason,
      ms: r.fetch?.durationMs ?? 0,
      bytes: r.fetch?.bytes ?? 0,
    });
  }

  rendered(row: FrontierRow, c: RenderCapture): void {
    if (c.ok) this.renders++;
    else this.renderFailures++;
    const { reason, ok, gained, settled, durationMs: ms, requests, blocked, error } = c;
    this.emit({ type: 'render', url: row.url, reason, ok, gained, settled, ms, requests, blocked, error });
  }

  blocked(row: FrontierRow): void {
    this.blockedCount++;
    this.emit({ type: 'blocked', url: row.url, reason: 'robots' });
  }

  robots(host: string, load: RobotsLoad): void {
    if (load.requested) this.requests++;
    this.emit({ type: 'robots', host, policy: load.policy.kind, requested: load.requested, status: load.lastStatus, error: load.error });
  }

  parked(host: string, reason: string, dropped: number): void {
    this.parkedHosts++;
    this.emit({ type: 'host-parked', host, reason, dropped });
  }

  /** Emits a `progress` event unless one went out in the last 250 ms. */
  tick(live: () => { queued: number; activeHosts: number; waitingHosts?: number }): void {
    const now = this.clock();
    if (now - this.lastTick < 250) return;
    this.lastTick = now;
    this.emit({ type: 'progress', stats: this.stats(), ...live() });
  }

  stats(): ProgressStats {
    const elapsedMs = this.clock() - this.startedAt;
    return {
      runId: this.runId,
      pages: this.pages,
      requests: this.requests,
      errors: this.errors,
      blocked: this.blockedCount,
      bytes: this.bytes,
      hostsParked: this.parkedHosts,
      rendered: this.renders,
      renderFailures: this.renderFailures,
      renderSkipped: { ...this.renderSkipped },
      elapsedMs,
      pagesPerSecond: elapsedMs > 0 ? (this.pages * 1000) / elapsedMs : 0,
    };
  }

  finish(summary: RunSummary, stages?: StageTimes): void {
    this.emit({ type: 'done', summary, stats: this.stats(), ...(stages ? { stages } : {}) });
  }
}

/** Code a library user runs as the crawl goes. */
export interface CrawlHooks {
  onEvent?: (event: CrawlEvent) => void;
  /** Called after each stored page is committed; an error it throws is logged and the crawl goes on. */
  onPage?: (page: StoredPage) => void | Promise<void>;
}
