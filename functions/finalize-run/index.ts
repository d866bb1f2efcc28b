// FinalizeRun (run state machine): the run's end. FinalizeStart stops the run; the ranking steps
// (collect, gather, link, degrees, rank rounds and their check, write) run for one shard each in
// the machine's Distributed Maps; FinalizeRun then writes the top pages, the report in S3, the
// WACZ and the run's final status; where Summarize and Index are deployed, the run's last text
// changes folded into the full-text index and the index integrity report.
import { finalizeSearch, INTEGRITY_SLICE, rebuildRunText } from '../../shared/pipeline/cloud/enrich-workflow.js';
import { finalizeRun, markRunFailed, type ProgressState, type RunFailure } from '../../shared/pipeline/cloud/run-control.js';
import { FINALIZE_SPREAD_PAGES, finalizeStart, finalizeStep, type FinalizeEvent, type FinalizePlan } from '../../shared/pipeline/cloud/run-finalize.js';
import { WACZ_PART_FILES } from '../../shared/pipeline/cloud/warc-compaction.js';
import type { TextIndexUpdate } from '../../shared/ports/index.js';
import { enrichRuntime } from '../enrich-runtime.js';
import { instrumented, MetricUnit, runtime } from '../runtime.js';

/** The run loop's request for a new full-text generation while the run goes on (see run-progress). */
export interface RebuildTextEvent {
  action: 'rebuild-text';
  runId: number;
}

/** A whole number from the function's environment, if set. */
function setting(name: string): number | undefined {
  const set = Number(process.env[name]);
  return process.env[name] && Number.isInteger(set) && set >= 0 ? set : undefined;
}

/**
 * Runs of more stored pages than TRAWL_FINALIZE_SPREAD_PAGES (default FINALIZE_SPREAD_PAGES) are
 * ranked shard by shard and packaged in parts of at most TRAWL_WACZ_PART_FILES WARC files
 * (default WACZ_PART_FILES).
 */
function finalizeOptions(): { spreadPages: number; waczPartFiles: number } {
  return { spreadPages: setting('TRAWL_FINALIZE_SPREAD_PAGES') ?? FINALIZE_SPREAD_PAGES, waczPartFiles: setting('TRAWL_WACZ_PART_FILES') || WACZ_PART_FILES };
}

type EndState = ProgressState & { error?: RunFailure; finalize?: FinalizePlan; finalizeError?: RunFailure; failure?: RunFailure; markFailed?: true };

export async function handler(event: EndState | RebuildTextEvent | FinalizeEvent): Promise<
  | unknown
  | { runId: number; textIndex?: TextIndexUpdate }
  | {
      runId: number;
      status: string;
      report: string;
      pagesStored: number;
      requests: number;
      /** The run's archive as a WACZ package in the bucket (absent when it has no WARC file, or it failed: the log says why). */
      wacz?: string;
      /** The run's captures as a Parquet index in the bucket (beside the WACZ). */
      captures?: string;
      /** What changed since the run before, by kind (absent in a table's first run). */
      changes?: Partial<Record<string, number>>;
      search?: { report: string; consistent: boolean; textSegments?: number };
    }
> {
  const rt = runtime('finalize-run');
  return instrumented(rt, async () => {
    // MarkRunFailed: FailRun itself failed; the run is marked failed with what can still be written.
    if ('markFailed' in event && event.markFailed) return markRunFailed(rt, event);
    if ('action' in event && event.action !== 'rebuild-text') {
      const deps = { ...rt, ranks: rt.graph, urls: rt.store };
      if (event.action === 'finalize-start') return finalizeStart(deps, event.state, finalizeOptions());
      return finalizeStep(deps, event);
    }
    if ('action' in event) {
      const textIndex = await rebuildRunText(enrichRuntime(rt).enrich);
      rt.logger.info('full-text changes folded in during the run', { runId: event.runId, ...textIndex });
      return { runId: event.runId, textIndex };
    }
    const { runId, status, report, summary, wacz, captures } = await finalizeRun({ ...rt, ranks: rt.graph, urls: rt.store }, event);
    rt.metrics.addMetric('RunPagesStored', MetricUnit.Count, summary.pagesStored);
    let search: { report: string; consistent: boolean; textSegments?: number } | undefined;
    if (process.env.VECTOR_BUCKET_NAME) {
      // TRAWL_INTEGRITY_SLICE: records and vectors each run's end checks (default INTEGRITY_SLICE).
      const done = await finalizeSearch(enrichRuntime(rt), rt.objects, runId, {
        checkLimit: setting('TRAWL_INTEGRITY_SLICE') || INTEGRITY_SLICE,
        finished: status === 'finished',
      });
      search = { report: done.report, consistent: done.consistent, textSegments: done.textIndex?.segments };
      rt.metrics.addMetric('IndexInconsistent', MetricUnit.Count, done.consistent ? 0 : 1);
    }
    rt.logger.info('run finished', { runId, status, reason: event.reason, pages: summary.pagesStored, requests: summary.requests, search });
    return {
      runId,
      status,
      report,
      ...(wacz ? { wacz } : {}),
      ...(captures ? { captures } : {}),
      pagesStored: summary.pagesStored,
      requests: summary.requests,
      ...(summary.changes ? { changes: summary.changes } : {}),
      search,
    };
  });
}
