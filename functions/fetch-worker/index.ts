// Fetch worker: the SQS FIFO frontier's consumer (batch size 1, partial batch failures).
import { SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { errorMessage } from '../../shared/errors.js';
import { RunNotFoundError } from '../../shared/pipeline/cloud-context.js';
import { frontierMessageStage, type PageTask } from '../../shared/pipeline/fetch-worker.js';
import type { FrontierRow } from '../../shared/store/ports.js';
import { instrumented, MetricUnit, runtime } from '../runtime.js';

let sfn: SFNClient | undefined;

async function startPageWorkflow(task: PageTask): Promise<void> {
  sfn ??= new SFNClient({ endpoint: process.env.AWS_ENDPOINT_URL_SFN });
  const name = `r${task.runId}-${task.row.urlId}-${task.row.attempts}-${Date.now().toString(36)}`.slice(0, 80);
  await sfn.send(new StartExecutionCommand({ stateMachineArn: process.env.PAGE_WORKFLOW_ARN, name, input: JSON.stringify(task) }));
}

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
        const budget = Math.max(0, (context?.getRemainingTimeInMillis() ?? 120_000) - 60_000);
        const verdict = await frontierMessageStage(rt, row, { maxInlineWaitMs: 5_000, maxTotalWaitMs: budget });
        rt.logger.debug('frontier message handled', { url: row.url, action: verdict.action, outcome: verdict.outcome, delayMs: verdict.action === 'later' ? verdict.delayMs : undefined });
        // A fixed set of metric names (outcomes like http-404 stay in the logs, not in metric names).
        rt.metrics.addMetric(verdict.action === 'later' ? 'MessagesHandedBack' : verdict.page ? 'PagesFetched' : 'MessagesSettled', MetricUnit.Count, 1);
        if (verdict.action === 'later') {
          await rt.frontier.handBack(record.receiptHandle, verdict.delayMs);
          failures.push({ itemIdentifier: record.messageId });
        } else if (verdict.page) await startPageWorkflow(verdict.page);
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
