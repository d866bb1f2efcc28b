// Summarize (page workflow, Express): the summary and tag passes of a page Extract stored, with
// the deployment's provider (local by default, or Bedrock). Its concurrency is capped by the
// construct so the model's rate limits hold; a throttled model is retried by Step Functions.
import { summarizeStep, type EnrichStepEvent, type SummarizeResult } from '../../shared/pipeline/cloud/enrich-workflow.js';
import { enrichRuntime } from '../enrich-runtime.js';
import { instrumented, MetricUnit, runtime } from '../runtime.js';

export async function handler(event: EnrichStepEvent): Promise<SummarizeResult> {
  const rt = runtime('summarize-page');
  return instrumented(rt, async () => {
    const started = Date.now();
    const deps = enrichRuntime(rt);
    const result = await summarizeStep(deps, event, deps.runSpecs);
    rt.metrics.addMetric(
      result.status === 'summarized' ? 'PagesSummarized' : result.status === 'failed' ? 'EnrichFailures' : 'SummariesSkipped',
      MetricUnit.Count,
      1,
    );
    if (result.status === 'summarized') rt.metrics.addMetric('SummarizeMs', MetricUnit.Milliseconds, Date.now() - started);
    return result;
  });
}
