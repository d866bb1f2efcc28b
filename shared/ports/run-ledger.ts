import type { HostState } from '../politeness/host-state.js';
import type { FetchRecord, FrontierRow, HostClaim, RunProgress, RunRecord } from './records.js';

/**
 * What many stateless workers need to share a run: claims and counters, each one conditional
 * single-item write (the cloud has no in-process scheduler to keep them).
 */
export interface RunLedger {
  getRun(runId: number): Promise<RunRecord | undefined>;
  runProgress(runId: number): Promise<RunProgress | undefined>;
  getUrl(runId: number, urlId: string): Promise<FrontierRow | undefined>;
  /**
   * Claims a queued URL (or one whose claim lapsed); undefined when it is not fetchable now. With
   * `deferCounts`, its move in the run's counters rides the run's next page slot claimed here (or
   * counter update), and `flushCounters` writes what no slot carried.
   */
  claimUrl(runId: number, urlId: string, now: number, leaseMs: number, deferCounts?: boolean): Promise<FrontierRow | undefined>;
  /** Writes the counter moves of claims made with `deferCounts` that nothing carried yet. */
  flushCounters(): Promise<void>;
  /** Records that the run's page budget was found spent at `at` (see `RunRecord.pagesFullAt`). */
  markPagesFull(runId: number, at: number): Promise<void>;
  /** Marks the run idle (its progress stalled) from `at`, once: see `RunRecord.idleSince`. */
  markRunIdle(runId: number, at: number): Promise<void>;
  /**
   * Gives a claimed URL back to its host's queue: its fetch must wait (robots.txt was read first),
   * or its claim lapsed (`attempts`: the tries it has now had).
   */
  releaseUrl(runId: number, urlId: string, attempts?: number): Promise<void>;
  /** Claims the next request to a host: only once its next allowed time and back-off have passed. */
  claimHost(host: string, owner: string, now: number, leaseMs: number): Promise<HostClaim>;
  /** Saves the host's politeness state and gives the claim back. */
  releaseHost(state: HostState, owner: string): Promise<void>;
  claimPageSlot(runId: number, maxPages: number): Promise<boolean>;
  releasePageSlot(runId: number): Promise<void>;
  claimHostSlot(runId: number, host: string, maxPerHost: number): Promise<boolean>;
  releaseHostSlot(runId: number, host: string): Promise<void>;
  /** Adds `value` to a per-run trap counter unless it already holds `limit` other values; false when full. */
  rememberVariant(runId: number, key: string, value: string, limit: number): Promise<boolean>;
}

/** A request as the run's activity series counts it (the minute of `fetchedAt`, its status). */
export type CountedRequest = Pick<FetchRecord, 'runId' | 'fetchedAt' | 'status' | 'notModified'>;

/**
 * The cloud's run activity counted where requests are made: a fetch worker counts the pages its
 * batch fetched at once (one write a run and minute), and their commits, marked `fetchCounted`,
 * do not count them again.
 */
export interface RequestActivity {
  countRequests(requests: CountedRequest[]): Promise<void>;
}
