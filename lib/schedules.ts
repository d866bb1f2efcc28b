import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import type * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import type { RunInput } from '../shared/pipeline/cloud/run-control.js';
import type { CrawlDefinition } from './crawls-config.js';
import { checkScheduleInput } from './quotas.js';

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

/** One EventBridge rule per crawl, starting the run state machine with the crawl as its input. */
export class CrawlSchedules extends Construct {
  readonly rules: Record<string, events.Rule> = {};

  constructor(scope: Construct, id: string, props: { crawls: CrawlDefinition[]; runMachine: sfn.IStateMachine }) {
    super(scope, id);
    // The Crawler ran checkSchedules on these crawls before it built anything.
    for (const crawl of props.crawls) {
      this.rules[crawl.name] = new events.Rule(this, `Crawl-${crawl.name}`, {
        description: `trawl crawl "${crawl.name}" (${crawl.seeds.length} seeds)`,
        schedule: events.Schedule.expression(crawl.schedule),
        targets: [new targets.SfnStateMachine(props.runMachine, { input: events.RuleTargetInput.fromObject(runInput(crawl)) })],
      });
    }
  }
}
