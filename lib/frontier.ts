import { Duration } from 'aws-cdk-lib';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { FRONTIER_QUEUE } from '../shared/store/aws/frontier-queue.js';
import { deadLetterQueue } from './dead-letters.js';

export interface FrontierProps {
  /** Receives before a message goes to the DLQ; hand-backs for a busy host count too, so keep it generous. */
  maxReceiveCount: number;
  /** At least the fetch worker's timeout (SQS hides a message that long while it is processed). */
  visibilityTimeout: Duration;
}

/** The frontier: SQS FIFO, one message group per host (so one message of a host is in flight), a DLQ. */
export class FrontierQueue extends Construct {
  readonly queue: sqs.Queue;
  readonly deadLetters: sqs.Queue;

  constructor(scope: Construct, id: string, props: FrontierProps) {
    super(scope, id);
    this.deadLetters = deadLetterQueue(this, 'DeadLetters', { of: 'the frontier', fifo: true });
    this.queue = new sqs.Queue(this, 'Queue', {
      fifo: true,
      // Exact dedupe is a conditional put in DynamoDB; the deduplication id is the run, URL and attempt.
      contentBasedDeduplication: false,
      deduplicationScope: sqs.DeduplicationScope.MESSAGE_GROUP,
      fifoThroughputLimit: sqs.FifoThroughputLimit.PER_MESSAGE_GROUP_ID,
      visibilityTimeout: props.visibilityTimeout,
      retentionPeriod: Duration.seconds(FRONTIER_QUEUE.retentionSeconds),
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      deadLetterQueue: { queue: this.deadLetters, maxReceiveCount: props.maxReceiveCount },
    });
  }
}
