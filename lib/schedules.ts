import { Duration, type RemovalPolicy } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import type * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import type { RunInput } from '../shared/pipeline/cloud/run-control.js';
import type { CrawlDefinition } from './crawls-config.js';
import { checkScheduleInput } from './quotas.js';
import { deadLetterQueue } from './dead-letters.js';

/** A crawl's run input: what its schedule's rule starts the run state machine with. */
function runInput(crawl: CrawlDefinition): RunInput {
  return {
    crawl: crawl.name,
    seeds: crawl.seeds,
    settings: crawl.limits ?? {},
    maxMinutes: crawl.maxMinutes,
    profile: crawl.profile ?? 'default',
    ...(crawl.query ? { query: crawl.query } : {}),
    ...(crawl.select ? { select: crawl.select } : {}),
  };
}

/** Fails on the first crawl whose run input its rule cannot carry: the Crawler checks this before it builds anything. */
export function checkSchedules(crawls: readonly CrawlDefinition[]): void {
  for (const crawl of crawls) checkScheduleInput(`crawl "${crawl.name}"`, runInput(crawl));
}

/**
 * One EventBridge rule per crawl, starting the run state machine with the crawl as its input. A
 * start EventBridge cannot make (throttled, the machine being updated) is retried for an hour,
 * then kept in a dead-letter queue an alarm watches: a scheduled run is never lost silently.
 */
export class CrawlSchedules extends Construct {
  readonly rules: Record<string, events.Rule> = {};
  /** Schedule events whose run could not be started: an alarm watches it. */
  readonly deadLetters: sqs.Queue;

  constructor(scope: Construct, id: string, props: { crawls: CrawlDefinition[]; runMachine: sfn.IStateMachine; removalPolicy: RemovalPolicy }) {
    super(scope, id);
    this.deadLetters = deadLetterQueue(this, 'DeadLetters', { of: "the crawls' schedules", removalPolicy: props.removalPolicy });
    // The Crawler ran checkSchedules on these crawls before it built anything.
    for (const crawl of props.crawls) {
      this.rules[crawl.name] = new events.Rule(this, `Crawl-${crawl.name}`, {
        description: `trawl crawl "${crawl.name}" (${crawl.seeds.length} seeds)`,
        schedule: events.Schedule.expression(crawl.schedule),
        targets: [
          new targets.SfnStateMachine(props.runMachine, {
            input: events.RuleTargetInput.fromObject(runInput(crawl)),
            retryAttempts: 20,
            maxEventAge: Duration.hours(1),
            deadLetterQueue: this.deadLetters,
          }),
        ],
      });
    }
  }
}
