import { openStore } from '../library/store.js';
import type { RunSummary } from '../ports/index.js';
import { jsonLine, summaryText } from './render.js';
import { liveLockHolder } from '../store/local/data-lock.js';

/** `trawl status`: summarises the latest run of a data directory. */
export async function statusCommand(dataDir: string, json: boolean, out: (line: string) => void): Promise<RunSummary | undefined> {
  const store = openStore(dataDir);
  try {
    const summary = await store.summary();
    if (!summary) {
      out(json ? jsonLine({ type: 'status', runs: 0 }) : `${dataDir}: no crawl has run yet`);
      return undefined;
    }
    // A run marked running with no process holding the directory was interrupted (killed, its machine restarted).
    const shown = summary.status === 'running' && !liveLockHolder(dataDir) ? { ...summary, status: 'interrupted' as const } : summary;
    out(json ? jsonLine({ type: 'status', ...shown }) : summaryText(shown, dataDir));
    return shown;
  } finally {
    await store.close();
  }
}
