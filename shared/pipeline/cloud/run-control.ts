import { DEFAULT_MAX_MINUTES, runDeadline, runIsDead } from './run-deadline.js';
import { settingsFrom } from '../../config/resolve.js';
import { crawlScoring } from '../../scoring/crawl-scoring.js';
import { parseProfile } from '../../scoring/profile.js';
import { CHANGE_KINDS, type BusEvent, type ChangeKind, type ChangeStore, type GraphStore, type RunSummary } from '../../ports/index.js';
import { monitorOf, told, type Monitor } from '../../changes/monitor.js';
import { errorMessage } from '../../errors.js';
import { enqueueCandidates } from './cloud-commit.js';
import { redriveDeadTurns, STALL_CHECKS, sweepStep, type Sweep } from './stall-recovery.js';
import { runScoring, runSettings, withRun, type CloudDeps } from './cloud-context.js';
import { selectStage } from '../stages/select-stage.js';
import { writeRunWacz, writeWaczCollection } from './run-wacz.js';
import {
  endStatus,
  FINALIZE_SPREAD_PAGES,
  finishRanks,
  settleReason,
  summedChanges,
  type FinalizePlan,
  type RankStore,
  type ShardPages,
} from './run-finalize.js';
import { archiveKeys } from '../../ports/archive-keys.js';
import { routeTarget } from '../../targets/route.js';

/** What starts a run: one crawl of `crawls.json` (the EventBridge rule's input). */
export interface RunInput {
  crawl: string;
  /** URLs, and search queries and social accounts (`search:…`, `r/name`, profile URLs): those go to the Discover step. */
  seeds: string[];
  /** Crawl settings by name (maxPages, maxDepth, delayMs, …); the rest are defaults. */
  settings?: Record<string, unknown>;
  /** The run is finalized after this many minutes even if the frontier is not drained. */
  maxMinutes?: number;
  /** The scoring profile, as in an embedded crawl's `--profile`: a shipped name or the profile itself (a custom file, read at synth). */
  profile?: string | Record<string, unknown>;
  /** Focused crawl: the query links are scored against (default: the profile's). */
  query?: string;
  /** End the run with each seed's selection (stored, and reports/selection-<run>.json). */
  select?: { cap: number };
  /** Who started it over the API (the caller's IAM principal), kept in the run's config for the per-caller cap. */
  startedBy?: string;
}

/** The state the run state machine carries between its states. */
export interface RunState {
  runId: number;
  crawl: string;
  deadline: number;
  maxPages: number;
  /** The run has search or social targets: the Discover step calls them and sends the seeds with their links. */
  discover?: boolean;
}

/** InitRun's answer when a run of the same crawl is still running (a schedule that fired again): nothing is started. */
export interface SkippedRun {
  crawl: string;
  /** The run still going. */
  skipped: number;
}

export interface ProgressState extends RunState {
  done: boolean;
  /** Progress checks in a row in which no URL settled. */
  stalledChecks: number;
  lastSettled: number;
  /** Turns given again to hosts whose turn was lost, by stall recoveries so far. */
  restarted?: number;
  /** Lapsed claims queued again (or failed past their attempts) by stall recoveries so far. */
  requeued?: number;
  /** Dead-lettered turns given back to their hosts so far. */
  redriven?: number;
  /** A stall recovery under way: where it stopped (it walks the run's unsettled URLs a slice a call). */
  sweep?: Sweep;
  /** Why the run ends (`drained`, `budget`, `deadline`, `stopped` over the API), or `running`. */
  reason: 'drained' | 'budget' | 'deadline' | 'stopped' | 'running';
  enqueued: number;
  settled: number;
  pages: number;
  /**
   * A running run's full-text log has passed the bound since the last generation: the loop
   * rebuilds the generation before it waits again (where search is deployed).
   */
  rebuildText?: boolean;
}

export { STALL_CHECKS } from './stall-recovery.js';

/** InitRun: creates the run, admits the seeds and sends them to the frontier. */
export async function initRun(deps: CloudDeps, input: RunInput): Promise<RunState | SkippedRun> {
  if (!Array.isArray(input.seeds) || input.seeds.length === 0)
    throw new Error(`crawl "${input.crawl}" has no seeds: give it at least one URL, search query or account in crawls.json`);
  // Schedules may fire while the last run is still going (a week's schedule, a week's maxMinutes): runs of one crawl never overlap.
  const now = (deps.clock ?? Date.now)();
  for (const r of await deps.store.runningRuns()) {
    if (r.config.crawl !== input.crawl) continue;
    if (!runIsDead(r, now)) {
      deps.logger.warn('a run of this crawl is still running: this one is skipped', { crawl: input.crawl, running: r.id });
      return { crawl: input.crawl, skipped: r.id };
    }
    // Its execution died outside its states and can no longer end it: it ends here, and this run starts.
    deps.logger.warn('a run of this crawl outlived its deadline without ending: marked failed', { crawl: input.crawl, run: r.id, deadline: runDeadline(r) });
    await deps.store.setRunStatus(r.id, 'failed', now);
  }
  const urls = new Set<string>();
  const targets = new Set<string>();
  for (const seed of input.seeds) {
    const t = routeTarget(seed);
    if (t.kind === 'url') urls.add(t.url);
    else targets.add(seed.trim());
  }
  const custom = typeof input.profile === 'object' ? parseProfile(input.profile, `crawl "${input.crawl}" profile`) : undefined;
  const settings = settingsFrom(
    {
      ...input.settings,
      ...(input.profile ? { profile: custom ? custom.name : input.profile } : {}),
      ...(input.query ? { query: input.query } : {}),
      ...(input.select ? { select: true, selectCap: input.select.cap } : {}),
    },
    `crawl "${input.crawl}"`,
  );
  // Checked now (a bad profile or selector fails the run's start, not every page); a custom profile travels with the run.
  crawlScoring(settings, custom);
  const { data: _data, ...stored } = settings;
  const minutes = input.maxMinutes ?? (settings.maxMinutes || DEFAULT_MAX_MINUTES);
  const deadline = now + minutes * 60_000;
  // The deadline travels with the run: the fetch workers drop its messages after it, and a later InitRun knows a dead run.
  const config = {
    ...stored,
    crawl: input.crawl,
    endsBy: deadline,
    ...(custom ? { scoringProfile: custom } : {}),
    ...(targets.size ? { targets: [...targets] } : {}),
    ...(input.startedBy ? { startedBy: input.startedBy } : {}),
  };
  const run = await deps.store.createRun([...urls], config, now);
  // Told, not retried: a retried InitRun would create the run again (createRun is one run per call).
  await deps.events
    ?.put([{ type: 'trawl.crawl.started', detail: { runId: run.id, crawl: input.crawl, seeds: input.seeds, startedAt: now } }])
    .catch((err: unknown) => deps.logger.warn('trawl.crawl.started was not put on the event bus', { runId: run.id, error: errorMessage(err) }));
  const state = { runId: run.id, crawl: input.crawl, deadline, maxPages: settings.maxPages };
  // With targets, Discover sends the seeds once the scope holds where the targets lead.
  if (targets.size) return { ...state, discover: true };
  await withRun(deps, run.id, (ctx) =>
    enqueueCandidates(
      ctx,
      [...urls].map((href) => ({ href, depth: 0, kind: 'page' as const, structural: true })),
    ),
  );
  return state;
}

/** Progress: reads the run's counters (never the queue's approximate counts) and says whether it is over. */
export async function progressStage(deps: CloudDeps, state: RunState & Partial<ProgressState>): Promise<ProgressState> {
  const p = await deps.store.runProgress(state.runId);
  if (!p) throw new Error(`run ${state.runId} is not in the table: was it deleted while running?`);
  const now = (deps.clock ?? Date.now)();
  const stalledChecks = p.settled === state.lastSettled ? (state.stalledChecks ?? 0) + 1 : 0;
  const { sweep: _sweep, ...rest } = state;
  const base = { ...rest, enqueued: p.enqueued, settled: p.settled, pages: p.pages, lastSettled: p.settled, stalledChecks };
  // Stopped over the API (`DELETE /crawls/{id}` marks the run interrupted; the workers already drop its messages).
  if (p.status === 'interrupted') return { ...base, done: true, reason: 'stopped' };
  // Progress runs after InitRun and Discover sent the first URLs: nothing enqueued means nothing will be (every target failed).
  if (p.settled >= p.enqueued) return { ...base, done: true, reason: 'drained' };
  if (p.pages >= state.maxPages && !(await hasInFlight(deps, state.runId))) return { ...base, done: true, reason: 'budget' };
  if (now >= state.deadline) return { ...base, done: true, reason: 'deadline' };
  const redriven = await redriveDeadTurns(deps, state.runId, now);
  if (redriven) base.redriven = (state.redriven ?? 0) + redriven;
  // With the budget spent, settling stops by design: a stall then only means claims that lapsed
  // (the run waits for its fetches in flight), which the sweep queues again; turns are not restarted.
  const budgetSpent = p.pages >= state.maxPages;
  if (state.sweep || stalledChecks >= STALL_CHECKS) {
    // Stalled: from now on hosts backed off past the run's patience defer their URLs, and lost turns are given again.
    if (!state.sweep && !budgetSpent) await deps.store.markRunIdle(state.runId, now);
    const before = state.sweep ?? { restarted: 0, requeued: 0 };
    const sweep = await sweepStep(deps, state.runId, state.sweep, now, { claimsOnly: budgetSpent });
    const totals = (s: Pick<Sweep, 'restarted' | 'requeued'>) => ({
      restarted: (state.restarted ?? 0) + s.restarted - before.restarted,
      requeued: (state.requeued ?? 0) + s.requeued - before.requeued,
    });
    if (sweep.next) return { ...base, ...totals(sweep.next), sweep: sweep.next, done: false, reason: 'running' };
    return { ...base, ...totals(sweep.done), stalledChecks: 0, done: false, reason: 'running' };
  }
  return { ...base, done: false, reason: 'running' };
}

/** Whether a URL of the run is being fetched: read from the run's state counters, never from its URLs. */
async function hasInFlight(deps: CloudDeps, runId: number): Promise<boolean> {
  return ((await deps.store.summary(runId)).urlsByState.in_flight ?? 0) > 0;
}

/** `trawl.page.changed` for each change of the run the monitor tells (every kind but `unchanged` by default). */
async function toldChanges(changes: ChangeStore, state: ProgressState, monitor: Monitor): Promise<BusEvent[]> {
  const all = await changes.changes({ runId: state.runId, kinds: [...CHANGE_KINDS] });
  return all.filter((c) => told(monitor, c)).map((c) => ({ type: 'trawl.page.changed', detail: { crawl: state.crawl, ...c } }));
}

/** The event a run's end puts on the bus: what a downstream service needs without reading the table. */
function runEndEvent(state: ProgressState & { error?: RunFailure }, status: string, report: string, summary: RunSummary, wacz?: string): BusEvent {
  const { pagesStored, requests, unchanged, duplicates, bytes, fetchesByStatus, startedAt, finishedAt, changes } = summary;
  return {
    type: state.error ? 'trawl.crawl.failed' : 'trawl.crawl.finished',
    detail: {
      runId: state.runId,
      crawl: state.crawl,
      status,
      reason: state.error ? 'failed' : state.reason,
      ...(state.error ? { error: state.error.Error ?? 'unknown', cause: (state.error.Cause ?? '').slice(0, 2000) } : {}),
      report,
      ...(wacz ? { wacz } : {}),
      summary: { pagesStored, requests, unchanged, duplicates, bytes, fetchesByStatus, startedAt, finishedAt, ...(changes ? { changes } : {}) },
    },
  };
}

/**
 * The run machine's last resort when its end failed twice (FinalizeRun, then FailRun): the run is
 * marked `failed` in one write, so no reader shows it finished or running; then, as far as the
 * bucket and the bus take them, its report with both errors and its failed event.
 */
export async function markRunFailed(
  deps: Pick<CloudDeps, 'store' | 'objects' | 'events' | 'logger' | 'clock'>,
  state: ProgressState & { error?: RunFailure; finalizeError?: RunFailure; failure?: RunFailure },
): Promise<{ runId: number; status: 'failed'; report?: string }> {
  await deps.store.setRunStatus(state.runId, 'failed', (deps.clock ?? Date.now)());
  const error: RunFailure = state.failure ?? state.finalizeError ?? state.error ?? { Error: 'RunEndFailed' };
  deps.logger.error('the run’s end failed twice: the run is marked failed', { runId: state.runId, error: error.Error, cause: error.Cause });
  try {
    const summary = await deps.store.summary(state.runId);
    const report = await deps.objects.putReport(`run-${state.runId}`, {
      crawl: state.crawl,
      reason: 'failed',
      error,
      ...(state.finalizeError ? { endError: state.finalizeError } : {}),
      summary,
    });
    await deps.events?.put([runEndEvent({ ...state, error }, 'failed', report, summary)]);
    return { runId: state.runId, status: 'failed', report };
  } catch (err) {
    deps.logger.error('the failed run’s report or event was not written', { runId: state.runId, error: errorMessage(err) });
    return { runId: state.runId, status: 'failed' };
  }
}

/** What a state's Catch adds to the run's state (Step Functions' error output). */
export interface RunFailure {
  Error?: string;
  Cause?: string;
}

/**
 * FinalizeRun: inlink counts and PageRank, the run summary as a report in S3, the run's final
 * status; the selection when the crawl asks for one. In the run machine it comes after
 * FinalizeStart and the shards' ranking steps (`state.finalize`: run-finalize.ts), and writes the
 * top pages from the shards' tops; called alone it does all of it here. Also the run machine's
 * Catch of its finalize steps (`FailRun`, `state.finalizeError`): the run ends `failed` with its
 * queued URLs settled and the error in the report, never `running` for ever (its ranks are left as
 * they were).
 */
export async function finalizeRun(
  deps: CloudDeps & { graph: GraphStore; ranks?: RankStore; urls?: ShardPages },
  state: ProgressState & {
    error?: RunFailure;
    finalize?: FinalizePlan & { changeCounts?: Array<Partial<Record<ChangeKind, number>>> };
    finalizeError?: RunFailure;
  },
): Promise<{ runId: number; status: string; report: string; summary: RunSummary; wacz?: string; captures?: string; selection?: string }> {
  const now = (deps.clock ?? Date.now)();
  const failedEnd = state.finalizeError !== undefined;
  const error = state.error ?? state.finalizeError;
  const failure = { ...state, ...(error ? { error } : {}) };
  const status = endStatus(failure);
  // A run too large for one Lambda whose end failed: it ends failed without a step that reads the
  // whole run (its queued URLs stay queued, no changes are decided, no WACZ is packaged).
  const largeFailed = failedEnd && (state.finalize ? state.finalize.spread : (await deps.store.summary(state.runId)).pagesStored > FINALIZE_SPREAD_PAGES);
  let ranked = 0;
  if (state.finalize?.spread && !failedEnd && deps.ranks && deps.urls) ranked = await finishRanks({ ...deps, ranks: deps.ranks, urls: deps.urls }, state.runId);
  else {
    // Stop the workers first: messages still queued are dropped once the run is not running.
    await deps.store.setRunStatus(state.runId, status, now);
    // A finished run leaves nothing queued: what is left was cut by the page budget or the time budget.
    // A stopped one keeps its queue, as an interrupted embedded run does.
    const settle = settleReason(failure);
    if (settle && !largeFailed) await deps.store.settleQueued(state.runId, settle);
    if (!failedEnd) ranked = await deps.graph.computeRanks(state.runId);
  }
  // A spread run's changes were decided and told a partition at a time (the ChangeShards map).
  const spreadChanges = state.finalize?.spread && !failedEnd && state.finalize.changeCounts;
  const counts = spreadChanges ? summedChanges(spreadChanges) : deps.changes && !largeFailed ? await deps.changes.finishChanges(state.runId, now) : {};
  const summary = { ...(await deps.store.summary(state.runId)), ...(Object.keys(counts).length ? { changes: counts } : {}) };
  const run = await deps.store.getRun(state.runId);
  const settings = run && runSettings(run);
  const report = await deps.objects.putReport(`run-${state.runId}`, {
    crawl: state.crawl,
    reason: error ? 'failed' : state.reason,
    ...(error ? { error } : {}),
    rankedPages: ranked,
    summary,
  });
  if (error) deps.logger.error('run failed', { runId: state.runId, error: error.Error, cause: error.Cause });
  if (largeFailed)
    deps.logger.warn('the end of a large run failed: its queued URLs stay queued, and its archive is its WARC files (no WACZ)', {
      runId: state.runId,
      warc: archiveKeys.warcRun(state.runId),
    });
  // The run's archive as one package replay tools open; a failure to write it is logged, never the run's end.
  // A spread run's archive is in parts the PackageParts map wrote: the collection lists them.
  const spreadWacz = state.finalize?.spread && !failedEnd && run;
  const wacz = spreadWacz
    ? await writeWaczCollection(deps.objects, run, state.crawl, state.finalize!.parts.length).catch((err: unknown) => {
        deps.logger.error('the run’s WACZ collection was not written', { runId: state.runId, error: errorMessage(err) });
        return undefined;
      })
    : deps.archivedPages && run && !largeFailed
      ? await writeRunWacz({ objects: deps.objects, pages: deps.archivedPages, changes: deps.changes }, run, state.crawl).catch((err: unknown) => {
          deps.logger.error('the run’s WACZ was not written', { runId: state.runId, error: errorMessage(err) });
          return undefined;
        })
      : undefined;
  // FinalizeRun is safe to repeat: a bus that refused the event fails it, and Step Functions retries it.
  // The changes the crawl's monitor tells come first, one event each, then the run's end.
  const told =
    !spreadChanges && deps.events && deps.changes && settings && status === 'finished' && Object.keys(counts).length
      ? await toldChanges(deps.changes, state, monitorOf(settings))
      : [];
  if (told.length) await deps.events?.put(told);
  await deps.events?.put([runEndEvent(failure, status, report, summary, wacz?.key)]);
  const out = { runId: state.runId, status, report, summary, ...(wacz ? { wacz: wacz.key, captures: wacz.captures } : {}) };
  if (!run || !settings?.select) return out;
  const selection = await selectStage({ ...deps, clock: deps.clock }, state.runId, run.seeds, runScoring(run, settings), settings.selectCap);
  return { ...out, selection: selection.report };
}
