// Fetch worker: the SQS FIFO frontier's consumer (batch size 1, partial batch failures).
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { errorMessage } from '../../shared/errors.js';
import { RunNotFoundError } from '../../shared/pipeline/cloud-context.js';
import { handleFrontierMessage } from '../../shared/pipeline/fetch-worker.js';
import type { FrontierRow } from '../../shared/store/ports.js';
import { instrumented, MetricUnit, runtime } from '../runtime.js';

export async function handler(event: SQSEvent, context?: Pick<Context, 'getRemainingTimeInMillis'>): Promise<SQSBatchResponse> {
  const rt = runtime('fetch-worker');
  return instrumented(rt, async () => {
    const failures: SQSBatchResponse['batchItemFailures'] = [];
    // Batch size 1 in the stack; should a batch hold more, one host's messages are still handled in order.
    for (const record of event.Records) {
      let row: FrontierRow;
      try {
        row = JSON.parse(record.body) as FrontierRow;
      } catch {
        rt.logger.error('frontier message is not JSON; dropped', { messageId: record.messageId });
        continue;
      }
      try {
        // Waiting for a host in the handler stops a minute short of the function's timeout.
        const maxTotalWaitMs = Math.max(0, (context?.getRemainingTimeInMillis() ?? 120_000) - 60_000);
        const verdict = await handleFrontierMessage(rt, row, record.receiptHandle, { maxInlineWaitMs: 5_000, maxTotalWaitMs });
        rt.logger.debug('frontier message handled', { url: row.url, action: verdict.action, outcome: verdict.outcome, delayMs: verdict.action === 'later' ? verdict.delayMs : undefined });
        // A fixed set of metric names (outcomes like http-404 stay in the logs, not in metric names).
        rt.metrics.addMetric(verdict.action === 'later' ? 'MessagesHandedBack' : verdict.page ? 'PagesFetched' : 'MessagesSettled', MetricUnit.Count, 1);
        if (verdict.action === 'later') failures.push({ itemIdentifier: record.messageId });
      } catch (err) {
        if (err instanceof RunNotFoundError) {
          rt.logger.warn(err.message, { runId: row.runId });
          continue;
        }
        rt.logger.error('frontier message failed; SQS will redeliver it', { url: row.url, error: errorMessage(err) });
        failures.push({ itemIdentifier: record.messageId });
      }
    }
    return { batchItemFailures: failures };
  });
}
