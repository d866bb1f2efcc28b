// Fetch worker: the dispatch queue's consumer. A batch holds turns at different hosts (one message
// of a host is in flight at a time), so Powertools' batch processor takes them in parallel and
// reports partial failures; what happens to each turn is settleFrontierMessage's, and this handler
// logs, counts and answers SQS. A turn that fails is handed back with a short back-off first, so a
// poisoned message reaches the dead-letter queue in minutes. The batch's turns write one WARC file
// a run, uploaded once they are done; then the pages they fetched start their workflows.
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { errorMessage, MessageHandedBackError } from '../../shared/errors.js';
import { failureBackoffMs, settleFrontierMessage, takeBatch, waitPolicyFor, type PageTask } from '../../shared/pipeline/cloud/fetch-worker.js';
import { instrumented, MetricUnit, runtime, type Runtime } from '../runtime.js';

async function handleRecord(rt: Runtime, record: SQSRecord, fetched: PageTask[], context?: Pick<Context, 'getRemainingTimeInMillis'>): Promise<void> {
  const receives = Number(record.attributes.ApproximateReceiveCount ?? 1);
  const message = { body: record.body, receipt: record.receiptHandle, id: record.messageId, group: record.attributes.MessageGroupId, receives };
  let settled;
  try {
    settled = await settleFrontierMessage(rt, message, waitPolicyFor(context?.getRemainingTimeInMillis()));
  } catch (err) {
    const delayMs = failureBackoffMs(receives);
    rt.logger.error('frontier message failed; handed back to be tried again', { messageId: record.messageId, receives, delayMs, error: errorMessage(err) });
    rt.metrics.addMetric('MessagesFailed', MetricUnit.Count, 1);
    await rt.frontier.handBack(record.receiptHandle, delayMs).catch(() => undefined);
    throw err;
  }
  if ('pages' in settled && settled.pages) fetched.push(...settled.pages);
  switch (settled.action) {
    case 'dead-lettered':
      rt.logger.error('frontier message dead-lettered', { messageId: record.messageId, reason: settled.reason });
      rt.metrics.addMetric('MessagesMalformed', MetricUnit.Count, 1);
      return;
    case 'url-failed':
      rt.logger.warn(settled.reason, { runId: settled.turn.runId, host: settled.turn.host });
      return;
    default:
      rt.logger.debug('turn taken', { host: settled.turn.host, action: settled.action, outcome: settled.outcome });
      // A fixed set of metric names (outcomes like http-404 stay in the logs, not in metric names).
      rt.metrics.addMetric(settled.action === 'later' ? 'MessagesHandedBack' : 'MessagesSettled', MetricUnit.Count, 1);
      if (settled.pages?.length) rt.metrics.addMetric('PagesFetched', MetricUnit.Count, settled.pages.length);
      // Handed back with its visibility set: failing the item keeps SQS from deleting it.
      if (settled.action === 'later') throw new MessageHandedBackError(settled.delayMs, settled.outcome);
  }
}

export async function handler(event: SQSEvent, context?: Pick<Context, 'getRemainingTimeInMillis'>): Promise<SQSBatchResponse> {
  const rt = runtime('fetch-worker');
  // A processor per invocation: it keeps the batch's failures, and two invocations in one process
  // (the emulated event source runs several) must not report each other's.
  const processor = new BatchProcessor(EventType.SQS);
  return instrumented(rt, async () => {
    const { result, refused } = await takeBatch(rt, (deps, fetched) =>
      processPartialResponse(event, (record: SQSRecord) => handleRecord(deps, record, fetched, context), processor, {
        context: context as Context,
        throwOnFullBatchFailure: false,
      }),
    );
    if (refused) rt.metrics.addMetric('PageStartsFailed', MetricUnit.Count, refused);
    return result;
  });
}
