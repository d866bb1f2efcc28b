import { HostQueue } from '../../frontier/host-queue.js';
import { HostScheduler } from '../../frontier/scheduler.js';
import type { FrontierRow, UrlState } from '../../store/ports/index.js';
import { SOFT_SKIPS } from '../../store/ports/index.js';
import { originOf } from '../../url/canonical.js';
import type { PriorityFn } from '../../frontier/priority.js';
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

/** The in-memory side of one run: host queues, the scheduler and what the run has seen. */
export class CrawlState {
  readonly hosts = new Map<string, HostQueue>();
  readonly known = new KnownUrls();
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
    row.host = q.host; // one string a host, not one a queued row
    q.push(row);
    this.scheduler.schedule(q);
  }

  /** Hosts with URLs queued that are not being fetched right now (waiting out their delay or back-off). */
  waitingHosts(active: number): number {
    let n = 0;
    for (const q of this.hosts.values()) if (!q.parked && q.size > 0) n++;
    return Math.max(0, n - active);
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
    const input = { url: row.url, depth: row.depth, inlinks: row.inlinks, fresh: row.fresh, ...c.link };
    const scored = priorityOf(input);
    const gain = scored - priorityOf({ ...input, inlinks: row.inlinks - 1 });
    const priority = Math.round(Math.max(scored, row.priority + gain) * 10_000) / 10_000;
    q.reprioritize(id, priority);
    return { urlId: id, priority, inlinks: row.inlinks };
  }
}
