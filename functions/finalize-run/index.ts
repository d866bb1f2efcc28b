// FinalizeRun (run state machine): ranks, the report in S3, the run's final status.
import { finalizeRun, type ProgressState } from '../../shared/pipeline/run-control.js';
import { instrumented, MetricUnit, runtime } from '../runtime.js';

export async function handler(event: ProgressState): Promise<{ runId: number; status: string; report: string; pagesStored: number; requests: number }> {
  const rt = runtime('finalize-run');
  return instrumented(rt, async () => {
    const { runId, status, report, summary } = await finalizeRun(rt, event);
    rt.metrics.addMetric('RunPagesStored', MetricUnit.Count, summary.pagesStored);
    rt.logger.info('run finished', { runId, status, reason: event.reason, pages: summary.pagesStored, requests: summary.requests });
    return { runId, status, report, pagesStored: summary.pagesStored, requests: summary.requests };
  });
}
