import { HostQueue } from '../../frontier/host-queue.js';
import { HostScheduler } from '../../frontier/scheduler.js';
import type { FrontierRow, UrlState } from '../../ports/index.js';
import { SOFT_SKIPS } from '../../ports/index.js';
import { originOf } from '../../url/canonical.js';
import { relinkedPriority, type PriorityFn } from '../../frontier/priority.js';
import type { Admitter, LinkCandidate } from '../stages/admission.js';
import { urlId } from '../../url/canonical.js';
import { KnownUrls, type Known } from '../../frontier/known-urls.js';

/** A queued URL linked again, and its priority raised. */
export interface Reprioritized {
  urlId: string;
  priority: number;
  inlinks: number;
}

export function knownOf(state: UrlState, reason?: string): Known {
  if (state === 'queued' || state === 'in_flight') return 'queued';
  if (state === 'skipped' && (SOFT_SKIPS as readonly string[]).includes(reason ?? '')) return 'soft';
  return 'final';
}

/** The least a host holds in memory however many hosts share the frontier's bound. */
const HOST_MEMORY_FLOOR = 16;
/** A host reads URLs back from the store when it holds fewer than this in memory. */
const REFILL_BELOW = 64;

/**
 * The in-memory side of one run: host queues, the scheduler and what the run has seen. At most
 * `memoryRows` queued URLs are held in memory, shared among the hosts (`HOST_MEMORY_FLOOR` at
 * least each); a URL queued past its host's share stays in the store only, and the host reads
 * such URLs back, best first, when it runs low (`refill`).
 */
export class CrawlState {
  readonly hosts = new Map<string, HostQueue>();
  readonly known = new KnownUrls();
  readonly scheduler = new HostScheduler();

  constructor(private readonly memoryRows = Infinity) {}

  hostQueue(row: FrontierRow): HostQueue {
    let q = this.hosts.get(row.host);
    if (!q) {
      q = new HostQueue(row.host, originOf(row.url));
      this.hosts.set(row.host, q);
    }
    return q;
  }

  /**
   * Puts a queued row (already in the store) into its host's queue and the host in line; past
   * the host's share of memory it stays in the store only.
   */
  enqueue(row: FrontierRow): void {
    const q = this.hostQueue(row);
    const share = this.hostShare();
    q.refillBelow = Math.min(REFILL_BELOW, share);
    if (q.size >= share) {
      this.known.set(row.urlId, 'spilled');
      q.spilled++;
    } else {
      row.host = q.host; // one string a host, not one a queued row
      q.push(row);
    }
    this.scheduler.schedule(q);
  }

  private hostShare(): number {
    return Math.max(Math.min(HOST_MEMORY_FLOOR, this.memoryRows), Math.floor(this.memoryRows / this.hosts.size));
  }

  /**
   * Takes back the host's URLs read from the store (its best queued ones): those the run holds
   * as spilled go to memory, up to the host's share; the rest (in memory or in flight already)
   * are left. Finding none means the store holds no more of them.
   */
  refill(q: HostQueue, stored: FrontierRow[]): void {
    let taken = 0;
    let found = 0;
    const share = this.hostShare();
    for (const row of stored) {
      if (this.known.get(row.urlId) !== 'spilled') continue;
      found++;
      if (q.size >= share) break;
      this.known.set(row.urlId, 'queued');
      row.host = q.host;
      q.push(row);
      taken++;
    }
    q.spilled = found === 0 ? 0 : Math.max(0, q.spilled - taken);
  }

  /** Hosts with URLs queued that are not being fetched right now (waiting out their delay or back-off). */
  waitingHosts(active: number): number {
    let n = 0;
    for (const q of this.hosts.values()) if (!q.parked && q.queued > 0) n++;
    return Math.max(0, n - active);
  }

  queuedCount(): number {
    let n = 0;
    for (const q of this.hosts.values()) n += q.queued;
    return n;
  }

  parkedCount(): number {
    let n = 0;
    for (const q of this.hosts.values()) if (q.parked) n++;
    return n;
  }

  /** Admits candidates the run has not seen (as rows to insert); raises the priority of queued ones linked again. */
  admit(admitter: Admitter, priorityOf: PriorityFn, candidates: LinkCandidate[]): { rows: FrontierRow[]; reprioritized: Reprioritized[] } {
    const rows: FrontierRow[] = [];
    const reprioritized: Reprioritized[] = [];
    const seen = new Set<string>();
    for (const c of candidates) {
      const url = admitter.canonicalize(c.href);
      if (!url) continue;
      const id = urlId(url);
      if (seen.has(id)) continue;
      seen.add(id);
      const known = this.known.get(id);
      if (known === 'spilled') continue; // its inlink is not counted: the row is in the store only
      if (known === 'queued') {
        const bumped = c.kind === 'page' && !c.nofollow ? this.bumpInlinks(url, id, c, priorityOf) : undefined;
        if (bumped) reprioritized.push(bumped);
        continue;
      }
      if (known === 'final') continue;
      const admission = admitter.admit(c, { url, id });
      if (!('row' in admission)) continue;
      const next = knownOf(admission.row.state, admission.row.reason);
      if (known === 'soft' && next !== 'queued') continue;
      this.known.set(id, next);
      rows.push(admission.row);
    }
    return { rows, reprioritized };
  }

  /** Another link to a queued URL: its priority is its best link's, with the inlink counted. */
  bumpInlinks(url: string, id: string, c: LinkCandidate, priorityOf: PriorityFn): Reprioritized | undefined {
    const q = this.hosts.get(new URL(url).host);
    const row = q?.get(id);
    if (!q || !row) return undefined;
    row.inlinks++;
    const priority = relinkedPriority(priorityOf, { url: row.url, depth: row.depth, inlinks: row.inlinks, fresh: row.fresh, ...c.link }, row.priority);
    q.reprioritize(id, priority);
    return { urlId: id, priority, inlinks: row.inlinks };
  }
}
