import { createHash } from 'node:crypto';
import {
  ChangeMessageVisibilityCommand,
  DeleteMessageCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { parseHostTurn } from '../../ports/frontier-message.js';
import type { FrontierQueue, HostTurn } from '../../ports/index.js';
import { inBatches } from '../../util/batches.js';

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
 * The dispatch queue on SQS FIFO: MessageGroupId = host, so SQS hands out one turn of a host at a
 * time (whatever the run). The deduplication id is the run, host and turn (and the copy of a
 * renewed turn): a turn sent twice by a repeated step is delivered once.
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

  async sendTurns(turns: Array<HostTurn & { copy?: string }>): Promise<void> {
    const batches = [];
    for (let i = 0; i < turns.length; i += 10) batches.push(turns.slice(i, i + 10));
    // Batches at once: a page that finds many new hosts starts their turns in one round trip's time.
    await inBatches(batches, 8, async (batch) => {
      const res = await this.sqs.send(
        new SendMessageBatchCommand({
          QueueUrl: this.queueUrl,
          Entries: batch.map(({ copy, ...turn }, n) => ({
            Id: String(n),
            MessageBody: JSON.stringify(turn),
            MessageGroupId: messageGroupId(turn.host),
            MessageDeduplicationId: createHash('sha256')
              .update(`${turn.runId}:${turn.host}:${turn.turn}${copy ? `:${copy}` : ''}`)
              .digest('hex'),
          })),
        }),
      );
      if (res.Failed?.length)
        throw new Error(
          `SQS refused ${res.Failed.length} turn messages (${res.Failed[0]!.Code}: ${res.Failed[0]!.Message}); their hosts' URLs stay queued in DynamoDB`,
        );
    });
  }

  async deadTurns(limit: number): Promise<Array<{ turn?: HostTurn; receipt: string }>> {
    if (!this.deadLetterUrl) return [];
    const out: Array<{ turn?: HostTurn; receipt: string }> = [];
    while (out.length < limit) {
      const res = await this.sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: this.deadLetterUrl,
          MaxNumberOfMessages: Math.min(10, limit - out.length),
          VisibilityTimeout: 60,
          WaitTimeSeconds: 0,
        }),
      );
      const messages = res.Messages ?? [];
      for (const m of messages) {
        let turn: HostTurn | undefined;
        try {
          turn = parseHostTurn(m.Body ?? '');
        } catch {
          turn = undefined;
        }
        out.push({ ...(turn ? { turn } : {}), receipt: m.ReceiptHandle! });
      }
      if (messages.length === 0) break;
    }
    return out;
  }

  async settleDead(receipt: string, how: 'delete' | 'leave'): Promise<void> {
    if (!this.deadLetterUrl) return;
    if (how === 'delete') await this.sqs.send(new DeleteMessageCommand({ QueueUrl: this.deadLetterUrl, ReceiptHandle: receipt }));
    else await this.sqs.send(new ChangeMessageVisibilityCommand({ QueueUrl: this.deadLetterUrl, ReceiptHandle: receipt, VisibilityTimeout: 0 }));
  }

  async handBack(receiptHandle: string, delayMs: number): Promise<void> {
    const seconds = Math.min(MAX_VISIBILITY_S, Math.max(0, Math.ceil(delayMs / 1000)));
    await this.sqs.send(new ChangeMessageVisibilityCommand({ QueueUrl: this.queueUrl, ReceiptHandle: receiptHandle, VisibilityTimeout: seconds }));
  }
}
