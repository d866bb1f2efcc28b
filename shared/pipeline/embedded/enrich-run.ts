import type { EnrichCandidate } from '../../ports/index.js';
import { enrichPage, enrichWork, isStale, type EnrichDeps, type EnrichMode, type EnrichRunResult, type EnrichWork } from '../stages/enrich-stage.js';

/** Candidates read from the store at a time. */
const PAGE = 200;

export interface EnrichProgress {
  done: number;
  total: number;
  failed: number;
  /** Pages per second so far. */
  rate: number;
  /** Seconds left at that rate. */
  etaSeconds: number | undefined;
}

export type { EnrichRunResult } from '../stages/enrich-stage.js';

export interface EnrichRunOptions {
  mode: EnrichMode;
  concurrency: number;
  onProgress?: (p: EnrichProgress) => void;
  /** Checked between pages: a stopped pass leaves the rest for the next one. */
  stopped?: () => boolean;
}

async function* candidates(deps: EnrichDeps): AsyncGenerator<EnrichCandidate> {
  let after = '';
  while (true) {
    const page = await deps.enrich.enrichCandidates(after, PAGE);
    yield* page;
    if (page.length < PAGE) return;
    after = page[page.length - 1]!.urlId;
  }
}

/** Takes pages that are no longer searchable out of the store's index and the vector sink. */
async function retire(deps: EnrichDeps, searchable: Set<string>): Promise<number> {
  const gone: string[] = [];
  let after = '';
  while (true) {
    const page = await deps.enrich.enrichments(after, PAGE);
    for (const e of page) if (!searchable.has(e.urlId)) gone.push(e.urlId);
    if (page.length < PAGE) break;
    after = page[page.length - 1]!.urlId;
  }
  for (const id of gone) await deps.enrich.deleteEnrichment(id);
  if (gone.length) await deps.vectors.delete(gone);
  return gone.length;
}

/**
 * One Summarize + Index pass over a finished crawl: counts the work first (so progress has a total
 * and an ETA), then enriches the pages that need it, `concurrency` at a time. Failed pages are in
 * the dead-letter list and the result; the pass never stops for one.
 */
export async function enrichAll(deps: EnrichDeps, options: EnrichRunOptions): Promise<EnrichRunResult> {
  const started = deps.clock();
  const todo = new Map<string, EnrichWork>();
  const searchable = new Set<string>();
  let count = 0;
  let stale = 0;
  for await (const c of candidates(deps)) {
    count++;
    searchable.add(c.urlId);
    const work = enrichWork(c, deps.providers, options.mode);
    if (work) todo.set(c.urlId, work);
    else if (c.enrichment && c.enrichment.textHash === c.textHash && isStale(c.enrichment, deps.providers)) stale++;
  }
  const retired = await retire(deps, searchable);
  const result: EnrichRunResult = {
    mode: options.mode,
    candidates: count,
    enriched: 0,
    unchanged: count - todo.size - stale,
    failed: 0,
    stale,
    retired,
    failures: [],
    seconds: 0,
  };
  const report = () => {
    const done = result.enriched + result.failed;
    const seconds = Math.max(1e-3, (deps.clock() - started) / 1000);
    const rate = done / seconds;
    options.onProgress?.({ done, total: todo.size, failed: result.failed, rate, etaSeconds: rate > 0 ? (todo.size - done) / rate : undefined });
  };
  report();
  const running = new Set<Promise<void>>();
  for await (const c of candidates(deps)) {
    const work = todo.get(c.urlId);
    if (!work) continue;
    if (options.stopped?.()) break;
    const job = enrichPage(deps, c, work).then((outcome) => {
      if (outcome.status === 'enriched') {
        result.enriched++;
        const x = work.structured ? outcome.record.extracted : undefined;
        if (x) {
          result.tokens ??= { input: 0, output: 0 };
          result.tokens.input += x.inputTokens;
          result.tokens.output += x.outputTokens;
        }
      } else {
        result.failed++;
        result.failures.push(outcome.failure);
      }
      report();
    });
    const tracked = job.finally(() => running.delete(tracked));
    running.add(tracked);
    if (running.size >= options.concurrency) await Promise.race(running);
  }
  await Promise.all(running);
  result.seconds = (deps.clock() - started) / 1000;
  return result;
}
