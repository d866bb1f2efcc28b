import type { FrontierRow, QueueClosing, UrlReason } from '../../ports/index.js';

/**
 * How a run's URL items that still read `queued` are settled without a write each: a host whose
 * queue closed (parked, capped, backed off) settled its URLs as its closing says, and a run that
 * ended settled the rest with its reason (`settledAs` on the RUN item). The counters moved when
 * they settled; reads show them settled.
 */
export interface SettledView {
  /** The run's end settled what was left queued with this reason. */
  runSettle?: UrlReason;
  /** Hosts whose queue closed during the run, and how. */
  closed: ReadonlyMap<string, QueueClosing>;
}

/** A URL as its run's settlement shows it: a queued one settled by its host's closing or the run's end. */
export function settledRow<T extends Pick<FrontierRow, 'state' | 'reason' | 'host'> & { notBefore?: number }>(row: T, view: SettledView): T {
  if (row.state !== 'queued') return row;
  const closing = view.closed.get(row.host);
  if (closing) return { ...row, state: closing.state, reason: closing.reason, ...(closing.notBefore !== undefined ? { notBefore: closing.notBefore } : {}) };
  if (view.runSettle) return { ...row, state: 'skipped', reason: view.runSettle };
  return row;
}
