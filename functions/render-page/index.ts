// Render (page workflow, Express; x86_64: Chromium ships for x64 only): the page in headless
// Chromium under the host's claim, the DOM and screenshot to S3 and the archive.
import { withRun } from '../../shared/pipeline/cloud/cloud-context.js';
import type { PageWorkflowInput } from '../../shared/pipeline/cloud/page-workflow.js';
import type { RenderCapture } from '../../shared/pipeline/stages/render-stage.js';
import { renderWorker } from '../../shared/pipeline/cloud/render-worker.js';
import { RENDER_HOST_WAIT_MS } from '../../shared/pipeline/cloud/render-wait.js';
import { containerRenderer, instrumented, MetricUnit, runtime } from '../runtime.js';

export async function handler(event: PageWorkflowInput): Promise<RenderCapture> {
  const rt = runtime('render-page');
  const wanted = event.results?.Extract?.render;
  if (!wanted) throw new Error('the Render step runs only after Extract asked for a render ($.results.Extract.render)');
  return instrumented(rt, async () => {
    // The browser lives as long as the container: one launch serves many invocations.
    const capture = await withRun({ ...rt, rendering: 'local', renderer: containerRenderer }, event.runId, (ctx) =>
      renderWorker(ctx, event, wanted, { maxWaitMs: RENDER_HOST_WAIT_MS }),
    );
    rt.metrics.addMetric(capture.ok ? 'PagesRendered' : 'RenderFailures', MetricUnit.Count, 1);
    rt.metrics.addMetric('RenderMs', MetricUnit.Milliseconds, capture.durationMs);
    return capture;
  });
}
