// Fetch worker: the SQS FIFO frontier's consumer. Powertools' FIFO batch processor reports partial
// failures; each body is validated first, and a malformed one is dead-lettered with its reason
// (never retried, never holding its host's message group).
import { processPartialResponse, SqsFifoPartialProcessorAsync } from '@aws-lambda-powertools/batch';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { errorMessage, MalformedMessageError, MessageHandedBackError, nextStep } from '../../shared/errors.js';
import { handleFrontierMessage } from '../../shared/pipeline/fetch-worker.js';
import { parseFrontierMessage } from '../../shared/store/frontier-message.js';
import type { FrontierRow } from '../../shared/store/ports/index.js';
import { instrumented, MetricUnit, runtime, type Runtime } from '../runtime.js';

const processor = new SqsFifoPartialProcessorAsync();

async function deadLetter(rt: Runtime, record: SQSRecord, err: MalformedMessageError): Promise<void> {
  rt.logger.error('frontier message dead-lettered', { messageId: record.messageId, reason: err.message });
  await rt.frontier.deadLetter(record.body, err.message, record.attributes.MessageGroupId ?? 'malformed', record.messageId);
  rt.metrics.addMetric('MessagesMalformed', MetricUnit.Count, 1);
}

async function handleRecord(rt: Runtime, record: SQSRecord, context?: Pick<Context, 'getRemainingTimeInMillis'>): Promise<void> {
  let row: FrontierRow;
  try {
    row = parseFrontierMessage(record.body);
  } catch (err) {
    if (err instanceof MalformedMessageError) return deadLetter(rt, record, err);
    throw err;
  }
  try {
    // Waiting for a host in the handler stops a minute short of the function's timeout.
    const maxTotalWaitMs = Math.max(0, (context?.getRemainingTimeInMillis() ?? 120_000) - 60_000);
    const verdict = await handleFrontierMessage(rt, row, record.receiptHandle, { maxInlineWaitMs: 5_000, maxTotalWaitMs });
    rt.logger.debug('frontier message handled', { url: row.url, action: verdict.action, outcome: verdict.outcome });
    // A fixed set of metric names (outcomes like http-404 stay in the logs, not in metric names).
    rt.metrics.addMetric(verdict.action === 'later' ? 'MessagesHandedBack' : verdict.page ? 'PagesFetched' : 'MessagesSettled', MetricUnit.Count, 1);
    // Handed back with its visibility set: failing the item keeps SQS from deleting it.
    if (verdict.action === 'later') throw new MessageHandedBackError(verdict.delayMs, verdict.outcome);
  } catch (err) {
    if (err instanceof MessageHandedBackError) throw err;
    if (nextStep(err) === 'fail-url') {
      rt.logger.warn(errorMessage(err), { runId: row.runId, url: row.url });
      return;
    }
    rt.logger.error('frontier message failed; SQS will redeliver it', { url: row.url, error: errorMessage(err) });
    throw err;
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
