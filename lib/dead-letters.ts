import { Duration, Validations, type RemovalPolicy } from 'aws-cdk-lib';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';

export interface DeadLetterProps {
  /** What it is the dead-letter queue of, for cdk-nag's acknowledgement ("the frontier"). */
  readonly of: string;
  /** A FIFO queue's dead letters must be FIFO too. @default false */
  readonly fifo?: boolean;
  /** @default the queue's default (RETAIN) */
  readonly removalPolicy?: RemovalPolicy;
}

/** A dead-letter queue: encrypted, TLS only, messages kept 14 days (the most SQS keeps). */
export function deadLetterQueue(scope: Construct, id: string, props: DeadLetterProps): sqs.Queue {
  const queue = new sqs.Queue(scope, id, {
    ...(props.fifo ? { fifo: true } : {}),
    retentionPeriod: Duration.days(14),
    encryption: sqs.QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
    ...(props.removalPolicy ? { removalPolicy: props.removalPolicy } : {}),
  });
  Validations.of(queue).acknowledge({ id: 'AwsSolutions-SQS3', reason: `This queue is the dead-letter queue of ${props.of}.` });
  return queue;
}
