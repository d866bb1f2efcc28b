import { Heap } from './heap.js';
import type { HostQueue } from './host-queue.js';
import { readyAt } from '../politeness/host-state.js';

/**
 * The heap of hosts by the time they may next be asked. A slow or backed-off host sits deep in
 * the heap while the others are served, so one host never stalls the rest.
 */
export class HostScheduler {
  private readonly heap = new Heap<HostQueue>((_a, aAt, _b, bAt) => aAt < bAt);

  /** Puts a host in line at its next allowed time, unless it is busy, parked or idle. */
  schedule(queue: HostQueue): void {
    if (queue.busy || queue.parked) return;
    const needsRobots = queue.robots === undefined;
    const turns = queue.turns.length > 0;
    if (!needsRobots && !turns && queue.queued === 0) return;
    let at = readyAt(queue.state);
    // A turn waits for the host's delay only; URLs also for their own not-before time.
    if (!needsRobots && !turns && queue.robots?.kind !== 'unreachable') at = Math.max(at, queue.earliestNotBefore());
    if (queue.scheduledAt === at) return;
    queue.scheduledAt = at;
    this.heap.push(queue, at);
  }

  /** True when no host is waiting (stale slots are dropped on the way). */
  isEmpty(): boolean {
    while (this.heap.size > 0) {
      const queue = this.heap.peek()!;
      if (queue.scheduledAt === this.heap.peekKey() && !queue.busy && !queue.parked) return false;
      this.drop();
    }
    return true;
  }

  /** Pops a host that may be asked now, or returns the time the next one may be. */
  next(now: number): { queue: HostQueue } | { waitUntil: number } | undefined {
    while (this.heap.size > 0) {
      const q = this.heap.peek()!;
      const at = this.heap.peekKey();
      if (q.scheduledAt !== at || q.busy || q.parked) {
        this.drop();
        continue;
      }
      if (at > now) return { waitUntil: at };
      this.heap.pop();
      const ready = readyAt(q.state);
      if (ready > now) {
        // The host's rules moved on since it was put in line: never ask it early.
        q.scheduledAt = ready;
        this.heap.push(q, ready);
        continue;
      }
      q.scheduledAt = undefined;
      return { queue: q };
    }
    return undefined;
  }

  /**
   * Drops the heap's top: a stale node, or the host's live one while it is busy or parked (a host
   * launched for a turn without `next`). Dropping its live node forgets it, so the host's next
   * `schedule` puts it in line again even at the same time.
   */
  private drop(): void {
    const queue = this.heap.peek()!;
    if (queue.scheduledAt === this.heap.peekKey()) queue.scheduledAt = undefined;
    this.heap.pop();
  }

  /** Puts a host back after a global rate-limit refusal. */
  delay(queue: HostQueue, until: number): void {
    queue.scheduledAt = until;
    this.heap.push(queue, until);
  }
}
