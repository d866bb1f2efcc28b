import type { RunRecord } from '../../ports/index.js';

/** A run's time budget when neither the crawl nor its settings give one. */
export const DEFAULT_MAX_MINUTES = 24 * 60;

/**
 * After its deadline a run has this long to end (the monitor's last wait, FinalizeRun's 15-minute
 * Lambda and its retries); a run still `running` past it has lost its execution (a history quota,
 * the execution's timeout, a StopExecution) and never will.
 */
export const RUN_END_GRACE_MS = 60 * 60_000;

/** When a run must end (ms since the epoch): the deadline InitRun stored, or one from its settings for older runs. */
export function runDeadline(run: Pick<RunRecord, 'startedAt' | 'config'>): number {
  const { endsBy, maxMinutes } = run.config;
  if (typeof endsBy === 'number') return endsBy;
  return run.startedAt + (Number(maxMinutes) || DEFAULT_MAX_MINUTES) * 60_000;
}

/** A run still marked running whose execution is gone: its deadline and the grace after it have passed. */
export function runIsDead(run: Pick<RunRecord, 'status' | 'startedAt' | 'config'>, now: number): boolean {
  return run.status === 'running' && now > runDeadline(run) + RUN_END_GRACE_MS;
}
