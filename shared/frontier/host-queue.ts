import { Heap } from './heap.js';
import { before } from './priority.js';
import type { FrontierRow } from '../ports/index.js';
import { newHostState, readyAt, type HostState } from '../politeness/host-state.js';
import type { RobotsPolicy } from '../robots/robots-policy.js';

/**
 * Work for a page processed off its host's path that needs the host once more: its render, or
 * previews of its links. It runs in the host's next turn, before its next URL; `cancel` when the
 * host will have no more turns (parked, or the crawl stops).
 */
export interface HostTurn {
  run(): Promise<void>;
  cancel(): void;
  /** Taken as soon as the host is free, its delay notwithstanding (a rendering page's request: part of a visit that waited for it). */
  now?: boolean;
}

/** One host's share of the frontier: its URLs best-first, its politeness state and its robots policy. */
export class HostQueue {
  state: HostState;
  robots?: RobotsPolicy;
  busy = false;
  /** Pages fetched from this host in the run (for --max-pages-per-host). */
  fetched = 0;
  /** The readyAt this host was last pushed into the scheduler with; other heap nodes are stale. */
  scheduledAt: number | undefined;
  /**
   * Queued URLs of this host that wait in the store, not in memory (the frontier's memory is
   * bounded): the run's known URLs mark them `spilled`, and the host's turn reads them back.
   */
  spilled = 0;
  /** The host reads URLs back from the store when it holds fewer than this in memory. */
  refillBelow = 64;
  /** Turns asked for by pages processed off the host's path, in order. */
  readonly turns: HostTurn[] = [];
  private readonly heap = new Heap<FrontierRow>(before);
  private readonly live = new Map<string, FrontierRow>();

  constructor(
    readonly host: string,
    readonly origin: string,
    state?: HostState,
  ) {
    this.state = state ?? newHostState(host);
  }

  /** Queued URLs held in memory. */
  get size(): number {
    return this.live.size;
  }

  /** Whether the host should read URLs back from the store before its next one. */
  get wantsRefill(): boolean {
    return this.spilled > 0 && this.live.size < this.refillBelow;
  }

  /** Queued URLs in all: in memory and in the store. */
  get queued(): number {
    return this.live.size + this.spilled;
  }

  /** Nodes in the queue's heap, stale ones included (what its memory holds). */
  get heapNodes(): number {
    return this.heap.size;
  }

  get parked(): boolean {
    return this.state.parkedReason !== undefined;
  }

  needsRobots(now: number): boolean {
    return this.robots === undefined || (this.robots.kind === 'unreachable' && readyAt(this.state) <= now);
  }

  /** Whether the host has anything to do: URLs waiting, or turns asked for. */
  hasWork(): boolean {
    return !this.parked && (this.queued > 0 || this.turns.length > 0);
  }

  /** Cancels every turn asked for (the host is parked, or the crawl stops). */
  /** The turn to run now: the first, or while the host's delay runs, the first that does not wait for it. */
  nextTurn(delayed: boolean): HostTurn | undefined {
    const i = delayed ? this.turns.findIndex((t) => t.now) : 0;
    return i < 0 ? undefined : this.turns.splice(i, 1)[0];
  }

  cancelTurns(): void {
    for (const turn of this.turns.splice(0)) turn.cancel();
  }

  push(row: FrontierRow): void {
    this.live.set(row.urlId, row);
    this.heap.push(row, row.priority);
  }

  get(urlId: string): FrontierRow | undefined {
    return this.live.get(urlId);
  }

  /** Re-pushes a queued URL whose priority went up; the old heap node becomes stale. */
  reprioritize(urlId: string, priority: number): void {
    const row = this.live.get(urlId);
    if (!row || row.priority === priority) return;
    row.priority = priority;
    this.heap.push(row, priority);
    // Each raise leaves a stale node behind; a URL linked from many pages would leave many.
    if (this.heap.size > 2 * this.live.size + 64) this.heap.retain((node, key) => this.current(node, key));
  }

  /** Whether a heap node is the queued row at its present priority (else it is stale). */
  private current(row: FrontierRow, priority: number): boolean {
    return this.live.get(row.urlId) === row && row.priority === priority;
  }

  /** Takes the best URL that may be fetched now; URLs waiting for `notBefore` stay queued. */
  pop(now: number): FrontierRow | undefined {
    const waiting: FrontierRow[] = [];
    let found: FrontierRow | undefined;
    while (this.heap.size > 0) {
      const priority = this.heap.peekKey();
      const row = this.heap.pop()!;
      if (!this.current(row, priority)) continue; // stale node
      if (row.notBefore > now) {
        waiting.push(row);
        continue;
      }
      this.live.delete(row.urlId);
      found = row;
      break;
    }
    for (const row of waiting) this.heap.push(row, row.priority);
    return found;
  }

  /** Earliest notBefore of the queued URLs, for scheduling a host whose URLs all wait. */
  earliestNotBefore(): number {
    // URLs in the store are read back in the host's turn (their own notBefore is seen then).
    let min = this.wantsRefill ? 0 : Infinity;
    for (const row of this.live.values()) min = Math.min(min, row.notBefore);
    return min;
  }

  /** Removes every queued URL held in memory (when the host is parked) and returns them; see `spilled` for the rest. */
  drain(): FrontierRow[] {
    const rows = [...this.live.values()];
    this.live.clear();
    this.heap.retain(() => false);
    return rows;
  }
}
