import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import * as actions from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';

export interface ObservabilityProps {
  functions: Record<string, lambda.IFunction>;
  queue: sqs.IQueue;
  deadLetters: sqs.IQueue;
  /** Other dead-letter queues a team pages on (the run-endings rule's, the webhooks'), by name. */
  otherDeadLetters?: Record<string, sqs.IQueue>;
  machines: Record<string, sfn.IStateMachine>;
  /** Stages throttled on purpose (a reserved-concurrency cap on model calls, retried by Step Functions): their throttle alarm waits for CAPPED_THROTTLES_ALARM. */
  capped?: string[];
  /** The page workflow (Express): a timed-out execution skips its Catch, so it has an alarm of its own. */
  pageWorkflow?: sfn.IStateMachine;
  table?: dynamodb.ITable;
  /** Every alarm's action. */
  topic?: sns.ITopic;
  /** @default true */
  dashboard?: boolean;
}

/** Throttles of a capped stage in five minutes (one a second) that say the cap, not the sites, sets the crawl's pace. */
export const CAPPED_THROTTLES_ALARM = 300;

/** Fetch-worker turns failed in five minutes that page a team (a few are throttles, retried). */
export const FAILED_MESSAGES_ALARM = 50;

/** A frontier message older than this means hosts are not being served (a stuck group, workers down). */
const OLDEST_MESSAGE_ALARM_SECONDS = 6 * 60 * 60;

/**
 * A dashboard and the alarms a team pages on: anything in the DLQ, function errors and
 * throttles, failed runs and page workflows. Add actions (SNS, chat) through `alarms`.
 */
export class CrawlObservability extends Construct {
  /** Absent with `dashboard: false`. */
  readonly dashboard?: cloudwatch.Dashboard;
  readonly alarms: cloudwatch.Alarm[] = [];

  private readonly period = Duration.minutes(5);

  constructor(
    scope: Construct,
    id: string,
    private readonly props: ObservabilityProps,
  ) {
    super(scope, id);
    const { period } = this;
    this.alarm(
      'DeadLetters',
      props.deadLetters.metricApproximateNumberOfMessagesVisible({ period }),
      'Frontier messages failed too often and went to the DLQ: inspect them, then redrive.',
    );
    for (const [name, queue] of Object.entries(props.otherDeadLetters ?? {}))
      this.alarm(
        `${name}-dead-letters`,
        queue.metricApproximateNumberOfMessagesVisible({ period }),
        `Events of ${name} went to its dead-letter queue after their retries: inspect them.`,
      );
    this.stageAlarms();
    this.countedAlarms();
    this.workflowAlarms();
    if (props.dashboard !== false) this.dashboard = this.addDashboard();
  }

  private alarm(name: string, metric: cloudwatch.IMetric, description: string, threshold = 1): void {
    const made = new cloudwatch.Alarm(this, name, {
      metric,
      threshold,
      evaluationPeriods: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      alarmDescription: description,
    });
    if (this.props.topic) made.addAlarmAction(new actions.SnsAction(this.props.topic));
    this.alarms.push(made);
  }

  /** Each stage's errors and throttles (a capped stage's throttles past a threshold: its cap paces the crawl). */
  private stageAlarms(): void {
    const { period, props } = this;
    for (const [name, fn] of Object.entries(props.functions)) {
      this.alarm(`${name}-errors`, fn.metricErrors({ period }), `The ${name} stage failed.`);
      if (!props.capped?.includes(name))
        this.alarm(
          `${name}-throttles`,
          fn.metricThrottles({ period }),
          `The ${name} stage was throttled: raise the account's concurrency or lower the crawl's.`,
        );
      // A capped stage is throttled on purpose and its throttles are retried; sustained, they mean the cap sets the crawl's pace.
      else
        this.alarm(
          `${name}-throttles`,
          fn.metricThrottles({ period }),
          `The ${name} stage, capped by enrichment.maxConcurrency, was throttled ${CAPPED_THROTTLES_ALARM} times in five minutes: the cap is what paces the crawl; raise it (and the model's quota) or lower the crawl's rate.`,
          CAPPED_THROTTLES_ALARM,
        );
    }
  }

  /** What the handlers count through Powertools (namespace `trawl`, dimensions service and function). */
  private countedAlarms(): void {
    const { period, props } = this;
    const counted = (fn: string, metricName: string) =>
      new cloudwatch.Metric({ namespace: 'trawl', metricName, dimensionsMap: { service: 'trawl', function: fn }, period, statistic: 'Sum' });
    for (const fn of ['summarize-page', 'index-page'].filter((f) => f in props.functions))
      this.alarm(
        `${fn}-enrich-failures`,
        counted(fn, 'EnrichFailures'),
        `The ${fn} stage could not enrich pages (the model or the index refused): they stay stored, unenriched; see its log.`,
      );
    if ('fetch-worker' in props.functions)
      this.alarm(
        'fetch-messages-failed',
        counted('fetch-worker', 'MessagesFailed'),
        `The fetch worker failed ${FAILED_MESSAGES_ALARM} turns in five minutes (each handed back after a short back-off; ten failures take a turn to the DLQ): throttles or an error on every turn; see its log.`,
        FAILED_MESSAGES_ALARM,
      );
    if ('fetch-worker' in props.functions)
      this.alarm(
        'page-starts-failed',
        counted('fetch-worker', 'PageStartsFailed'),
        "The fetch worker fetched pages whose workflow it could not start (Step Functions refused): each went back to its host's queue after a throttle, or failed; see its log.",
      );
    if ('record-failure' in props.functions)
      this.alarm(
        'page-steps-failed',
        counted('record-failure', 'PageStepsFailed'),
        "A step after Extract failed past its retries (a capped model stage's throttles among them): the page stays stored without that step's result; see RecordFailure's log.",
      );
    if ('finalize-run' in props.functions && 'index-page' in props.functions)
      this.alarm(
        'index-inconsistent',
        counted('finalize-run', 'IndexInconsistent'),
        "A run's integrity check found the search index out of step with the table: the report names the pages; reconcile them.",
      );
  }

  /** The workflows' failures and time-outs, the table's throttles, the frontier's oldest message. */
  private workflowAlarms(): void {
    const { period, props } = this;
    for (const [name, machine] of Object.entries(props.machines)) this.alarm(`${name}-failed`, machine.metricFailed({ period }), `A ${name} execution failed.`);
    if (props.machines.run)
      this.alarm(
        'run-timed-out',
        props.machines.run.metricTimedOut({ period }),
        "A run's execution timed out: RunEnded marked its run failed; look at why it ran so long.",
      );
    if (props.pageWorkflow) {
      this.alarm(
        'page-timed-out',
        props.pageWorkflow.metricTimedOut({ period }),
        "A page workflow ran past Express's five minutes and skipped its Catch: the run's stall recovery sends the URL again; look at the slow step.",
      );
    }
    if (props.table) {
      this.alarm(
        'table-throttled',
        new cloudwatch.MathExpression({
          expression: 'r + w',
          usingMetrics: {
            r: props.table.metric('ReadThrottleEvents', { period, statistic: 'Sum' }),
            w: props.table.metric('WriteThrottleEvents', { period, statistic: 'Sum' }),
          },
          period,
        }),
        "DynamoDB throttled the crawl's reads or writes: a hot item or an account limit.",
      );
    }
    this.alarm(
      'frontier-oldest-message',
      props.queue.metricApproximateAgeOfOldestMessage({ period }),
      "A frontier message has waited for hours: a host's message group is stuck or the workers are not running.",
      OLDEST_MESSAGE_ALARM_SECONDS,
    );
  }

  private addDashboard(): cloudwatch.Dashboard {
    const { period, props } = this;
    const dashboard = new cloudwatch.Dashboard(this, 'Dashboard', { defaultInterval: Duration.hours(3) });
    const fns = Object.entries(props.functions);
    dashboard.addWidgets(
      new cloudwatch.GraphWidget({
        title: 'Frontier',
        left: [props.queue.metricApproximateNumberOfMessagesVisible({ period }), props.queue.metricNumberOfMessagesDeleted({ period })],
        right: [props.deadLetters.metricApproximateNumberOfMessagesVisible({ period })],
      }),
      new cloudwatch.GraphWidget({ title: 'Stage invocations', left: fns.map(([, fn]) => fn.metricInvocations({ period })) }),
      new cloudwatch.GraphWidget({
        title: 'Stage errors and throttles',
        left: fns.map(([, fn]) => fn.metricErrors({ period })),
        right: fns.map(([, fn]) => fn.metricThrottles({ period })),
      }),
      new cloudwatch.GraphWidget({ title: 'Stage duration (p90)', left: fns.map(([, fn]) => fn.metricDuration({ period, statistic: 'p90' })) }),
      new cloudwatch.GraphWidget({
        title: 'Workflows',
        left: Object.values(props.machines).map((m) => m.metricSucceeded({ period })),
        right: Object.values(props.machines).map((m) => m.metricFailed({ period })),
      }),
      new cloudwatch.GraphWidget({
        title: 'Pages',
        left: ['PagesExtracted', 'PagesFailed', 'LinksFound'].map(
          (m) =>
            new cloudwatch.Metric({
              namespace: 'trawl',
              metricName: m,
              statistic: 'Sum',
              period,
              dimensionsMap: { service: 'trawl', function: m === 'PagesFailed' ? 'record-failure' : 'extract-page' },
            }),
        ),
      }),
    );
    return dashboard;
  }
}
