// Progress (run state machine): is the frontier drained, the budget spent or the deadline passed?
import { progressStage, type ProgressState, type RunState } from '../../shared/pipeline/cloud/run-control.js';
import { instrumented, MetricUnit, runtime } from '../runtime.js';

export async function handler(event: RunState): Promise<ProgressState> {
  const rt = runtime('run-progress');
  return instrumented(rt, async () => {
    const progress = await progressStage(rt, event);
    rt.metrics.addMetric('FrontierPending', MetricUnit.Count, Math.max(0, progress.enqueued - progress.settled));
    return progress;
  });
}
