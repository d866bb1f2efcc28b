import { createHash } from 'node:crypto';
import { ChangeMessageVisibilityCommand, SendMessageBatchCommand, SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { FrontierQueue, FrontierRow } from '../ports/index.js';

export { FRONTIER_QUEUE } from './frontier-queue.js';

/** SQS refuses a visibility timeout above 12 hours. */
const MAX_VISIBILITY_S = 43_200;

/**
 * A host's message group: the host itself, or past SQS's 128 characters (a DNS name may have 253)
 * its SHA-256, so a long host still gets one group of its own instead of failing the batch.
 */
export function messageGroupId(host: string): string {
  return host.length <= 128 ? host : `h-${createHash('sha256').update(host).digest('hex')}`;
}

/**
 * The frontier on an SQS FIFO queue: MessageGroupId = host, so SQS hands out at most one
 * message of a host at a time. The deduplication id is the run, URL and attempt: a URL is sent
 * once per attempt even when a commit is redone.
 */
export class SqsFrontier implements FrontierQueue {
  constructor(
    private readonly sqs: SQSClient,
    readonly queueUrl: string,
    readonly deadLetterUrl?: string,
  ) {}

  async deadLetter(body: string, reason: string, group: string, id: string): Promise<void> {
    if (!this.deadLetterUrl)
      throw new Error('no dead-letter queue configured (DEAD_LETTER_QUEUE_URL): deploy the function with the Crawler construct, which sets it');
    await this.sqs.send(
      new SendMessageCommand({
        QueueUrl: this.deadLetterUrl,
        MessageBody: body,
        MessageGroupId: messageGroupId(group),
        MessageDeduplicationId: createHash('sha256').update(id).digest('hex'),
        MessageAttributes: { reason: { DataType: 'String', StringValue: reason.slice(0, 1000) } },
      }),
    );
  }

  async send(rows: FrontierRow[]): Promise<void> {
    for (let i = 0; i < rows.length; i += 10) {
      const batch = rows.slice(i, i + 10);
      const res = await this.sqs.send(
        new SendMessageBatchCommand({
          QueueUrl: this.queueUrl,
          Entries: batch.map((row, n) => ({
            Id: String(n),
            MessageBody: JSON.stringify(row),
            MessageGroupId: messageGroupId(row.host),
            MessageDeduplicationId: createHash('sha256').update(`${row.runId}:${row.urlId}:${row.attempts}`).digest('hex'),
          })),
        }),
      );
      if (res.Failed?.length)
        throw new Error(`SQS refused ${res.Failed.length} frontier messages (${res.Failed[0]!.Code}: ${res.Failed[0]!.Message}); they stay queued in DynamoDB`);
    }
  }

  async handBack(receiptHandle: string, delayMs: number): Promise<void> {
    const seconds = Math.min(MAX_VISIBILITY_S, Math.max(0, Math.ceil(delayMs / 1000)));
    await this.sqs.send(new ChangeMessageVisibilityCommand({ QueueUrl: this.queueUrl, ReceiptHandle: receiptHandle, VisibilityTimeout: seconds }));
  }
}
