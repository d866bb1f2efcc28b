// Summarize (page workflow, Express): the summary and tag passes of a page Extract stored, with
// the deployment's provider (local by default, or Bedrock). Its concurrency is capped by the
// construct so the model's rate limits hold; a throttled model is retried by Step Functions.
import { summarizeStep, type EnrichStepEvent, type RunSpecs, type SummarizeResult } from '../../shared/pipeline/cloud/enrich-workflow.js';
import { runSpecs } from '../../shared/pipeline/cloud/run-specs.js';
import { enrichRuntime } from '../enrich-runtime.js';
import { instrumented, MetricUnit, runtime } from '../runtime.js';

/** Each run's own extract schema, read once a container (by table: a run id is a table's). */
const specsByTable = new Map<string, RunSpecs>();

export async function handler(event: EnrichStepEvent): Promise<SummarizeResult> {
  const rt = runtime('summarize-page');
  return instrumented(rt, async () => {
    const started = Date.now();
    const deps = enrichRuntime(rt);
    const table = process.env.TABLE_NAME ?? '';
    let specs = specsByTable.get(table);
    if (!specs) specsByTable.set(table, (specs = runSpecs((runId) => rt.store.getRun(runId), deps.providers)));
    const result = await summarizeStep(deps, event, specs);
    rt.metrics.addMetric(
      result.status === 'summarized' ? 'PagesSummarized' : result.status === 'failed' ? 'EnrichFailures' : 'SummariesSkipped',
      MetricUnit.Count,
      1,
    );
    if (result.status === 'summarized') rt.metrics.addMetric('SummarizeMs', MetricUnit.Milliseconds, Date.now() - started);
    return result;
  });
}
