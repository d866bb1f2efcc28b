import { errorMessage, nextStep } from '../errors.js';
import type { HostQueue } from '../frontier/host-queue.js';
import { afterRequest, newHostState, readyAt } from '../politeness/host-state.js';
import { RateLimiter } from '../politeness/rate-limiter.js';
import { robotsAllows, robotsSitemaps } from '../robots/robots-policy.js';
import type { GraphStore, FrontierRow, RunRecord, RunSummary } from '../store/ports/index.js';
import { robotsRefusal } from './run-records.js';
import { timerDelay } from '../politeness/timers.js';
import { carriedOver, resumableRun, resumeCounts } from './run-start.js';
import { urlId } from '../url/canonical.js';
import { Admitter, type Candidate } from './admission.js';
import { politenessConfig, type CrawlContext } from './context.js';
import { CrawlState, knownOf } from './crawl-state.js';
import { fetchStage, type FetchOutcome } from './fetch-stage.js';
import { hostAfterRender, renderStage, robotsCheck, servedDocument, type RenderWanted } from './render-stage.js';
import { fetchCommit, processStage, type ProcessResult } from './process-stage.js';
import { hostAfterRobots, loadRobots } from './robots-stage.js';
import { CrawlProgress } from './progress.js';
import { storedPage } from './stored-page.js';
import { Gate, PREVIEWS_AT_ONCE, previewStage } from './preview-stage.js';
import { apiClientFor, discoverTargets, runTargets } from './discover-stage.js';
import type { Env } from '../config/resolve.js';
import type { Resolver } from '../fetch/address-guard.js';

export interface RunnerOptions {
  seeds: string[];
  /** Search queries and social accounts to start from as well (validated; see discover-stage). */
  targets?: string[];
  /** Where the search and social backends' endpoints and keys are read. @default {} */
  targetEnv?: Env;
  /** Resolves the backends' host names (the address guard checks what it returns). */
  resolver?: Resolver;
  resume: boolean;
  /** When given, inlink counts and PageRank are computed at the end of a finished crawl. */
  graph?: GraphStore;
}

/**
 * The embedded runner: one process, many hosts at once, one request per host at a time.
 * It owns scheduling; every decision about a URL is made by the stage functions.
 */
export class CrawlRunner {
  private run!: RunRecord;
  private admitter!: Admitter;
  private readonly state = new CrawlState();
  private readonly limiter: RateLimiter;
  private readonly previewGate = new Gate(PREVIEWS_AT_ONCE);
  private readonly politeness;
  private active = 0;
  private pageSlots = 0;
  private stopping = false;
  /** The crawl's time budget ends here (`--max-minutes`); Infinity without one. */
  private deadline = Infinity;
  private fatal: unknown;
  private wakeUp: (() => void) | undefined;
  readonly progress: CrawlProgress;

  constructor(
    private readonly ctx: CrawlContext,
    private readonly options: RunnerOptions,
  ) {
    this.limiter = new RateLimiter(ctx.settings.maxRps, ctx.clock());
    this.politeness = politenessConfig(ctx.settings);
    this.progress = new CrawlProgress(ctx.clock, ctx.hooks.onEvent);
  }

  /** URLs waiting and hosts being fetched right now, for the progress line. */
  liveCounts(): { queued: number; activeHosts: number } {
    return { queued: this.state.queuedCount(), activeHosts: this.active };
  }

  /** Asks the crawl to stop: nothing new starts, requests in flight finish, the run stays resumable. */
  stop(): void {
    this.stopping = true;
    this.wakeUp?.();
  }

  async crawl(): Promise<RunSummary> {
    // The extraction workers load while the run starts, so their start-up is not paid mid-crawl.
    await Promise.all([this.options.resume ? this.resumeRun() : this.startRun(), this.ctx.extractor.ready?.()]);
    if (this.ctx.settings.maxMinutes > 0) this.deadline = this.ctx.clock() + this.ctx.settings.maxMinutes * 60_000;
    while (true) {
      const wake = this.dispatch();
      if (this.active === 0) {
        if (this.stopping || this.budgetReached() || this.state.scheduler.isEmpty()) break;
        // Nothing runs and the next host is not ready: end now rather than wait for nothing but a back-off.
        if (this.ctx.clock() >= this.deadline || (wake !== undefined && this.nothingButWaits(wake))) {
          await this.leaveWaitingHosts();
          break;
        }
      }
      await this.sleep(wake === undefined ? undefined : Math.min(wake, this.deadline));
    }
    if (this.fatal) throw this.fatal;
    const status = this.stopping ? 'interrupted' : 'finished';
    if (status === 'finished') {
      // A finished run leaves nothing queued: what is left was cut by the page budget or the time budget.
      await this.ctx.store.settleQueued(this.run.id, this.budgetReached() ? 'max-pages' : 'host-too-slow');
      if (this.options.graph) await this.options.graph.computeRanks(this.run.id);
    }
    await this.ctx.store.setRunStatus(this.run.id, status, this.ctx.clock());
    const summary = await this.ctx.store.summary(this.run.id);
    this.progress.finish(summary);
    return summary;
  }

  /** A host that waits on a back-off (robots.txt unreachable, 429/503), not merely on its delay. */
  private backedOff(q: HostQueue): boolean {
    return q.state.backoffUntil > this.ctx.clock() || q.robots?.kind === 'unreachable';
  }

  /**
   * Whether to end the crawl now although hosts still wait: the next one is only ready after the
   * time budget, or every waiting host is backed off for longer than `maxIdleWaitMs`.
   */
  private nothingButWaits(wake: number): boolean {
    if (wake > this.deadline) return true;
    if (wake - this.ctx.clock() <= this.ctx.settings.maxIdleWaitMs) return false;
    for (const q of this.state.hosts.values()) if (!q.parked && q.size > 0 && !this.backedOff(q)) return false;
    return true;
  }

  /**
   * The crawl ends with hosts still waiting: those backed off have their URLs deferred to the next
   * run or --resume, with the time they may be asked again; those merely slower than the time
   * budget are skipped as host-too-slow.
   */
  private async leaveWaitingHosts(): Promise<void> {
    for (const q of this.state.hosts.values()) {
      if (q.parked || q.size === 0) continue;
      if (!this.backedOff(q)) {
        await this.parkRows(q, q.drain(), 'skipped', 'host-too-slow');
        continue;
      }
      const ready = readyAt(q.state);
      const rows = q.drain();
      for (const row of rows) {
        await this.ctx.store.setUrlStates(
          this.run.id,
          [row.urlId],
          'deferred',
          q.robots?.kind === 'unreachable' ? 'robots-unreachable' : 'backed-off',
          Math.max(ready, row.notBefore),
        );
        this.state.known.set(row.urlId, 'final');
      }
      this.progress.deferred(q.host, rows.length, ready);
    }
  }

  private async startRun(): Promise<void> {
    const latest = await this.ctx.store.latestRun();
    if (latest?.status === 'running' || latest?.status === 'interrupted') {
      await this.ctx.store.setRunStatus(latest.id, 'abandoned', this.ctx.clock());
      this.ctx.logger.warn('an unfinished crawl was abandoned; pass --resume to continue one instead', { runId: latest.id });
    }
    const carried = await carriedOver(this.ctx.store, latest);
    const targets = this.options.targets ?? [];
    this.run = await this.ctx.store.createRun(this.options.seeds, { ...this.ctx.settings, ...(targets.length ? { targets } : {}) }, this.ctx.clock());
    this.admitter = this.newAdmitter(this.options.seeds);
    const seeds = this.options.seeds.map((href): Candidate => ({ href, depth: 0, kind: 'page', structural: true }));
    const found = await this.discover(false);
    const rows = this.admitAll([...seeds, ...carried.candidates, ...found]).rows;
    for (const row of rows) row.notBefore = carried.notBefore.get(row.url) ?? 0;
    const inserted = new Set(await this.ctx.store.addUrls(rows));
    for (const row of rows) if (inserted.has(row.urlId) && row.state === 'queued') this.state.enqueue(row);
    this.progress.started(this.run.id, false, carried.candidates.length ? { carried: carried.candidates.length } : undefined);
  }

  private async resumeRun(): Promise<void> {
    const latest = await resumableRun(this.ctx.store, this.ctx.settings.data);
    this.run = latest;
    await this.ctx.store.setRunStatus(latest.id, 'running', this.ctx.clock());
    this.admitter = this.newAdmitter(latest.seeds);
    const { requeued, exhausted } = await this.ctx.store.requeueInFlight(latest.id, this.ctx.settings.maxAttempts);
    const seen = await this.ctx.store.seenUrls(latest.id);
    for (const s of seen) {
      this.state.known.set(s.urlId, knownOf(s.state, s.reason));
      if (!s.reason?.startsWith('trap:')) this.admitter.traps.admit(s.url); // rebuild the per-run trap counters
    }
    const counts = resumeCounts(seen);
    this.pageSlots = counts.pagesFetched;
    for (const row of await this.ctx.store.queuedUrls(latest.id)) {
      const q = this.state.hostQueue(row);
      if (q.size === 0 && !q.robots) {
        const saved = await this.ctx.store.getHost(row.host);
        // Keep back-off and parking from the killed run; wait one delay before the first request.
        q.state = { ...(saved?.state ?? newHostState(row.host)), nextAllowedAt: this.ctx.clock() + this.politeness.delayMs };
      }
      q.fetched = counts.fetchedPerHost.get(row.host) ?? 0;
      this.state.enqueue(row);
    }
    // Seeds and targets a kill cut short: targets answered before it come from the archive, the others are called now.
    const found = await this.discover(true);
    await this.addDiscovered([...latest.seeds.map((href): Candidate => ({ href, depth: 0, kind: 'page', structural: true })), ...found]);
    this.progress.started(this.run.id, true, { requeued, exhausted });
  }

  private newAdmitter(seeds: string[]): Admitter {
    return new Admitter(this.run.id, [...seeds, ...(this.run.scope ?? [])], this.ctx.settings, this.ctx.priority, this.ctx.canonical, this.ctx.clock);
  }

  /** The run's search and social targets: their links as candidates, their origins in the run's scope. */
  private async discover(reuse: boolean): Promise<Candidate[]> {
    const targets = runTargets(this.run);
    if (targets.length === 0) return [];
    const client = apiClientFor(this.ctx.settings, this.options.resolver);
    try {
      const found = await discoverTargets({ ...this.ctx, client, env: this.options.targetEnv ?? {} }, this.run.id, targets, {
        limit: this.ctx.settings.targetLimit || undefined,
        reuse,
      });
      for (const d of found.discoveries) this.progress.target(d);
      await this.ctx.store.widenRunScope(this.run.id, found.scope);
      this.admitter.widenScope(found.scope);
      return found.candidates;
    } finally {
      await client.close();
    }
  }

  private budgetReached(): boolean {
    return this.pageSlots >= this.ctx.settings.maxPages;
  }

  /** Starts host tasks while slots are free; returns when the next host becomes ready, if known. */
  private dispatch(): number | undefined {
    const now = this.ctx.clock();
    while (!this.stopping && this.active < this.ctx.settings.concurrency && !this.budgetReached() && now < this.deadline) {
      const next = this.state.scheduler.next(now);
      if (!next) return undefined;
      if ('waitUntil' in next) return next.waitUntil;
      const wait = this.limiter.tryTake(now);
      if (wait > 0) {
        this.state.scheduler.delay(next.queue, now + wait);
        return now + wait;
      }
      this.launch(next.queue);
    }
    return undefined;
  }

  private launch(q: HostQueue): void {
    q.busy = true;
    this.active++;
    this.hostTask(q)
      .catch((err: unknown) => {
        // Page-level failures were settled by their stage; what reaches here is decided by its kind.
        if (nextStep(err) !== 'stop-run') {
          this.ctx.logger.warn('a host task failed; its URL stays in flight for --resume', { host: q.host, error: errorMessage(err) });
          return;
        }
        this.fatal ??= err;
        this.stopping = true;
        this.ctx.logger.error('crawl stopped by an unexpected error (resumable)', { host: q.host, error: errorMessage(err) });
      })
      .finally(() => {
        q.busy = false;
        this.active--;
        this.state.scheduler.schedule(q);
        this.wakeUp?.();
      });
  }

  private sleep(until: number | undefined): Promise<void> {
    return new Promise((resolve) => {
      const timer = until === undefined ? undefined : setTimeout(resolve, timerDelay(until - this.ctx.clock()));
      this.wakeUp = () => {
        if (timer) clearTimeout(timer);
        this.wakeUp = undefined;
        resolve();
      };
    });
  }

  /** One turn of a host: read robots.txt if needed, else fetch its best allowed URL. */
  private async hostTask(q: HostQueue): Promise<void> {
    if (q.needsRobots(this.ctx.clock())) return this.robotsTask(q);
    while (true) {
      if (q.fetched >= this.ctx.settings.maxPagesPerHost) return this.parkRows(q, q.drain(), 'skipped', 'max-pages-per-host');
      if (this.budgetReached() || this.stopping) return;
      const row = q.pop(this.ctx.clock());
      if (!row) return;
      const { pathname, search } = new URL(row.url);
      if (q.robots && !robotsAllows(q.robots, pathname + search)) {
        // Refused by robots.txt: recorded, no request made, so no delay is owed.
        await this.ctx.store.commitFetch({
          runId: this.run.id,
          urlId: row.urlId,
          state: 'blocked',
          reason: 'robots',
          attempts: row.attempts,
          fetch: robotsRefusal(row, this.ctx.clock()),
        });
        this.state.known.set(row.urlId, 'final');
        this.progress.blocked(row);
        continue;
      }
      return this.fetchTask(q, row);
    }
  }

  private async robotsTask(q: HostQueue): Promise<void> {
    const load = await loadRobots(this.ctx, this.run.id, q.origin, q.host, q.state);
    const now = this.ctx.clock();
    q.robots = load.policy;
    q.robotsFailures = load.policy.kind === 'unreachable' ? q.robotsFailures + 1 : 0;
    q.state = hostAfterRobots(q.state, load, q.robotsFailures, this.politeness, this.ctx.settings.maxHostFailures, now);
    if (load.policy.kind !== 'unreachable') {
      const sitemaps = robotsSitemaps(load.policy).map((href): Candidate => ({ href, depth: 0, kind: 'sitemap', structural: true }));
      await this.addDiscovered(sitemaps);
    }
    await this.ctx.store.putHostState(q.state);
    this.progress.robots(q.host, load);
    if (q.parked) await this.parkRows(q, q.drain(), 'skipped', 'host-parked');
  }

  private async fetchTask(q: HostQueue, row: FrontierRow): Promise<void> {
    const countsAsPage = row.kind === 'page';
    if (countsAsPage) this.pageSlots++;
    await this.ctx.store.markInFlight(this.run.id, row.urlId);
    const outcome = await fetchStage(this.ctx, row);
    let result = await processStage(this.ctx, row, outcome, { decide: { host: q.state.render } });
    if (result.hostEvent) q.state = afterRequest(q.state, result.hostEvent, this.politeness);
    if (result.renderWanted && outcome.kind === 'response') result = await this.renderTask(q, row, outcome, result.renderWanted);
    if (this.ctx.previewFetcher && result.candidates.length && !result.retry) q.state = await this.previewLinks(q, result);
    if (result.retry && countsAsPage) this.pageSlots--;
    if (countsAsPage && !result.retry && result.fetch?.status !== undefined) q.fetched++;
    await this.commit(q, row, result);
    if (result.rendered || (result.hostEvent && (q.state.backoffUntil > this.ctx.clock() || q.parked || q.state.consecutiveFailures > 0)))
      await this.ctx.store.putHostState(q.state);
    if (q.parked) await this.parkRows(q, q.drain(), 'skipped', 'host-parked');
  }

  /** `--preview`: the heads of the page's best new links on this host, in the host's turn (see preview-stage). */
  private previewLinks(q: HostQueue, result: ProcessResult) {
    const deps = {
      ctx: this.ctx,
      runId: this.run.id,
      politeness: this.politeness,
      known: (url: string) => this.state.known.has(urlId(url)),
      wait: (until: number) => new Promise<void>((r) => setTimeout(r, timerDelay(until - this.ctx.clock()))),
      gate: this.previewGate,
    };
    return previewStage(deps, q, result.candidates, this.ctx.settings.previewsPerPage);
  }

  /**
   * Renders a fetched page and processes it again from its DOM. The render is a visit to the host
   * like any request: it waits for the host's delay, and what it meets (429/503) backs the host off.
   */
  private async renderTask(q: HostQueue, row: FrontierRow, outcome: Extract<FetchOutcome, { kind: 'response' }>, wanted: RenderWanted): Promise<ProcessResult> {
    const wait = readyAt(q.state) - this.ctx.clock();
    if (wait > 0) await new Promise((r) => setTimeout(r, timerDelay(wait)));
    const capture = await renderStage(this.ctx, row, servedDocument(outcome), wanted, robotsCheck(q.robots));
    q.state = hostAfterRender(q.state, capture, this.run.id, this.politeness, this.ctx.clock());
    this.progress.rendered(row, capture);
    return await processStage(this.ctx, row, outcome, { capture });
  }

  private async commit(q: HostQueue, row: FrontierRow, result: ProcessResult): Promise<void> {
    const attempts = row.attempts + 1;
    const notBefore = result.retry ? readyAt(q.state) : 0;
    const { rows, reprioritized } = this.admitAll(result.candidates);
    const inserted = new Set(
      await this.ctx.store.commitFetch(fetchCommit(result, { runId: this.run.id, urlId: row.urlId, attempts, notBefore, discovered: rows, reprioritized })),
    );
    if (result.retry) q.push({ ...row, attempts, notBefore, state: 'queued' });
    else this.state.known.set(row.urlId, 'final');
    for (const r of rows) if (inserted.has(r.urlId) && r.state === 'queued') this.state.enqueue(r);
    this.progress.fetched(row, result);
    this.progress.tick(() => this.liveCounts());
    if (result.page && !result.retry) await this.notifyPage(row, result);
  }

  /** The library's onPage hook, after the commit; an error it throws is the user's and does not stop the crawl. */
  private async notifyPage(row: FrontierRow, result: ProcessResult): Promise<void> {
    const hook = this.ctx.hooks.onPage;
    if (!hook || !result.page) return;
    try {
      await hook(await storedPage(this.ctx, row.url, { ...result, page: result.page }));
    } catch (err) {
      this.ctx.logger.warn('the onPage hook failed; the crawl goes on', { url: row.url, error: errorMessage(err) });
    }
  }

  private async addDiscovered(candidates: Candidate[]): Promise<void> {
    const { rows } = this.admitAll(candidates);
    const inserted = new Set(await this.ctx.store.addUrls(rows));
    for (const r of rows) if (inserted.has(r.urlId) && r.state === 'queued') this.state.enqueue(r);
  }

  /** Admits candidates the run has not seen; raises the priority of queued ones linked again. */
  private admitAll(candidates: Candidate[]): { rows: FrontierRow[]; reprioritized: Array<{ urlId: string; priority: number; inlinks: number }> } {
    const rows: FrontierRow[] = [];
    const reprioritized: Array<{ urlId: string; priority: number; inlinks: number }> = [];
    const seen = new Set<string>();
    for (const c of candidates) {
      const url = this.admitter.canonicalize(c.href);
      if (!url) continue;
      const id = urlId(url);
      if (seen.has(id)) continue;
      seen.add(id);
      const known = this.state.known.get(id);
      if (known === 'queued') {
        const bumped = c.kind === 'page' && !c.nofollow ? this.state.bumpInlinks(url, id, c, this.ctx.priority) : undefined;
        if (bumped) reprioritized.push(bumped);
        continue;
      }
      if (known === 'final') continue;
      const admission = this.admitter.admit(c);
      if (!('row' in admission)) continue;
      const next = knownOf(admission.row.state, admission.row.reason);
      if (known === 'soft' && next !== 'queued') continue;
      this.state.known.set(id, next);
      rows.push(admission.row);
    }
    return { rows, reprioritized };
  }

  private async parkRows(q: HostQueue, rows: FrontierRow[], state: 'skipped', reason: string): Promise<void> {
    if (rows.length === 0) return;
    await this.ctx.store.setUrlStates(
      this.run.id,
      rows.map((r) => r.urlId),
      state,
      reason,
    );
    for (const r of rows) this.state.known.set(r.urlId, 'final');
    if (reason === 'host-parked') this.progress.parked(q.host, q.state.parkedReason ?? reason, rows.length);
  }
}
