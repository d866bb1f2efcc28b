// A run whose execution ended without ending it: Step Functions tells EventBridge of every
// execution that FAILED, TIMED_OUT or was ABORTED (a history quota, the execution's timeout, a
// StopExecution), and this marks the run that execution started as failed, so the fetch workers
// drop its queue and the crawl's next schedule starts a run.
import { errorMessage } from '../../errors.js';
import type { CloudDeps } from './cloud-context.js';

/** The parts of a "Step Functions Execution Status Change" event's `detail` this reads. */
export interface ExecutionStatusChange {
  executionArn: string;
  status: string;
  /** When the execution started (ms since the epoch). */
  startDate: number;
  /** The execution's input, as JSON text: the crawl's run input. */
  input?: string | null;
  error?: string | null;
  cause?: string | null;
}

/** The statuses that end an execution without its states having ended the run. */
export const DEAD_STATUSES = ['FAILED', 'TIMED_OUT', 'ABORTED'] as const;

/**
 * Marks failed the run a dead execution started: the crawl's run still `running` that started at or
 * after the execution did (runs of one crawl never overlap, and a run an earlier execution started
 * is that execution's to end). Tells `trawl.crawl.failed` on the bus.
 */
export async function runExecutionEnded(deps: CloudDeps, change: ExecutionStatusChange): Promise<{ outcome: string; runId?: number }> {
  if (!(DEAD_STATUSES as readonly string[]).includes(change.status)) return { outcome: `execution-${change.status.toLowerCase()}` };
  let crawl: unknown;
  try {
    crawl = (JSON.parse(change.input ?? '{}') as { crawl?: unknown }).crawl;
  } catch {
    return { outcome: 'input-unreadable' };
  }
  if (typeof crawl !== 'string') return { outcome: 'no-crawl' };
  const run = (await deps.store.runningRuns()).find((r) => r.config.crawl === crawl && r.startedAt >= change.startDate);
  if (!run) return { outcome: 'no-running-run' };
  const now = (deps.clock ?? Date.now)();
  await deps.store.setRunStatus(run.id, 'failed', now);
  const error = `the run's execution ended ${change.status}${change.error ? ` (${change.error})` : ''}`;
  deps.logger.warn('a run lost its execution: marked failed', { runId: run.id, crawl, execution: change.executionArn, status: change.status });
  await deps.events
    ?.put([
      {
        type: 'trawl.crawl.failed',
        detail: { runId: run.id, crawl, status: 'failed', reason: 'failed', error, cause: (change.cause ?? '').slice(0, 2000), execution: change.executionArn },
      },
    ])
    .catch((err: unknown) => deps.logger.warn('trawl.crawl.failed was not put on the event bus', { runId: run.id, error: errorMessage(err) }));
  return { outcome: 'failed', runId: run.id };
}
