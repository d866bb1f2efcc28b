import { CfnOutput, Duration, RemovalPolicy } from 'aws-cdk-lib';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { validateCrawls, type CrawlDefinition } from './crawls-config.js';
import { FrontierQueue } from './frontier.js';
import { CrawlObservability } from './observability.js';
import { CrawlSchedules } from './schedules.js';
import { CrawlStages, type StageName, type StageSizing } from './stages.js';
import { CrawlStorage } from './storage.js';
import { CrawlWorkflows } from './workflows.js';

export interface CrawlerProps {
  /** The scheduled crawls (validated here: a bad one fails `cdk synth` with the crawl's name). */
  crawls: CrawlDefinition[];
  /** Memory (MB) per stage; the defaults suit HTML pages of a few hundred KB. */
  memoryMb?: Partial<Record<StageName, number>>;
  /** Fetch workers running at once (SQS event source maximum concurrency); each holds one host. */
  maxFetchConcurrency?: number;
  /** Seconds between two progress checks of a running crawl. */
  pollSeconds?: number;
  /** Raw bodies go to S3 Infrequent Access after this many days. */
  rawInfrequentAccessDays?: number;
  /** Raw bodies are deleted after this many days (default: kept). */
  rawRetentionDays?: number;
  /** Frontier items expire (DynamoDB TTL) this many days after they are written. */
  frontierRetentionDays?: number;
  logRetention?: logs.RetentionDays;
  /** What happens to the bucket, table and logs when the stack is deleted (default: retained). */
  removalPolicy?: RemovalPolicy;
}

const DEFAULT_SIZING: Record<StageName, StageSizing> = {
  'init-run': { memoryMb: 512, timeout: Duration.minutes(2) },
  'run-progress': { memoryMb: 256, timeout: Duration.minutes(2) },
  'finalize-run': { memoryMb: 1769, timeout: Duration.minutes(15) },
  'fetch-worker': { memoryMb: 512, timeout: Duration.minutes(2) },
  'extract-page': { memoryMb: 1024, timeout: Duration.minutes(1) },
  'record-failure': { memoryMb: 256, timeout: Duration.seconds(30) },
};

/**
 * trawl on AWS: storage, the SQS FIFO frontier, the Lambda stages, the run state machine and
 * page workflow, one schedule per crawl, a dashboard and alarms. Instantiate it in any stack.
 */
export class Crawler extends Construct {
  readonly storage: CrawlStorage;
  readonly frontier: FrontierQueue;
  readonly stages: CrawlStages;
  readonly workflows: CrawlWorkflows;
  readonly schedules: CrawlSchedules;
  readonly observability: CrawlObservability;

  constructor(scope: Construct, id: string, props: CrawlerProps) {
    super(scope, id);
    const crawls = validateCrawls({ crawls: props.crawls }, `Crawler "${id}" crawls`);
    const removalPolicy = props.removalPolicy ?? RemovalPolicy.RETAIN;
    const logRetention = props.logRetention ?? logs.RetentionDays.ONE_MONTH;
    const sizing = Object.fromEntries(Object.entries(DEFAULT_SIZING).map(([name, s]) => [name, { ...s, memoryMb: props.memoryMb?.[name as StageName] ?? s.memoryMb }])) as Record<StageName, StageSizing>;

    this.storage = new CrawlStorage(this, 'Storage', {
      rawInfrequentAccessDays: props.rawInfrequentAccessDays ?? 30, rawRetentionDays: props.rawRetentionDays, noncurrentVersionDays: 30, removalPolicy,
    });
    this.frontier = new FrontierQueue(this, 'Frontier', { maxReceiveCount: 50, visibilityTimeout: Duration.seconds(sizing['fetch-worker'].timeout.toSeconds() * 3) });
    this.stages = new CrawlStages(this, 'Stages', {
      table: this.storage.table, bucket: this.storage.bucket, sizing, logRetention, removalPolicy,
      environment: { QUEUE_URL: this.frontier.queue.queueUrl, FRONTIER_RETENTION_DAYS: String(props.frontierRetentionDays ?? 90) },
    });
    const fns = this.stages.functions;
    this.workflows = new CrawlWorkflows(this, 'Workflows', {
      initRun: fns['init-run'], progress: fns['run-progress'], finalizeRun: fns['finalize-run'], recordFailure: fns['record-failure'],
      pageSteps: [{ name: 'Extract', fn: fns['extract-page'], timeout: Duration.seconds(55) }],
      pollSeconds: props.pollSeconds ?? 60, logRetention, removalPolicy,
    });
    for (const sender of [fns['init-run'], fns['fetch-worker'], fns['extract-page']]) this.frontier.queue.grantSendMessages(sender);
    fns['fetch-worker'].addEnvironment('PAGE_WORKFLOW_ARN', this.workflows.pageWorkflow.stateMachineArn);
    this.workflows.pageWorkflow.grantStartExecution(fns['fetch-worker']);
    fns['fetch-worker'].addEventSource(new SqsEventSource(this.frontier.queue, {
      batchSize: 1, reportBatchItemFailures: true, maxConcurrency: Math.max(2, props.maxFetchConcurrency ?? 20),
    }));
    this.schedules = new CrawlSchedules(this, 'Schedules', { crawls, runMachine: this.workflows.runMachine });
    this.observability = new CrawlObservability(this, 'Observability', {
      functions: fns, queue: this.frontier.queue, deadLetters: this.frontier.deadLetters,
      machines: { run: this.workflows.runMachine, page: this.workflows.pageWorkflow },
    });
    new CfnOutput(this, 'TableName', { value: this.storage.table.tableName });
    new CfnOutput(this, 'TableStreamArn', { value: this.storage.table.tableStreamArn ?? '' });
    new CfnOutput(this, 'BucketName', { value: this.storage.bucket.bucketName });
    new CfnOutput(this, 'RunStateMachineArn', { value: this.workflows.runMachine.stateMachineArn });
  }
}
