import { performance as perf } from 'node:perf_hooks';
import { DiskFullError, errorMessage, nextStep, noRoomCode } from '../../errors.js';
import type { HostQueue } from '../../frontier/host-queue.js';
import { afterRequest, readyAt } from '../../politeness/host-state.js';
import { RateLimiter } from '../../politeness/rate-limiter.js';
import { robotsAllows } from '../../robots/robots-policy.js';
import type { ArchivedAnswer, ChangeStore, GraphStore, FrontierRow, RunRecord, RunSummary, UrlReason } from '../../ports/index.js';
import { pageSlotsAfter, robotsRefusalCommit } from '../stages/run-records.js';
import { timerDelay } from '../../politeness/timers.js';
import { addCandidates, answerOf, endOnFullDisk, resumeRun, startRun } from './run-open.js';
import { urlId } from '../../url/canonical.js';
import type { Admitter, LinkCandidate } from '../stages/admission.js';
import { politenessConfig, type CrawlContext } from '../stages/context.js';
import { CrawlState } from './crawl-state.js';
import { refillHost, spilledRows } from './frontier-spill.js';
import { archiveAnswer } from '../stages/fetch-stage.js';
import { hostEventOf, retries, type ProcessResult } from '../stages/process-stage.js';
import { robotsTurn } from '../stages/robots-stage.js';
import { CrawlProgress, type CrawlHooks } from '../stages/progress.js';
import { PageFlow, type FlowOwner } from './page-flow.js';
import type { Env } from '../../config/resolve.js';
import type { Resolver } from '../../fetch/address-guard.js';

export interface RunnerOptions {
  seeds: string[];
  /** The library user's code: events as the crawl goes, and each stored page after its commit. */
  hooks?: CrawlHooks;
  /** Search queries and social accounts to start from as well (validated; see discover-stage). */
  targets?: string[];
  /** Where the search and social backends' endpoints and keys are read. @default {} */
  targetEnv?: Env;
  /** Resolves the backends' host names (the address guard checks what it returns). */
  resolver?: Resolver;
  resume: boolean;
  /** When given, inlink counts and PageRank are computed at the end of a finished crawl. */
  graph?: GraphStore;
  /** When given, a finished crawl completes its changes since the run before (the link kinds). */
  changes?: ChangeStore;
}

/**
 * The embedded runner: one process, many hosts at once, one request per host at a time.
 * It owns scheduling; every decision about a URL is made by the stage functions.
 */
export class CrawlRunner {
  private run!: RunRecord;
  private admitter!: Admitter;
  private readonly state: CrawlState;
  private readonly limiter: RateLimiter;
  private readonly politeness;
  /** Extraction, commits and hooks of fetched pages (off the hosts' path by default). */
  private readonly flow: PageFlow;
  /** Hosts with turns asked for (renders, previews of pages processed off their path). */
  private readonly turnHosts = new Set<HostQueue>();
  private active = 0;
  /** An earlier run may have stored pages (a conditional request needs the stored copy). */
  private earlierPages = true;
  private pageSlots = 0;
  /** Answers a killed crawl archived and did not commit, by url id: processed from the archive on resume. */
  private archivedAnswers = new Map<string, ArchivedAnswer>();
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
    // A store that reads a host's queued URLs back lets the frontier hold only part of them in memory.
    this.state = new CrawlState(ctx.store.queuedUrlsOfHost ? ctx.settings.frontierMemory : Infinity);
    this.limiter = new RateLimiter(ctx.settings.maxRps, ctx.clock());
    this.politeness = politenessConfig(ctx.settings);
    this.progress = new CrawlProgress(ctx.clock, options.hooks?.onEvent);
    this.flow = new PageFlow(ctx, this.flowOwner(), this.politeness, this.progress, options.hooks?.onPage);
  }

  private flowOwner(): FlowOwner {
    return {
      runId: () => this.run.id,
      admit: (candidates) => this.admitAll(candidates),
      committed: (row, result, rows, inserted) => this.committed(row, result, rows, inserted),
      turn: (q, task, options) => this.turn(q, task, options),
      open: (q) => !q.parked && !this.stopping && this.ctx.clock() < this.deadline,
      known: (url) => this.state.known.has(urlId(url)),
      park: (q) => this.parkRows(q, q.drain(), 'skipped', 'host-parked'),
      failed: (err, host) => this.failed(err, host),
      wake: () => this.wakeUp?.(),
    };
  }

  /** URLs waiting and hosts being fetched right now, for the progress line. */
  liveCounts(): { queued: number; activeHosts: number; waitingHosts: number } {
    return { queued: this.state.queuedCount(), activeHosts: this.active, waitingHosts: this.state.waitingHosts(this.active) };
  }

  /** Asks the crawl to stop: nothing new starts, requests in flight finish, the run stays resumable. */
  stop(): void {
    this.stopping = true;
    this.wakeUp?.();
  }

  /** The crawl thread's event loop at the start (its busy time is the `crawl thread` stage). */
  private readonly busy = perf.eventLoopUtilization();

  async crawl(): Promise<RunSummary> {
    // The extraction workers load while the run starts, so their start-up is not paid mid-crawl.
    const opening = { ctx: this.ctx, ...this.options, state: this.state, progress: this.progress, delayMs: this.politeness.delayMs };
    const [opened] = await Promise.all([this.options.resume ? resumeRun(opening) : startRun(opening), this.ctx.extractor.ready?.()]).catch(
      async (err: unknown): Promise<never> => {
        // A disk that fills while the run starts ends it as one that fills later: interrupted, resumable, one clear line.
        if (!noRoomCode(err)) throw err;
        const started = await this.ctx.store.latestRun().catch(() => undefined);
        if (started?.status === 'running') await endOnFullDisk(this.ctx, started.id, this.progress, err);
        throw new DiskFullError(this.ctx.settings.data, err);
      },
    );
    ({ run: this.run, admitter: this.admitter, pageSlots: this.pageSlots, archived: this.archivedAnswers } = opened);
    this.earlierPages = (await this.ctx.store.runs()).some((r) => r.id < this.run.id);
    if (this.ctx.settings.maxMinutes > 0) this.deadline = this.ctx.clock() + this.ctx.settings.maxMinutes * 60_000;
    while (true) {
      const wake = this.dispatch();
      // No host will get another turn: the pages waiting for one are stored without it.
      if (this.stopping || this.ctx.clock() >= this.deadline) this.cancelTurns();
      if (this.active === 0 && this.flow.pending === 0) {
        if (this.stopping || this.budgetReached() || this.state.scheduler.isEmpty()) break;
        // Nothing runs and the next host is not ready: end now rather than wait for nothing but a back-off.
        if (this.ctx.clock() >= this.deadline || (wake !== undefined && this.nothingButWaits(wake))) {
          await this.leaveWaitingHosts();
          break;
        }
      }
      await this.sleep(wake === undefined ? undefined : Math.min(wake, this.deadline));
    }
    await this.flow.drain();
    if (this.fatal && noRoomCode(this.fatal)) await endOnFullDisk(this.ctx, this.run.id, this.progress, this.fatal);
    if (this.fatal) throw this.fatal;
    const status = this.stopping ? 'interrupted' : 'finished';
    if (status === 'finished') {
      // A finished run leaves nothing queued: what is left was cut by the page budget or the time budget.
      await this.ctx.store.settleQueued(this.run.id, this.budgetReached() ? 'max-pages' : 'host-too-slow');
      if (this.options.graph) await this.options.graph.computeRanks(this.run.id);
      await this.options.changes?.finishChanges(this.run.id, this.ctx.clock());
    }
    await this.ctx.store.setRunStatus(this.run.id, status, this.ctx.clock());
    const summary = await this.ctx.store.summary(this.run.id);
    if (this.ctx.stages.enabled) this.ctx.stages.add('crawl thread', perf.eventLoopUtilization(this.busy).active);
    this.progress.finish(summary, this.ctx.stages.enabled ? this.ctx.stages.ms : undefined);
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
    for (const q of this.state.hosts.values()) if (!q.parked && q.queued > 0 && !this.backedOff(q)) return false;
    return true;
  }

  /**
   * The crawl ends with hosts still waiting: those backed off have their URLs deferred to the next
   * run or --resume, with the time they may be asked again; those merely slower than the time
   * budget are skipped as host-too-slow.
   */
  private async leaveWaitingHosts(): Promise<void> {
    for (const q of this.state.hosts.values()) {
      if (q.parked || q.queued === 0) continue;
      if (!this.backedOff(q)) {
        await this.parkRows(q, q.drain(), 'skipped', 'host-too-slow');
        continue;
      }
      const ready = readyAt(q.state);
      const reason = q.robots?.kind === 'unreachable' ? 'robots-unreachable' : 'backed-off';
      let deferred = 0;
      for await (const rows of this.hostRows(q, q.drain())) {
        for (const row of rows) await this.ctx.store.setUrlStates(this.run.id, [row.urlId], 'deferred', reason, Math.max(ready, row.notBefore));
        deferred += rows.length;
      }
      this.progress.deferred(q.host, deferred, ready);
    }
  }

  private budgetReached(): boolean {
    return this.pageSlots >= this.ctx.settings.maxPages;
  }

  /** Starts host tasks while slots are free; returns when the next host becomes ready, if known. */
  private dispatch(): number | undefined {
    const now = this.ctx.clock();
    const turnWake = this.dispatchTurns(now);
    while (!this.stopping && this.active < this.ctx.settings.concurrency && !this.budgetReached() && !this.flow.full() && now < this.deadline) {
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
    return turnWake;
  }

  /** Hosts whose turns pages wait for go first, budget or full queue notwithstanding; returns when the next is ready. */
  private dispatchTurns(now: number): number | undefined {
    let wake: number | undefined;
    for (const q of this.turnHosts) {
      if (q.turns.length === 0) this.turnHosts.delete(q);
      else if (this.stopping || this.active >= this.ctx.settings.concurrency || q.busy) continue;
      else if (readyAt(q.state) > now && !q.turns.some((t) => t.now)) wake = Math.min(wake ?? Infinity, readyAt(q.state));
      else this.launch(q);
    }
    return wake;
  }

  /** Runs `task` in the host's next turn (before its next URL); undefined when it will have none. */
  private turn<T>(q: HostQueue, task: () => Promise<T>, options: { now?: boolean } = {}): Promise<T | undefined> {
    if (q.parked || this.stopping || this.ctx.clock() >= this.deadline) return Promise.resolve(undefined);
    return new Promise<T | undefined>((resolve, reject) => {
      q.turns.push({ run: () => task().then(resolve, reject), cancel: () => resolve(undefined), now: options.now });
      this.turnHosts.add(q);
      this.state.scheduler.schedule(q);
      this.wakeUp?.();
    });
  }

  private cancelTurns(): void {
    for (const q of this.turnHosts) q.cancelTurns();
    this.turnHosts.clear();
  }

  /** An error outside any page's own settling: a `stop-run` one stops the crawl (resumable); others are logged. */
  private failed(err: unknown, host: string): void {
    if (nextStep(err) !== 'stop-run') {
      this.ctx.logger.warn('a host task failed; its URL stays in flight for --resume', { host, error: errorMessage(err) });
      return;
    }
    // The first error stops the crawl and is told; pages already on their way fail the same way.
    if (this.fatal) return;
    this.fatal = err;
    this.stopping = true;
    if (!noRoomCode(err)) this.ctx.logger.error('crawl stopped by an unexpected error (resumable)', { host, error: errorMessage(err) });
    this.wakeUp?.();
  }

  private launch(q: HostQueue): void {
    q.busy = true;
    this.active++;
    this.hostTask(q)
      // Page-level failures were settled by their stage; what reaches here is decided by its kind.
      .catch((err: unknown) => this.failed(err, q.host))
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
    const turn = q.nextTurn(readyAt(q.state) > this.ctx.clock());
    if (turn) return turn.run();
    if (q.needsRobots(this.ctx.clock())) return this.robotsTask(q);
    while (true) {
      if (q.fetched >= this.ctx.settings.maxPagesPerHost) return this.parkRows(q, q.drain(), 'skipped', 'max-pages-per-host');
      if (this.budgetReached() || this.stopping) return;
      if (q.wantsRefill) await refillHost(this.ctx.store, this.state, this.run.id, q);
      const row = q.pop(this.ctx.clock());
      if (!row) return;
      const { pathname, search } = new URL(row.url);
      if (q.robots && !robotsAllows(q.robots, pathname + search)) {
        // Refused by robots.txt: recorded, no request made, so no delay is owed.
        const stored = this.flow.commits.commit(robotsRefusalCommit(row, this.ctx.clock())).then(() => undefined);
        if (this.flow.offPath) this.flow.track(stored, q.host);
        else await stored;
        this.state.known.set(row.urlId, 'final');
        this.progress.blocked(row);
        continue;
      }
      return this.fetchTask(q, row);
    }
  }

  private async robotsTask(q: HostQueue): Promise<void> {
    const { load, state, sitemaps } = await robotsTurn(this.ctx, this.run.id, q);
    q.robots = load.policy;
    q.state = state;
    // Once a host a run: the sitemaps of a robots.txt read from the store count too.
    if (sitemaps.length) await addCandidates(this.ctx, this.state, this.admitter, sitemaps);
    await this.ctx.store.putHostState(q.state);
    this.progress.robots(q.host, load);
    if (q.parked) await this.parkRows(q, q.drain(), 'skipped', 'host-parked');
  }

  private async fetchTask(q: HostQueue, row: FrontierRow): Promise<void> {
    const countsAsPage = row.kind === 'page';
    if (countsAsPage) this.pageSlots++;
    if (!this.flow.offPath) {
      await this.ctx.store.markInFlight(this.run.id, row.urlId);
      return this.fetchInline(q, row, countsAsPage);
    }
    // Written in order before this fetch's commit; the request does not wait for it.
    this.flow.track(this.ctx.store.markInFlight(this.run.id, row.urlId), q.host);
    const { fetched, archived } = await answerOf(this.ctx, row, this.archivedAnswers, this.earlierPages, this.flow.largeBodies);
    // The host's part ends with its answer: its politeness state learns from it now, and the
    // storing, extraction and commit go on off its path while it takes its next request.
    if (!archived) q.state = afterRequest(q.state, hostEventOf(this.ctx, fetched), this.politeness);
    const retry = retries(this.ctx, row, fetched);
    const notBefore = retry ? readyAt(q.state) : 0;
    this.spendSlots(q, countsAsPage, { retry, answered: fetched.kind === 'response' });
    if (retry) q.push({ ...row, attempts: row.attempts + 1, notBefore, state: 'queued' });
    // Archived now, while the page waits to be processed: a kill before its commit loses no answer.
    this.flow.process(q, row, fetched, notBefore, archiveAnswer(this.ctx, row, fetched, !retry, archived));
    if (q.state.backoffUntil > this.ctx.clock() || q.parked || q.state.consecutiveFailures > 0) await this.ctx.store.putHostState(q.state);
    if (q.parked) await this.parkRows(q, q.drain(), 'skipped', 'host-parked');
  }

  /** Without a processing queue: the page is stored, extracted and committed in its host's turn. */
  private async fetchInline(q: HostQueue, row: FrontierRow, countsAsPage: boolean): Promise<void> {
    const { fetched, archived } = await answerOf(this.ctx, row, this.archivedAnswers, this.earlierPages, this.flow.largeBodies);
    const result = await this.flow.inline(q, row, fetched, archiveAnswer(this.ctx, row, fetched, !retries(this.ctx, row, fetched), archived));
    this.spendSlots(q, countsAsPage, { retry: result.retry, answered: result.fetch?.status !== undefined });
    const notBefore = result.retry ? readyAt(q.state) : 0;
    if (result.retry) q.push({ ...row, attempts: row.attempts + 1, notBefore, state: 'queued' });
    await this.flow.settle(q, row, result, notBefore);
    if (result.rendered || (result.hostEvent && (q.state.backoffUntil > this.ctx.clock() || q.parked || q.state.consecutiveFailures > 0)))
      await this.ctx.store.putHostState(q.state);
    if (q.parked) await this.parkRows(q, q.drain(), 'skipped', 'host-parked');
  }

  private spendSlots(q: HostQueue, countsAsPage: boolean, outcome: { retry: boolean; answered: boolean }): void {
    const slots = pageSlotsAfter(countsAsPage, outcome);
    if (slots.releaseRunSlot) this.pageSlots--;
    if (slots.usesHostSlot) q.fetched++;
  }

  /** A fetch is stored: the URL is settled unless it is retried, and the new URLs go to their hosts. */
  private committed(row: FrontierRow, result: ProcessResult, rows: FrontierRow[], inserted: Set<string>): void {
    if (!result.retry) this.state.known.set(row.urlId, 'final');
    for (const r of rows) if (inserted.has(r.urlId) && r.state === 'queued') this.state.enqueue(r);
    this.progress.fetched(row, result);
    this.progress.tick(() => this.liveCounts());
    // New URLs may have a host ready now: the loop looks at once (the page's hooks still run).
    this.wakeUp?.();
  }

  /** Admits candidates the run has not seen; raises the priority of queued ones linked again. */
  private admitAll(candidates: LinkCandidate[]): ReturnType<CrawlState['admit']> {
    return this.state.admit(this.admitter, this.ctx.priority, candidates);
  }

  /** Settles a host's queued URLs: those drained from memory, then those in the store only. */
  private async parkRows(q: HostQueue, drained: FrontierRow[], state: 'skipped', reason: UrlReason): Promise<void> {
    if (q.parked) q.cancelTurns();
    let parked = 0;
    for await (const rows of this.hostRows(q, drained)) {
      await this.ctx.store.setUrlStates(
        this.run.id,
        rows.map((r) => r.urlId),
        state,
        reason,
      );
      parked += rows.length;
    }
    if (parked > 0 && reason === 'host-parked') this.progress.parked(q.host, q.state.parkedReason ?? reason, parked);
  }

  /** A host's queued URLs in batches, marked settled in the run's known URLs: `drained` first, then those in the store only. */
  private async *hostRows(q: HostQueue, drained: FrontierRow[]): AsyncGenerator<FrontierRow[]> {
    for (const r of drained) this.state.known.set(r.urlId, 'final');
    if (drained.length > 0) yield drained;
    yield* spilledRows(this.ctx.store, this.state, this.run.id, q);
  }
}
