// RunEnded (EventBridge rule on the run state machine's executions): a run whose execution
// FAILED, TIMED_OUT or was ABORTED is marked failed.
import type { EventBridgeEvent } from 'aws-lambda';
import { runExecutionEnded, type ExecutionStatusChange } from '../../shared/pipeline/cloud/run-ended.js';
import { instrumented, MetricUnit, runtime } from '../runtime.js';

export async function handler(
  event: EventBridgeEvent<'Step Functions Execution Status Change', ExecutionStatusChange>,
): Promise<{ outcome: string; runId?: number }> {
  const rt = runtime('run-ended');
  return instrumented(rt, async () => {
    const result = await runExecutionEnded(rt, event.detail);
    if (result.runId !== undefined) rt.metrics.addMetric('RunsLost', MetricUnit.Count, 1);
    return result;
  });
}
