// The runner's run, opened: a new one from the seeds and targets, or the latest resumed, with the
// admitter that judges its links and the search and social targets' discoveries admitted; and
// the answers a resumed run reads back from the archive instead of asking again; and its end when
// the disk is full.
import type { Env } from '../../config/resolve.js';
import type { Resolver } from '../../fetch/address-guard.js';
import type { LargeBodies } from '../../fetch/http-fetcher.js';
import { DiskFullError, errorMessage } from '../../errors.js';
import type { ArchivedAnswer, FrontierRow, RunRecord, WarcLocation } from '../../ports/index.js';
import { archivedStage, requestStage, type Fetched } from '../stages/fetch-stage.js';
import { Admitter, type LinkCandidate } from '../stages/admission.js';
import type { CrawlContext } from '../stages/context.js';
import { apiClientFor, discoverTargets, runTargets } from '../stages/discover-stage.js';
import type { CrawlProgress } from '../stages/progress.js';
import type { CrawlState } from './crawl-state.js';
import { createRun, restoreRun, resumableRun, seedCandidates } from './run-start.js';

/** What opening a run needs: the context, the runner's seeds and targets, and the crawl state it fills. */
export interface RunOpening {
  ctx: CrawlContext;
  seeds: string[];
  targets?: string[];
  targetEnv?: Env;
  resolver?: Resolver;
  state: CrawlState;
  progress: CrawlProgress;
  /** The delay before a resumed host's first request. */
  delayMs: number;
}

/** The run opened, and what the runner starts from. */
export interface OpenedRun {
  run: RunRecord;
  admitter: Admitter;
  /** Pages the run has fetched already (its used budget). */
  pageSlots: number;
  /** Answers a killed crawl archived and did not commit, by url id: processed from the archive. */
  archived: Map<string, ArchivedAnswer>;
}

export async function startRun(o: RunOpening): Promise<OpenedRun> {
  const { ctx, state } = o;
  const { run, carried } = await createRun(ctx, o.seeds, o.targets ?? []);
  const admitter = runAdmitter(ctx, run, o.seeds);
  const found = await discover(o, run, admitter, false);
  await addCandidates(ctx, state, admitter, [...seedCandidates(o.seeds), ...carried.candidates, ...found], (row) => {
    row.notBefore = carried.notBefore.get(row.url) ?? 0;
  });
  o.progress.started(run.id, false, carried.candidates.length ? { carried: carried.candidates.length } : undefined);
  return { run, admitter, pageSlots: 0, archived: new Map() };
}

export async function resumeRun(o: RunOpening): Promise<OpenedRun> {
  const { ctx, state } = o;
  const run = await resumableRun(ctx.store, ctx.settings.data);
  await ctx.store.setRunStatus(run.id, 'running', ctx.clock());
  const admitter = runAdmitter(ctx, run, run.seeds);
  const { pagesFetched, requeued, exhausted, archived } = await restoreRun(ctx, run, state, admitter, o.delayMs);
  // Seeds and targets a kill cut short: targets answered before it come from the archive, the others are called now.
  const found = await discover(o, run, admitter, true);
  await addCandidates(ctx, state, admitter, [...seedCandidates(run.seeds), ...found]);
  o.progress.started(run.id, true, { requeued, exhausted, fromArchive: archived.size });
  return { run, admitter, pageSlots: pagesFetched, archived };
}

/** Admits the candidates the run has not seen, stores them, and queues those stored as queued. */
export async function addCandidates(
  ctx: CrawlContext,
  state: CrawlState,
  admitter: Admitter,
  candidates: LinkCandidate[],
  prepare?: (row: FrontierRow) => void,
): Promise<void> {
  const { rows } = state.admit(admitter, ctx.priority, candidates);
  if (prepare) for (const row of rows) prepare(row);
  const inserted = new Set(await ctx.store.addUrls(rows));
  for (const row of rows) if (inserted.has(row.urlId) && row.state === 'queued') state.enqueue(row);
}

function runAdmitter(ctx: CrawlContext, run: RunRecord, seeds: string[]): Admitter {
  return new Admitter({
    runId: run.id,
    scope: [...seeds, ...(run.scope ?? [])],
    settings: ctx.settings,
    priority: ctx.priority,
    canonical: ctx.canonical,
    clock: ctx.clock,
  });
}

/** The run's search and social targets: their links as candidates, their origins in the run's scope. */
async function discover(o: RunOpening, run: RunRecord, admitter: Admitter, reuse: boolean): Promise<LinkCandidate[]> {
  const targets = runTargets(run);
  if (targets.length === 0) return [];
  const client = apiClientFor(o.ctx.settings, o.resolver);
  try {
    const found = await discoverTargets({ ...o.ctx, client, env: o.targetEnv ?? {} }, run.id, targets, {
      limit: o.ctx.settings.targetLimit || undefined,
      reuse,
    });
    for (const d of found.discoveries) o.progress.target(d);
    await o.ctx.store.widenRunScope(run.id, found.scope);
    admitter.widenScope(found.scope);
    return found.candidates;
  } finally {
    await client.close();
  }
}

/**
 * The host's answer to a URL: asked now or, for one a killed crawl archived and did not commit
 * (`archived`, from `resumeRun`), read back from the archive once. A large body asked now waits
 * for a slot of `largeBodies`, given up by the caller (`request.largeBody.release`).
 */
export async function answerOf(
  ctx: CrawlContext,
  row: FrontierRow,
  archived: Map<string, ArchivedAnswer>,
  earlierPages: boolean,
  largeBodies?: LargeBodies,
): Promise<{ fetched: Fetched; archived?: WarcLocation }> {
  const answer = archived.get(row.urlId);
  if (answer) {
    archived.delete(row.urlId);
    try {
      return { fetched: await archivedStage(ctx, row, answer), archived: answer.warc };
    } catch (err) {
      ctx.logger.warn('an archived answer could not be read back; the URL is fetched again', { url: row.url, error: errorMessage(err) });
    }
  }
  return { fetched: await requestStage(ctx, row, earlierPages, largeBodies) };
}

/**
 * The disk took no more writes: the run is marked interrupted and summed up while a small write
 * may still go through (if it cannot, it stays `running`, which `--resume` takes too), then it
 * ends with one error that says what to do.
 */
export async function endOnFullDisk(ctx: CrawlContext, runId: number, progress: CrawlProgress, cause: unknown): Promise<never> {
  try {
    await ctx.store.setRunStatus(runId, 'interrupted', ctx.clock());
  } catch (err) {
    ctx.logger.warn('the run could not be marked interrupted on the full disk; --resume takes it as it is', { error: errorMessage(err) });
  }
  // Reading needs no room: the summary of what was stored.
  progress.finish(await ctx.store.summary(runId), undefined);
  throw new DiskFullError(ctx.settings.data, cause);
}
