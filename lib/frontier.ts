import { Duration, Validations } from 'aws-cdk-lib';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';

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
    this.deadLetters = new sqs.Queue(this, 'DeadLetters', {
      fifo: true,
      retentionPeriod: Duration.days(14),
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
    });
    Validations.of(this.deadLetters).acknowledge({ id: 'AwsSolutions-SQS3', reason: 'This queue is the dead-letter queue of the frontier.' });
    this.queue = new sqs.Queue(this, 'Queue', {
      fifo: true,
      // Exact dedupe is a conditional put in DynamoDB; the deduplication id is the run, URL and attempt.
      contentBasedDeduplication: false,
      deduplicationScope: sqs.DeduplicationScope.MESSAGE_GROUP,
      fifoThroughputLimit: sqs.FifoThroughputLimit.PER_MESSAGE_GROUP_ID,
      visibilityTimeout: props.visibilityTimeout,
      retentionPeriod: Duration.days(14),
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      deadLetterQueue: { queue: this.deadLetters, maxReceiveCount: props.maxReceiveCount },
    });
  }
}
