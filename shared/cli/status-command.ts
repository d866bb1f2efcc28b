import { openForReading } from './data-commands.js';
import type { RunSummary } from '../store/ports.js';
import { jsonLine, summaryText } from './render.js';

/** `trawl status`: summarises the latest run of a data directory. */
export async function statusCommand(dataDir: string, json: boolean, out: (line: string) => void): Promise<RunSummary | undefined> {
  const store = openForReading(dataDir);
  try {
    const latest = await store.latestRun();
    if (!latest) {
      out(json ? jsonLine({ type: 'status', runs: 0 }) : `${dataDir}: no crawl has run yet`);
      return undefined;
    }
    const summary = await store.summary(latest.id);
    out(json ? jsonLine({ type: 'status', ...summary }) : summaryText(summary, dataDir));
    return summary;
  } finally {
    await store.close();
  }
}
