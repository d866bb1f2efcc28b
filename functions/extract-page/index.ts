// Extract (page workflow, Express): content, metadata, links, SimHash, chunks; new URLs to the frontier.
import { withRun } from '../../shared/pipeline/cloud-context.js';
import type { PageTask } from '../../shared/pipeline/fetch-worker.js';
import { extractStage, type ExtractResult } from '../../shared/pipeline/page-workflow.js';
import { instrumented, MetricUnit, runtime } from '../runtime.js';

export async function handler(event: PageTask): Promise<ExtractResult> {
  const rt = runtime('extract-page');
  return instrumented(rt, async () => {
    const result = await withRun(rt, event.runId, (ctx) => extractStage(ctx, event));
    rt.metrics.addMetric('PagesExtracted', MetricUnit.Count, 1);
    rt.metrics.addMetric('LinksFound', MetricUnit.Count, result.links);
    return result;
  });
}
