/**
 * A run's frontier as the cloud keeps it: every queued URL waits in the store, in its host's queue
 * by priority, and the dispatch queue (SQS) holds only *turns*: one message per run and host that
 * has URLs waiting. A turn's holder fetches the host's next URL when the host is ready, then hands
 * the turn on, so a URL discovered and never fetched costs its one conditional write and nothing
 * in the queue, and the queue holds at most one message a host a run, far inside the part of a FIFO
 * queue SQS looks at for groups it can serve.
 */

import type { UrlReason, UrlState } from './records.js';
import type { FetchKind } from '../fetch/content-type.js';

/** How a closed host queue's URLs settle: skipped as parked or past the host's page cap, deferred as backed off. */
export interface QueueClosing {
  state: Extract<UrlState, 'skipped' | 'deferred'>;
  reason: UrlReason;
  /** Deferred URLs may be asked again from then (the host's back-off). */
  notBefore?: number;
}

/** One turn at a host for a run: the body of a dispatch message. Only the turn the run's host record names is live. */
export interface HostTurn {
  runId: number;
  host: string;
  turn: number;
}

/** A URL at the head of a host's queue, as the queue's index shows it (eventually consistent: claim it before use). */
export interface QueuedAt {
  urlId: string;
  /** Not before this time (a retried URL waits for its host's back-off). */
  notBefore: number;
}

/** A URL not yet settled, as the stall recovery reads it. */
export interface PendingUrl {
  urlId: string;
  host: string;
  state: 'queued' | 'in_flight';
  /** An in-flight URL's claim lasts until then. */
  leaseUntil?: number;
  attempts: number;
  /** What the URL is fetched as (a page counts against the run's page budget). */
  kind?: FetchKind;
}

/** A run's host record as the turns see it. */
export interface HostTurnRecord {
  /** The live turn, absent when the host has none. */
  turn?: number;
  /** When the live turn was handed out. */
  turnAt?: number;
  /** URLs queued at the host, as counted by the turns (what they took out and what was added). */
  queued: number;
  /** Closed for the rest of the run: how its URLs settled. */
  closed?: QueueClosing;
}

export interface HostQueues {
  /**
   * Counts `added` URLs newly queued at a host for a run; when the host has no live turn, gives it
   * one and returns it (the caller sends it). Safe against a turn ending at the same time: the
   * count and the turn are one record.
   */
  addHostWork(runId: number, host: string, added: number, now: number): Promise<HostTurn | undefined>;
  /**
   * Closes a host's queue for the rest of the run: the live turn ends, the URLs still counted there
   * (after the `taken` ones) settle in the run's counters as `closing` says, their items left as they
   * are (one write, however many), and URLs queued there later settle the same way. Returns how
   * many settled; undefined when `turn` was not live.
   */
  closeHostQueue(turn: HostTurn, taken: number, closing: QueueClosing): Promise<number | undefined>;
  /** The run's host record (its live turn and queued count), read consistently. */
  hostTurn(runId: number, host: string): Promise<HostTurnRecord | undefined>;
  /** The run's host records of many hosts at once (eventually consistent; a host without one is absent). */
  hostTurns(runId: number, hosts: string[]): Promise<Map<string, HostTurnRecord>>;
  /** The host's first queued URLs by priority (at most `limit`). */
  nextQueued(runId: number, host: string, limit: number): Promise<QueuedAt[]>;
  /**
   * Keeps a live turn going after a step that took `taken` URLs out of the queue (counted out, the
   * turn's time renewed); false when `turn` was not live.
   */
  keepTurn(turn: HostTurn, taken: number, now: number): Promise<boolean>;
  /**
   * What {@link keepTurn} does, and one of the host's page slots of the run taken (`maxPerHost` at
   * most), in one update: before a page's fetch, so the step that fetches needs no `keepTurn` after
   * it. `full` when the host's slots are spent (nothing counted), `stale` when `turn` was not live.
   */
  keepTurnWithSlot(turn: HostTurn, taken: number, now: number, maxPerHost: number): Promise<'kept' | 'full' | 'stale'>;
  /**
   * Hands a live turn on to the next one (returned; the caller sends it), counting the `taken` URLs
   * the turn moved out of the queue. Undefined when `turn` was not live (a duplicate message).
   */
  passTurn(turn: HostTurn, taken: number, now: number): Promise<HostTurn | undefined>;
  /**
   * Ends a live turn when nothing is left queued at the host after the `taken` URLs; false when
   * URLs are still counted there (the turn stays live). `force` ends it and zeroes the count (a
   * count the queue's index has long contradicted).
   */
  endTurn(turn: HostTurn, taken: number, force?: boolean): Promise<boolean>;
  /**
   * A new turn for a host whose turn was lost (its message dead-lettered or never sent): when the
   * host has no live turn, or its turn is older than `staleMs`. Undefined when its turn is fresh.
   */
  restartTurn(runId: number, host: string, now: number, staleMs: number): Promise<HostTurn | undefined>;
  /**
   * A new turn for a host whose turn `dead` reached the dead-letter queue (it failed every time it
   * was taken), unless the host's turn moved on or it was given one this way `maxRedrives` times.
   */
  redriveTurn(dead: HostTurn, now: number, maxRedrives: number): Promise<HostTurn | undefined>;
  /** The partitions a run's URLs are spread over (numbered from 0). */
  runShards(runId: number): Promise<number>;
  /** One page of a shard's URLs still queued or in flight (reading at most `limit` URLs: `read` says how many), and the cursor after them. */
  pendingUrls(runId: number, shard: number, limit: number, cursor?: string): Promise<{ urls: PendingUrl[]; read: number; cursor?: string }>;
}
