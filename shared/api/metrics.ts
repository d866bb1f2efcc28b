import { FETCH_LATENCY_BOUNDS_MS, type CrawlStore, type EnrichStore } from '../ports/index.js';
import { ENRICH_LATENCY_BOUNDS_MS } from '../ports/search-index.js';

/** Upper bounds (seconds) of the search latency histogram. */
const SEARCH_BOUNDS_S = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5] as const;

/** A Prometheus histogram: per-bucket counts (not cumulative), the last one above every bound. */
interface Histogram {
  bounds: readonly number[];
  counts: number[];
  sum: number;
}

const label = (v: string) => v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');

function histogramLines(name: string, h: Histogram, labels = ''): string[] {
  const lines: string[] = [];
  let cumulative = 0;
  h.bounds.forEach((bound, i) => {
    cumulative += h.counts[i] ?? 0;
    lines.push(`${name}_bucket{${labels}le="${bound}"} ${cumulative}`);
  });
  cumulative += h.counts[h.bounds.length] ?? 0;
  lines.push(`${name}_bucket{${labels}le="+Inf"} ${cumulative}`, `${name}_sum${labels ? `{${labels.slice(0, -1)}}` : ''} ${h.sum}`);
  lines.push(`${name}_count${labels ? `{${labels.slice(0, -1)}}` : ''} ${cumulative}`);
  return lines;
}

/**
 * The `/metrics` page in the Prometheus text format (0.0.4). What the API serves itself (requests,
 * search latency) is counted in process; what the crawl did (fetches by status and latency, queue
 * depth, enrichment latency and failures) is read from the store at scrape time, so the figures are
 * the same whichever process or Lambda instance answers. Written by hand: prom-client observes
 * samples one by one and cannot expose a histogram the store has already bucketed.
 */
export class ApiMetrics {
  private readonly requests = new Map<string, number>();
  private readonly search: Histogram = { bounds: SEARCH_BOUNDS_S, counts: new Array<number>(SEARCH_BOUNDS_S.length + 1).fill(0), sum: 0 };

  countRequest(route: string, status: number): void {
    const key = `route="${label(route)}",status="${status}"`;
    this.requests.set(key, (this.requests.get(key) ?? 0) + 1);
  }

  observeSearch(seconds: number): void {
    const i = SEARCH_BOUNDS_S.findIndex((b) => seconds <= b);
    this.search.counts[i < 0 ? SEARCH_BOUNDS_S.length : i]! += 1;
    this.search.sum += seconds;
  }

  async render(store: CrawlStore, enrich: EnrichStore): Promise<string> {
    const out: string[] = [];
    out.push('# HELP trawl_api_requests_total Requests this API process answered, by route and status.', '# TYPE trawl_api_requests_total counter');
    for (const [key, n] of [...this.requests.entries()].sort()) out.push(`trawl_api_requests_total{${key}} ${n}`);
    out.push('# HELP trawl_search_duration_seconds Time to answer a search in this API process.', '# TYPE trawl_search_duration_seconds histogram');
    out.push(...histogramLines('trawl_search_duration_seconds', this.search));

    const run = await store.latestRun();
    if (run) {
      const [summary, activity] = await Promise.all([store.summary(run.id), store.activity(run.id)]);
      const runLabel = `run="${run.id}"`;
      out.push(
        '# HELP trawl_run_info The latest crawl run and its status.',
        '# TYPE trawl_run_info gauge',
        `trawl_run_info{${runLabel},status="${label(summary.status)}"} 1`,
      );
      out.push('# HELP trawl_fetches_total Requests of the latest run by HTTP status (error: no response).', '# TYPE trawl_fetches_total counter');
      for (const [status, n] of Object.entries(summary.fetchesByStatus).sort()) out.push(`trawl_fetches_total{${runLabel},status="${label(status)}"} ${n}`);
      out.push('# HELP trawl_fetch_duration_seconds Fetch latency of the latest run.', '# TYPE trawl_fetch_duration_seconds histogram');
      out.push(
        ...histogramLines(
          'trawl_fetch_duration_seconds',
          { bounds: FETCH_LATENCY_BOUNDS_MS.map((ms) => ms / 1000), counts: activity.latency.counts, sum: activity.latency.sumMs / 1000 },
          `${runLabel},`,
        ),
      );
      out.push('# HELP trawl_queue_depth URLs of the latest run by frontier state.', '# TYPE trawl_queue_depth gauge');
      for (const state of ['queued', 'in-flight', 'deferred']) out.push(`trawl_queue_depth{${runLabel},state="${state}"} ${summary.urlsByState[state] ?? 0}`);
      out.push(
        '# HELP trawl_pages_stored_total Pages the latest run stored.',
        '# TYPE trawl_pages_stored_total counter',
        `trawl_pages_stored_total{${runLabel}} ${summary.pagesStored}`,
      );
    }
    const [failures, latency] = await Promise.all([enrich.enrichFailures(), enrich.enrichLatency()]);
    out.push(
      '# HELP trawl_enrich_duration_seconds Time the summary, tag and embedding passes of an enrichment took.',
      '# TYPE trawl_enrich_duration_seconds histogram',
    );
    out.push(
      ...histogramLines('trawl_enrich_duration_seconds', {
        bounds: ENRICH_LATENCY_BOUNDS_MS.map((ms) => ms / 1000),
        counts: latency.counts,
        sum: latency.sumMs / 1000,
      }),
    );
    out.push('# HELP trawl_enrich_failures Pages on the enrichment dead-letter list, by the stage that failed.', '# TYPE trawl_enrich_failures gauge');
    const byStage = new Map<string, number>([
      ['summary', 0],
      ['tags', 0],
      ['embedding', 0],
      ['index', 0],
    ]);
    for (const f of failures) byStage.set(f.stage, (byStage.get(f.stage) ?? 0) + 1);
    for (const [stage, n] of byStage) out.push(`trawl_enrich_failures{stage="${label(stage)}"} ${n}`);
    return `${out.join('\n')}\n`;
  }
}
