// Index (page workflow, Express): the page's embedding, its record and terms in DynamoDB (the
// truth, searchable by its words at once), then its vector in S3 Vectors.
import { indexStep, type EnrichStepEvent, type IndexResult } from '../../shared/pipeline/cloud/enrich-workflow.js';
import { enrichRuntime } from '../enrich-runtime.js';
import { instrumented, MetricUnit, runtime } from '../runtime.js';

export async function handler(event: EnrichStepEvent): Promise<IndexResult> {
  const rt = runtime('index-page');
  return instrumented(rt, async () => {
    const started = Date.now();
    const result = await indexStep(enrichRuntime(rt), event);
    rt.metrics.addMetric(result.status === 'indexed' ? 'PagesIndexed' : result.status === 'failed' ? 'EnrichFailures' : 'IndexSkipped', MetricUnit.Count, 1);
    if (result.status === 'indexed') rt.metrics.addMetric('IndexMs', MetricUnit.Milliseconds, Date.now() - started);
    return result;
  });
}
