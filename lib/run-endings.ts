// Runs whose execution ends outside their states (a history quota, the execution's timeout, a
// StopExecution) are marked failed: Step Functions tells the default event bus of each execution
// that FAILED, TIMED_OUT or was ABORTED, and a rule hands the run machine's to the RunEnded stage.
import { Duration, type RemovalPolicy } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { deadLetterQueue } from './dead-letters.js';
import { DEAD_STATUSES } from '../shared/pipeline/cloud/run-ended.js';

export interface RunEndingsProps {
  readonly runMachine: sfn.IStateMachine;
  /** The RunEnded stage. */
  readonly fn: lambda.IFunction;
  readonly removalPolicy: RemovalPolicy;
}

/** The rule on the run machine's dead executions, and where its undelivered events go. */
export class RunEndings extends Construct {
  readonly rule: events.Rule;
  /** Events the stage could not take after its retries: an alarm watches it. */
  readonly deadLetters: sqs.Queue;

  constructor(scope: Construct, id: string, props: RunEndingsProps) {
    super(scope, id);
    this.deadLetters = deadLetterQueue(this, 'DeadLetters', { of: 'the run-endings rule', removalPolicy: props.removalPolicy });
    this.rule = new events.Rule(this, 'ExecutionEnded', {
      description: 'trawl: a run whose execution failed, timed out or was aborted is marked failed',
      eventPattern: {
        source: ['aws.states'],
        detailType: ['Step Functions Execution Status Change'],
        detail: { status: [...DEAD_STATUSES], stateMachineArn: [props.runMachine.stateMachineArn] },
      },
      // A day of retries: a throttled or failing stage still marks the run once it can.
      targets: [new targets.LambdaFunction(props.fn, { retryAttempts: 185, maxEventAge: Duration.hours(24), deadLetterQueue: this.deadLetters })],
    });
  }
}
