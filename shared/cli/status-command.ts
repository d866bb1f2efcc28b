import { openStore } from '../library/store.js';
import type { RunSummary } from '../store/ports/index.js';
import { jsonLine, summaryText } from './render.js';

/** `trawl status`: summarises the latest run of a data directory. */
export async function statusCommand(dataDir: string, json: boolean, out: (line: string) => void): Promise<RunSummary | undefined> {
  const store = openStore(dataDir);
  try {
    const summary = await store.summary();
    if (!summary) {
      out(json ? jsonLine({ type: 'status', runs: 0 }) : `${dataDir}: no crawl has run yet`);
      return undefined;
    }
    out(json ? jsonLine({ type: 'status', ...summary }) : summaryText(summary, dataDir));
    return summary;
  } finally {
    await store.close();
  }
}
