// Extract (page workflow, Express): content, metadata, links, SimHash, chunks; new URLs to the frontier.
// Also ExtractRendered: the same step on the DOM the Render step produced.
import { withRun } from '../../shared/pipeline/cloud/cloud-context.js';
import { extractStage, type ExtractResult, type PageWorkflowInput } from '../../shared/pipeline/cloud/page-workflow.js';
import { instrumented, MetricUnit, runtime } from '../runtime.js';

export async function handler(event: PageWorkflowInput): Promise<ExtractResult> {
  const rt = runtime('extract-page');
  return instrumented(rt, async () => {
    const result = await withRun(rt, event.runId, (ctx) => extractStage(ctx, event));
    if (result.render) rt.metrics.addMetric('RendersWanted', MetricUnit.Count, 1);
    else rt.metrics.addMetric('PagesExtracted', MetricUnit.Count, 1);
    rt.metrics.addMetric('LinksFound', MetricUnit.Count, result.links);
    return result;
  });
}
