// What happens to a page once its host has answered: extraction, the render or link previews it
// may need, the commit, and the hooks. With a processing queue (the default) this runs off the
// host's path: the host is free for its next request as soon as the response is in, its delay
// counted from the end of that request, while the page waits in a bounded queue for extraction and
// its commit goes to the store with the commits of other pages (one transaction for many).
import { errorMessage } from '../../errors.js';
import type { HostQueue } from '../../frontier/host-queue.js';
import { afterRequest, readyAt, visitStarted, type PolitenessConfig } from '../../politeness/host-state.js';
import { timerDelay } from '../../politeness/timers.js';
import { renderModeFor } from '../../config/render-settings.js';
import { renderExploring, renderStopped } from '../../render/decision.js';
import { HostRenders } from './host-renders.js';
import type { LargeBodies } from '../../fetch/http-fetcher.js';
import type { FrontierRow, WarcLocation } from '../../ports/index.js';
import type { LinkCandidate } from '../stages/admission.js';
import type { CrawlContext } from '../stages/context.js';
import { storeStage, type Fetched, type FetchOutcome } from '../stages/fetch-stage.js';
import { GroupCommit } from './group-commit.js';
import { PREVIEWS_AT_ONCE, previewStage } from '../stages/preview-stage.js';
import { toFetchCommit, processStage, type ProcessResult } from '../stages/process-stage.js';
import { ACTIONS_REASON } from '../stages/process-content.js';
import { hostAfterRender, renderStage, robotsCheck, servedDocument, type RenderWanted } from '../stages/render-stage.js';
import type { CrawlHooks, CrawlProgress } from '../stages/progress.js';
import { storedPage } from './stored-page.js';
import { WorkQueue } from './work-queue.js';
import { Gate } from '../../util/gate.js';

type Response = Extract<FetchOutcome, { kind: 'response' }>;

/** What the page flow asks of the runner that owns the hosts and the frontier. */
export interface FlowOwner {
  runId(): number;
  /** The candidates new to the run as frontier rows, and priority raises of queued ones. */
  admit(candidates: LinkCandidate[]): { rows: FrontierRow[]; reprioritized: Array<{ urlId: string; priority: number; inlinks: number }> };
  /** After the commit: the URL is settled (unless retried), the new rows go to their hosts. */
  committed(row: FrontierRow, result: ProcessResult, rows: FrontierRow[], inserted: Set<string>): void;
  /**
   * Runs `task` in the host's next turn; undefined when the host will have none (parked, crawl
   * stopping). `now`: as soon as the host is free, its delay notwithstanding.
   */
  turn<T>(q: HostQueue, task: () => Promise<T>, options?: { now?: boolean }): Promise<T | undefined>;
  /** Whether the host takes requests still (not parked, the crawl not stopping). */
  open(q: HostQueue): boolean;
  /** Whether the run has seen a URL (link previews skip known ones). */
  known(url: string): boolean;
  park(q: HostQueue): Promise<void>;
  /** Something failed outside any page's own settling; a `stop-run` error stops the crawl. */
  failed(err: unknown, host: string): void;
  /** Work ended: the crawl loop looks again. */
  wake(): void;
}

/** Bytes of page bodies the processing queue holds at most, whatever its page count. */
const QUEUE_BYTES = 32 * 1024 * 1024;
/**
 * Pages processed at once. A page's processing mostly waits (its blob and commit on the writer
 * thread, its extraction on a worker): bench:crawl measured 2 at once at 180 pages/s, 8 at 274,
 * 16 at 315, 32 at 327 and 64 at 327 (links mode, 2 cores).
 */
const PROCESSING_AT_ONCE = 32;
/**
 * PDFs and bodies over 1 MiB take their own lane, two at a time: one of them can take a second of
 * a thread (pdf.js, a capped 5 MiB page), and in the common lane the pages queued behind it — and
 * the hosts they came from — would wait for it (bench:crawl's web: 40 PDFs and eight 20 MB pages).
 */
const HEAVY = { bytes: 1024 * 1024, atOnce: 2 };
/**
 * Bodies over HEAVY.bytes the crawl holds at once, from their read to their extraction: one more
 * than the lane works on, so the next is read while those are processed. Hosts answer such pages
 * together (bench:crawl's web: eight capped 5 MiB pages within a second, 54 MiB of the crawl
 * thread's memory); the others' reads wait, paused, their request's clock stopped.
 */
const LARGE_BODIES_HELD = HEAVY.atOnce + 1;
/** Commits stored together: at most this many, or what arrived within this many ms of the first. */
const GROUP = { maxBatch: 64, maxDelayMs: 10 };

export class PageFlow {
  /** Pages are processed off their host's path (`processingQueue` > 0). */
  readonly offPath: boolean;
  private readonly work: WorkQueue;
  private readonly heavy: WorkQueue;
  readonly commits: GroupCommit;
  private readonly previewGate = new Gate(PREVIEWS_AT_ONCE);
  private readonly renders: HostRenders;
  /** The crawl's requests take this bound on large bodies (`answerOf`); a page gives its slot up once extracted. */
  readonly largeBodies: LargeBodies = { bytes: HEAVY.bytes, gate: new Gate(LARGE_BODIES_HELD) };
  private settling = 0;
  private idleWaiters: Array<() => void> = [];

  constructor(
    private readonly ctx: CrawlContext,
    private readonly owner: FlowOwner,
    private readonly politeness: PolitenessConfig,
    private readonly progress: CrawlProgress,
    /** The library's onPage hook. */
    private readonly onPage?: CrawlHooks['onPage'],
  ) {
    const size = ctx.settings.processingQueue;
    this.offPath = size > 0;
    this.work = new WorkQueue(
      {
        concurrency: Math.min(PROCESSING_AT_ONCE, Math.max(1, size)),
        maxItems: Math.max(1, size),
        maxBytes: Math.max(QUEUE_BYTES, 4 * ctx.settings.maxBodyBytes),
      },
      (err) => this.owner.failed(err, 'processing'),
      () => this.ended(),
    );
    this.heavy = new WorkQueue(
      { concurrency: HEAVY.atOnce, maxItems: Math.max(1, size), maxBytes: Math.max(QUEUE_BYTES, 4 * ctx.settings.maxBodyBytes) },
      (err) => this.owner.failed(err, 'processing'),
      () => this.ended(),
    );
    this.commits = new GroupCommit(ctx.store, this.offPath ? GROUP : { maxBatch: 1, maxDelayMs: 0 });
    this.renders = new HostRenders(ctx.settings.rendersPerHost, ctx.renderer?.concurrency);
  }

  /** Pages between their response and their commit. */
  get pending(): number {
    return this.work.size + this.heavy.size + this.settling;
  }

  /** No request should start: a lane holds its maximum of pages or bytes (commits waiting count too). */
  full(): boolean {
    return this.work.full() || this.heavy.full() || this.settling >= Math.max(1, this.ctx.settings.processingQueue);
  }

  /** Resolves once every page taken in is committed. */
  async drain(): Promise<void> {
    while (this.pending > 0) {
      await this.commits.flush();
      await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
    }
    await this.commits.flush();
  }

  private ended(): void {
    if (this.pending === 0) for (const resolve of this.idleWaiters.splice(0)) resolve();
    this.owner.wake();
  }

  /** Settles something in the background (the host does not wait for its commit). */
  track(stored: Promise<void>, host: string): void {
    this.settling++;
    stored
      .catch((err: unknown) => this.owner.failed(err, host))
      .finally(() => {
        this.settling--;
        this.ended();
      });
  }

  /**
   * What a host answered, stored, extracted and committed off the host's path (the host's politeness
   * state and a retry were settled when it answered, and its exchange archived: `archived`);
   * `notBefore` of a retried URL.
   */
  process(q: HostQueue, row: FrontierRow, fetched: Fetched, notBefore: number, archived: Promise<WarcLocation | undefined>): void {
    const bytes = fetched.kind === 'response' ? (fetched.res.body?.length ?? 0) : 0;
    const heavy = fetched.kind === 'response' && (fetched.res.contentClass === 'pdf' || bytes > HEAVY.bytes);
    (heavy ? this.heavy : this.work).push(() => this.processTask(q, row, fetched, notBefore, archived), bytes);
  }

  /**
   * Stores and extracts what the host answered. A large body's slot is given up then, before
   * anything waits for a host's turn (which a body waiting for the slot may hold).
   */
  private async extracted(q: HostQueue, row: FrontierRow, fetched: Fetched, archived: Promise<WarcLocation | undefined>) {
    try {
      const outcome = await storeStage(this.ctx, row, fetched, archived);
      return { outcome, result: await processStage(this.ctx, row, outcome, { decide: { host: q.state.render } }) };
    } finally {
      fetched.request.largeBody?.release?.();
    }
  }

  private async processTask(q: HostQueue, row: FrontierRow, fetched: Fetched, notBefore: number, archived: Promise<WarcLocation | undefined>): Promise<void> {
    const { outcome, result: extracted } = await this.extracted(q, row, fetched, archived);
    let result = extracted;
    const wanted = result.renderWanted;
    // The render's requests and the previews are requests to the host: they wait for its turns.
    if (wanted && outcome.kind === 'response') result = await this.renderAside(q, row, outcome, wanted);
    const done = result;
    if (this.ctx.previewFetcher && done.candidates.length && !done.retry)
      await this.owner.turn(q, async () => void (q.state = await this.previewLinks(q, done)));
    this.track(
      this.settle(q, row, done, notBefore).then(async () => {
        if (done.rendered) await this.ctx.store.putHostState(q.state);
        if (q.parked) await this.owner.park(q);
      }),
      q.host,
    );
  }

  /** The page processed in the host's turn (no processing queue, or nothing to extract): renders and previews inline. */
  async inline(q: HostQueue, row: FrontierRow, fetched: Fetched, archived: Promise<WarcLocation | undefined>): Promise<ProcessResult> {
    const { outcome, result: extracted } = await this.extracted(q, row, fetched, archived);
    let result = extracted;
    if (result.hostEvent) q.state = afterRequest(q.state, result.hostEvent, this.politeness);
    if (result.renderWanted && outcome.kind === 'response') result = await this.renderTask(q, row, outcome, result.renderWanted);
    if (this.ctx.previewFetcher && result.candidates.length && !result.retry) q.state = await this.previewLinks(q, result);
    return result;
  }

  /** Commits what one fetch meant (with its new URLs), then tells the owner and the hooks. */
  async settle(_q: HostQueue, row: FrontierRow, result: ProcessResult, notBefore: number): Promise<void> {
    const { rows, reprioritized } = this.owner.admit(result.candidates);
    const commit = toFetchCommit(result, {
      runId: this.owner.runId(),
      urlId: row.urlId,
      attempts: row.attempts + 1,
      notBefore,
      discovered: rows,
      reprioritized,
    });
    let inserted: Set<string>;
    try {
      inserted = new Set(await this.commits.commit(commit));
    } finally {
      // Committed (the store answers for it now) or failed: either way no longer in flight.
      this.ctx.inFlight?.release(row.urlId);
    }
    this.owner.committed(row, result, rows, inserted);
    if (result.page && !result.retry) await this.notifyPage(row, result);
  }

  /**
   * Renders a fetched page and processes it again from its DOM. The render's start is a visit to
   * the host like any request (it waits for the host's delay) and each of its requests to the host
   * takes the host's turn and its delay, one at a time with the host's other requests; what it
   * meets (429/503) backs the host off. `turns`: the page's requests take the host's turns (off the
   * host's path); without, the render runs in the host's own turn and holds it.
   */
  private async renderTask(q: HostQueue, row: FrontierRow, outcome: Response, wanted: RenderWanted, turns = false): Promise<ProcessResult> {
    // Renders of the host that ran while this one waited may have shown its template gains nothing.
    if (wanted.reason !== ACTIONS_REASON && renderStopped(renderModeFor(this.ctx.settings, row.host), row.runId, q.state.render, row.url))
      return await processStage(this.ctx, row, outcome, { decide: { host: q.state.render } });
    // Renders beside each other start their visits one delay apart.
    for (let wait = readyAt(q.state) - this.ctx.clock(); wait > 0; wait = readyAt(q.state) - this.ctx.clock())
      await new Promise((r) => setTimeout(r, timerDelay(wait)));
    if (turns) q.state = visitStarted(q.state, this.politeness, this.ctx.clock());
    // Each request the render makes to the host is a visit like any: one at a time, each the host's
    // delay after the last one's answer. Off the host's path it takes the host's turn; in the host's
    // own turn (which this render holds) its requests take their turns among themselves.
    let inTurn: Promise<unknown> = Promise.resolve();
    const hostTurn = turns
      ? async (request: () => Promise<void>) => (await this.owner.turn(q, async () => (await this.politeVisit(q, request), true))) === true
      : async (request: () => Promise<void>) => {
          const visit = inTurn.then(() => this.politeVisit(q, request));
          inTurn = visit.catch(() => undefined);
          await visit;
          return true;
        };
    const capture = await renderStage(this.ctx, row, servedDocument(outcome), wanted, { robotsAllows: robotsCheck(q.robots), hostTurn });
    q.state = hostAfterRender(q.state, capture, { runId: this.owner.runId(), url: row.url }, this.politeness, this.ctx.clock());
    this.progress.rendered(row, capture);
    return await processStage(this.ctx, row, outcome, { capture });
  }

  /** One request of a render to its host: after the host's delay, holding the host until answered; the next waits the delay after it. */
  private async politeVisit(q: HostQueue, request: () => Promise<void>): Promise<void> {
    for (let wait = readyAt(q.state) - this.ctx.clock(); wait > 0; wait = readyAt(q.state) - this.ctx.clock())
      await new Promise((r) => setTimeout(r, timerDelay(wait)));
    q.state = visitStarted(q.state, this.politeness, this.ctx.clock());
    try {
      await request();
    } finally {
      q.state = visitStarted(q.state, this.politeness, this.ctx.clock());
    }
  }

  /**
   * A render off the host's path: it waits for a render slot of the host (`HostRenders`), not for
   * the host's turn, so the host's fetches and its other pages' renders go on beside it.
   */
  private async renderAside(q: HostQueue, row: FrontierRow, outcome: Response, wanted: RenderWanted): Promise<ProcessResult> {
    const exploring =
      wanted.reason === ACTIONS_REASON ? undefined : renderExploring(renderModeFor(this.ctx.settings, row.host), row.runId, q.state.render, row.url);
    const release = await this.renders.take(q.host, exploring);
    try {
      if (!this.owner.open(q)) return await processStage(this.ctx, row, outcome);
      return await this.renderTask(q, row, outcome, wanted, true);
    } finally {
      release();
    }
  }

  /** `--preview`: the heads of the page's best new links on this host, in the host's turn (see preview-stage). */
  private previewLinks(q: HostQueue, result: ProcessResult) {
    const deps = {
      ctx: this.ctx,
      runId: this.owner.runId(),
      politeness: this.politeness,
      known: (url: string) => this.owner.known(url),
      wait: (until: number) => new Promise<void>((r) => setTimeout(r, timerDelay(until - this.ctx.clock()))),
      gate: this.previewGate,
    };
    return previewStage(deps, q, result.candidates, this.ctx.settings.previewsPerPage);
  }

  /** The library's onPage hook, after the commit; an error it throws is the user's and does not stop the crawl. */
  private async notifyPage(row: FrontierRow, result: ProcessResult): Promise<void> {
    const hook = this.onPage;
    if (!hook || !result.page) return;
    try {
      await hook(await storedPage(this.ctx, row.url, { ...result, page: result.page }));
    } catch (err) {
      this.ctx.logger.warn('the onPage hook failed; the crawl goes on', { url: row.url, error: errorMessage(err) });
    }
  }
}
