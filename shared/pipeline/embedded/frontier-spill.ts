// The queued URLs a run holds in the store only (past the frontier's memory bound): read back
// into their host's queue when it runs low, and settled with the host when it is parked or left.
import type { HostQueue } from '../../frontier/host-queue.js';
import type { CrawlStore, FrontierRow } from '../../ports/index.js';
import type { CrawlState } from './crawl-state.js';

/** URLs read from the store in one go, besides those the host holds (which the read also returns). */
const READ_BATCH = 512;
/** Room for URLs in flight whose new state the store does not have yet (the read returns them too). */
const IN_FLIGHT_ROOM = 256;

type SpillStore = Pick<CrawlStore, 'queuedUrlsOfHost'>;

/** Reads the host's best URLs back from the store (call when `q.wantsRefill`). */
export async function refillHost(store: SpillStore, state: CrawlState, runId: number, q: HostQueue): Promise<void> {
  if (!store.queuedUrlsOfHost) return;
  const stored = await store.queuedUrlsOfHost(runId, q.host, q.size + READ_BATCH + IN_FLIGHT_ROOM);
  state.refill(q, stored);
}

/**
 * Takes the host's URLs out of the store's queue, a batch at a time, for the caller to settle
 * (each batch must be settled in the store before the next is read); marks them settled in the
 * run's known URLs. Nothing when the host has none there.
 */
export async function* spilledRows(store: SpillStore, state: CrawlState, runId: number, q: HostQueue): AsyncGenerator<FrontierRow[]> {
  while (q.spilled > 0 && store.queuedUrlsOfHost) {
    const rows = (await store.queuedUrlsOfHost(runId, q.host, READ_BATCH + IN_FLIGHT_ROOM)).filter((r) => state.known.get(r.urlId) === 'spilled');
    if (rows.length === 0) {
      q.spilled = 0;
      return;
    }
    for (const r of rows) state.known.set(r.urlId, 'final');
    q.spilled = Math.max(0, q.spilled - rows.length);
    yield rows;
  }
}
