import { historyOf, type HistoryEntry } from '../archive/replay.js';
import type { CrawlStore } from '../ports/index.js';
import { targetId } from './route.js';

/** The history of a target (a URL, a search query, a social account) over time, marking where its content changed between fetches. */
export async function targetHistory(store: CrawlStore, target: string): Promise<HistoryEntry[]> {
  return historyOf(await store.fetchHistory(targetId(target)));
}
