// RecordFailure (page workflow's Catch): the fetch stays in the archive with the error; the URL fails.
import { withRun } from '../../shared/pipeline/cloud/cloud-context.js';
import type { PageTask } from '../../shared/pipeline/cloud/fetch-worker.js';
import { recordFailureStage, type ExtractResult } from '../../shared/pipeline/cloud/page-workflow.js';
import { instrumented, MetricUnit, runtime } from '../runtime.js';

export async function handler(event: {
  task: PageTask & { results?: { Extract?: ExtractResult } };
  error: { Error?: string; Cause?: string };
}): Promise<ExtractResult> {
  const rt = runtime('record-failure');
  return instrumented(rt, async () => {
    const result = await withRun(rt, event.task.runId, (ctx) => recordFailureStage(ctx, event.task, event.error));
    rt.metrics.addMetric(result.state === 'failed' ? 'PagesFailed' : 'PageStepsFailed', MetricUnit.Count, 1);
    return result;
  });
}
