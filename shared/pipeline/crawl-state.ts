import { HostQueue } from '../frontier/host-queue.js';
import { HostScheduler } from '../frontier/scheduler.js';
import type { FrontierRow, UrlState } from '../store/ports/index.js';
import { SOFT_SKIPS } from '../store/ports/index.js';
import { originOf } from '../url/canonical.js';

export type Known = 'queued' | 'soft' | 'final';

export function knownOf(state: UrlState, reason?: string): Known {
  if (state === 'queued' || state === 'in_flight') return 'queued';
  if (state === 'skipped' && (SOFT_SKIPS as readonly string[]).includes(reason ?? '')) return 'soft';
  return 'final';
}

/** The in-memory side of one run: host queues, the scheduler and what the run has seen. */
export class CrawlState {
  readonly hosts = new Map<string, HostQueue>();
  readonly known = new Map<string, Known>();
  readonly scheduler = new HostScheduler();

  hostQueue(row: FrontierRow): HostQueue {
    let q = this.hosts.get(row.host);
    if (!q) {
      q = new HostQueue(row.host, originOf(row.url));
      this.hosts.set(row.host, q);
    }
    return q;
  }

  /** Puts a queued row into its host's queue and the host in line. */
  enqueue(row: FrontierRow): void {
    const q = this.hostQueue(row);
    q.push(row);
    this.scheduler.schedule(q);
  }

  queuedCount(): number {
    let n = 0;
    for (const q of this.hosts.values()) n += q.size;
    return n;
  }

  parkedCount(): number {
    let n = 0;
    for (const q of this.hosts.values()) if (q.parked) n++;
    return n;
  }
}
