// Crawls started over the search API in the cloud: `POST /crawls` starts the run state machine
// (the execution is named after the job), `GET /crawls/{id}` reads the execution and the run's
// counters, `DELETE /crawls/{id}` marks the run interrupted, which the workers and the next
// Progress check obey (the run ends `interrupted`, its report written, its queue kept).
import { randomUUID } from 'node:crypto';
import { checkJobOptions, type JobOptions } from '../../config/job-options.js';
import { settingsFrom } from '../../config/resolve.js';
import { extractSpecOf } from '../../enrich/extract-spec.js';
import type { CrawlJob, CrawlLauncher, CrawlStore, RunLedger, RunRecord, WorkflowRunner } from '../../ports/index.js';
import type { RunInput } from './run-control.js';
import { ForbiddenError, JobQueueFullError, UsageError } from '../../errors.js';
import { DEFAULT_API_CRAWL_LIMITS, type ApiCrawlLimits } from '../../config/api-crawl-limits.js';
import { DEFAULT_MAX_MINUTES } from './run-deadline.js';

/** A job's crawl name: runs of one crawl never overlap, so each job is a crawl of its own. */
export const apiCrawlName = (id: string) => `api-${id}`;

export interface ApiCrawlsDeps {
  store: Pick<CrawlStore, 'runningRuns' | 'latestRunOf' | 'summary' | 'setRunStatus'> & Pick<RunLedger, 'runProgress'>;
  /** The run state machine. */
  runs: WorkflowRunner;
  /** The deployment's settings under every request's own (politeness, private addresses): `api.startCrawls.settings`. */
  defaults: Record<string, unknown>;
  /** Caps on what a request may ask for (`api.startCrawls.limits`). @default DEFAULT_API_CRAWL_LIMITS */
  limits?: ApiCrawlLimits;
  /** Principals (IAM ARNs) that may stop any API crawl; every other caller stops only its own. @default [] */
  admins?: readonly string[];
  /** Whether the deployment's enrichment has a chat model (Bedrock): a crawl's extract schema needs one. @default false */
  chatModel?: boolean;
  clock?: () => number;
}

export class ApiCrawls implements CrawlLauncher {
  constructor(private readonly deps: ApiCrawlsDeps) {}

  async start(seeds: string[], given: JobOptions, origin: { caller?: string } = {}): Promise<CrawlJob> {
    // Enrichment is the deployment's (its page workflow has Summarize and Index or not).
    const { maxMinutes, query, enrich: _enrich, ...rest } = checkJobOptions(given);
    const id = randomUUID();
    const startedBy = callerKey(origin.caller);
    const input: RunInput = {
      crawl: apiCrawlName(id),
      seeds,
      settings: { ...this.deps.defaults, ...rest },
      ...(typeof maxMinutes === 'number' ? { maxMinutes } : {}),
      ...(typeof query === 'string' ? { query } : {}),
      startedBy,
    };
    // Refused here with a 400, not by InitRun after the execution started.
    const resolved = settingsFrom({ ...input.settings, ...(input.query ? { query: input.query } : {}) }, 'the crawl');
    // The Summarize step extracts to a run's own schema with the deployment's chat model.
    if (extractSpecOf(resolved) && !this.deps.chatModel)
      throw new UsageError(
        'extractSchema needs a chat model: this deployment\'s enrichment has none (its construct\'s enrichment.provider is local, or enrichment is off; write provider "bedrock")',
      );
    await this.checkLimits(resolved.maxPages, input.maxMinutes ?? (resolved.maxMinutes || DEFAULT_MAX_MINUTES), startedBy);
    await this.deps.runs.start(id, input);
    return { id, status: 'queued', seeds, progress: { requests: 0, pagesStored: 0, queued: 0, errors: 0 }, createdAt: (this.deps.clock ?? Date.now)() };
  }

  async get(id: string): Promise<CrawlJob | undefined> {
    const execution = await this.deps.runs.describe(id);
    if (!execution) return undefined;
    const run = await this.runOf(id);
    const seeds = run?.seeds ?? [];
    const job: CrawlJob = { id, status: 'queued', seeds, progress: { requests: 0, pagesStored: 0, queued: 0, errors: 0 }, createdAt: execution.startedAt };
    // A run its execution outlived (its end event lost, its finalize failed past its Catch) is dead, not running.
    if (run?.status === 'running' && ended(execution.status)) await this.reconcile(run);
    if (execution.status === 'FAILED' || execution.status === 'TIMED_OUT' || execution.status === 'ABORTED')
      return { ...job, status: 'failed', error: execution.error ?? `the run's execution ended ${execution.status}` };
    if (!run) return execution.status === 'SUCCEEDED' ? { ...job, status: 'failed', error: skipped(execution.output) } : job;
    const progress = await this.deps.store.runProgress(run.id);
    const queued = progress ? Math.max(0, progress.enqueued - progress.settled) : 0;
    if (run.status === 'running') {
      // Settled URLs are the requests answered or refused; `errors` comes with the summary at the end.
      return { ...job, status: 'running', progress: { requests: progress?.settled ?? 0, pagesStored: progress?.pages ?? 0, queued, errors: 0 } };
    }
    const summary = await this.deps.store.summary(run.id);
    // Fetches answered 4xx or 5xx, or with no answer (`error`).
    const errors = Object.entries(summary.fetchesByStatus).reduce((n, [status, count]) => (/^(?:[45]\d\d|error)$/.test(status) ? n + count : n), 0);
    return {
      ...job,
      status: run.status === 'finished' ? 'finished' : run.status === 'interrupted' ? 'stopped' : 'failed',
      progress: { requests: summary.requests, pagesStored: summary.pagesStored, queued, errors },
      summary,
      ...(run.status === 'failed' ? { error: 'the run failed: its report in the bucket has the error' } : {}),
    };
  }

  async stop(id: string, origin: { caller?: string } = {}): Promise<boolean> {
    const run = await this.runOf(id);
    // Before InitRun made the run there is nothing to mark yet; after the run ended, nothing to stop.
    if (!run || run.status !== 'running') return false;
    // A caller stops the crawls it started; the deployment's admins (api.startCrawls.admins) stop any.
    const caller = callerKey(origin.caller);
    const owner = String(run.config.startedBy ?? TOKEN_CALLER);
    if (caller !== owner && !(this.deps.admins ?? []).map(callerKey).includes(caller))
      throw new ForbiddenError(
        `crawl ${id} was started by ${owner === TOKEN_CALLER ? 'a holder of the write token' : owner}: a caller stops only its own crawls (the deployment's api.startCrawls.admins stop any)`,
      );
    await this.deps.store.setRunStatus(run.id, 'interrupted', (this.deps.clock ?? Date.now)());
    return true;
  }

  /** Refuses a crawl over the deployment's caps (a UsageError: 400) or past its running API crawls (429). */
  private async checkLimits(maxPages: number, maxMinutes: number, caller: string): Promise<void> {
    const limits = this.deps.limits ?? DEFAULT_API_CRAWL_LIMITS;
    if (maxPages > limits.maxPages)
      throw new UsageError(`maxPages ${maxPages} is over this deployment's cap of ${limits.maxPages} pages a crawl (api.startCrawls.limits.maxPages)`);
    if (maxMinutes > limits.maxMinutes)
      throw new UsageError(
        `maxMinutes ${maxMinutes} is over this deployment's cap of ${limits.maxMinutes} minutes a crawl (api.startCrawls.limits.maxMinutes)`,
      );
    const api = await this.liveApiRuns();
    if (api.length >= limits.concurrentRuns)
      throw new JobQueueFullError(
        `${api.length} crawls started over the API are running (at most ${limits.concurrentRuns} at once: api.startCrawls.limits.concurrentRuns): try again when one has ended, or stop one (DELETE /crawls/{id})`,
      );
    const mine = api.filter((r) => (r.config.startedBy ?? TOKEN_CALLER) === caller).length;
    if (mine >= limits.runsPerCaller)
      throw new JobQueueFullError(
        `${caller === TOKEN_CALLER ? 'the write token' : caller} has ${mine} crawls running (at most ${limits.runsPerCaller} a caller: api.startCrawls.limits.runsPerCaller): try again when one has ended, or stop one (DELETE /crawls/{id})`,
      );
  }

  /** The API's runs still running, each checked against its execution: one whose execution ended is reconciled as failed. */
  private async liveApiRuns(): Promise<RunRecord[]> {
    const prefix = apiCrawlName('');
    const running = (await this.deps.store.runningRuns()).filter((r) => String(r.config.crawl).startsWith(prefix));
    const live: RunRecord[] = [];
    for (const run of running) {
      // An execution that cannot be read now (Step Functions throttled or unreachable) is taken as live: a start is refused rather than over-admitted.
      const execution = await this.deps.runs.describe(String(run.config.crawl).slice(prefix.length)).catch(() => undefined);
      if (execution && ended(execution.status)) await this.reconcile(run);
      else live.push(run);
    }
    return live;
  }

  /** A run recorded `running` whose execution ended: it is marked failed (it never wrote its end), in place. */
  private async reconcile(run: RunRecord): Promise<void> {
    await this.deps.store.setRunStatus(run.id, 'failed', (this.deps.clock ?? Date.now)());
    run.status = 'failed';
  }

  private async runOf(id: string): Promise<RunRecord | undefined> {
    const name = apiCrawlName(id);
    return this.deps.store.latestRunOf(name);
  }
}

/** An execution that ended (and is not waiting to be redriven). */
const ended = (status: string) => status !== 'RUNNING' && status !== 'PENDING_REDRIVE';

/** Behind a write token (no signed caller) every holder of the token is one caller. */
const TOKEN_CALLER = 'token';

/**
 * The caller a cap counts: the signed IAM principal, a role's sessions
 * (`arn:aws:sts::<account>:assumed-role/<role>/<session>`) as the role, as the writers list reads them.
 */
export function callerKey(caller: string | undefined): string {
  if (!caller) return TOKEN_CALLER;
  const session = /^arn:([^:]+):sts::(\d{12}):assumed-role\/([^/]+)\/[^/]+$/.exec(caller);
  return session ? `arn:${session[1]}:iam::${session[2]}:role/${session[3]}` : caller;
}

/** What InitRun answered when it started nothing: another run of the crawl was still going. */
function skipped(output: unknown): string {
  const o = output as { skipped?: number } | undefined;
  return o?.skipped !== undefined ? `not started: run ${o.skipped} of this crawl was still running` : 'the execution ended without a run';
}
