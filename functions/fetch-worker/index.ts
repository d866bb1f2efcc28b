// Fetch worker: the SQS FIFO frontier's consumer. Powertools' FIFO batch processor reports partial
// failures; what happens to each message (dead-lettering a malformed one, waiting for its host,
// handing it back) is settleFrontierMessage's, and this handler logs, counts and answers SQS.
import { processPartialResponse, SqsFifoPartialProcessorAsync } from '@aws-lambda-powertools/batch';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { errorMessage, MessageHandedBackError } from '../../shared/errors.js';
import { settleFrontierMessage, waitPolicyFor } from '../../shared/pipeline/cloud/fetch-worker.js';
import { instrumented, MetricUnit, runtime, type Runtime } from '../runtime.js';

const processor = new SqsFifoPartialProcessorAsync();

async function handleRecord(rt: Runtime, record: SQSRecord, context?: Pick<Context, 'getRemainingTimeInMillis'>): Promise<void> {
  const message = { body: record.body, receipt: record.receiptHandle, id: record.messageId, group: record.attributes.MessageGroupId };
  let settled;
  try {
    settled = await settleFrontierMessage(rt, message, waitPolicyFor(context?.getRemainingTimeInMillis()));
  } catch (err) {
    rt.logger.error('frontier message failed; SQS will redeliver it', { messageId: record.messageId, error: errorMessage(err) });
    throw err;
  }
  switch (settled.action) {
    case 'dead-lettered':
      rt.logger.error('frontier message dead-lettered', { messageId: record.messageId, reason: settled.reason });
      rt.metrics.addMetric('MessagesMalformed', MetricUnit.Count, 1);
      return;
    case 'url-failed':
      rt.logger.warn(settled.reason, { runId: settled.row.runId, url: settled.row.url });
      return;
    default:
      rt.logger.debug('frontier message handled', { url: settled.row.url, action: settled.action, outcome: settled.outcome });
      // A fixed set of metric names (outcomes like http-404 stay in the logs, not in metric names).
      rt.metrics.addMetric(settled.action === 'later' ? 'MessagesHandedBack' : settled.page ? 'PagesFetched' : 'MessagesSettled', MetricUnit.Count, 1);
      // Handed back with its visibility set: failing the item keeps SQS from deleting it.
      if (settled.action === 'later') throw new MessageHandedBackError(settled.delayMs, settled.outcome);
  }
}

export async function handler(event: SQSEvent, context?: Pick<Context, 'getRemainingTimeInMillis'>): Promise<SQSBatchResponse> {
  const rt = runtime('fetch-worker');
  return instrumented(rt, () =>
    processPartialResponse(event, (record: SQSRecord) => handleRecord(rt, record, context), processor, {
      context: context as Context,
      skipGroupOnError: true,
      throwOnFullBatchFailure: false,
    }),
  );
}
