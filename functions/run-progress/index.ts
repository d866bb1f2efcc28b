// Progress (run state machine): is the frontier drained, the budget spent or the deadline passed?
// Where search is deployed, also: has the full-text log grown past its bound (the loop then rebuilds
// the generation, so each query's delta stays short)?
import { lambdaEnvironment } from '../../shared/config/lambda-environment.js';
import { textRebuildDue } from '../../shared/pipeline/cloud/enrich-workflow.js';
import { progressStage, type ProgressState, type RunState } from '../../shared/pipeline/cloud/run-control.js';
import { enrichStore } from '../enrich-store.js';
import { instrumented, MetricUnit, runtime } from '../runtime.js';

export async function handler(event: RunState): Promise<ProgressState> {
  const rt = runtime('run-progress');
  return instrumented(rt, async () => {
    const progress = await progressStage(rt, event);
    rt.metrics.addMetric('FrontierPending', MetricUnit.Count, Math.max(0, progress.enqueued - progress.settled));
    const bound = lambdaEnvironment().textRebuildLogEntries;
    if (bound === undefined || progress.done) return { ...progress, rebuildText: false };
    const { due, backlog } = await textRebuildDue(enrichStore(rt), bound);
    rt.metrics.addMetric('TextLogBacklog', MetricUnit.Count, backlog);
    return { ...progress, rebuildText: due };
  });
}
