// Progress (run state machine): is the frontier drained, the budget spent or the deadline passed?
// Where search is deployed, also: has the full-text log grown past its bound (the loop then rebuilds
// the generation, so each query's delta stays short)?
import { lambdaEnvironment } from '../../shared/config/lambda-environment.js';
import { progressStage, type ProgressState, type RunState } from '../../shared/pipeline/cloud/run-control.js';
import { DynamoEnrichStore } from '../../shared/store/aws/dynamo-enrich.js';
import type { S3Objects } from '../../shared/store/aws/s3-store.js';
import { S3TextIndex } from '../../shared/store/aws/s3-text-index.js';
import { instrumented, MetricUnit, runtime } from '../runtime.js';

export async function handler(event: RunState): Promise<ProgressState> {
  const rt = runtime('run-progress');
  return instrumented(rt, async () => {
    const progress = await progressStage(rt, event);
    rt.metrics.addMetric('FrontierPending', MetricUnit.Count, Math.max(0, progress.enqueued - progress.settled));
    const env = lambdaEnvironment();
    const bound = env.textRebuildLogEntries;
    if (bound === undefined || progress.done) return { ...progress, rebuildText: false };
    const enrich = new DynamoEnrichStore(rt.clients.doc, env.table, rt.blobs, new S3TextIndex(rt.objects as S3Objects));
    const backlog = await enrich.textLogBacklog(bound);
    rt.metrics.addMetric('TextLogBacklog', MetricUnit.Count, backlog);
    return { ...progress, rebuildText: backlog >= bound };
  });
}
