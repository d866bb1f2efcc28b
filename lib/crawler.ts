import { Annotations, ArnFormat, CfnOutput, Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import { DEFAULT_API_CRAWL_LIMITS } from '../shared/config/api-crawl-limits.js';
import * as events from 'aws-cdk-lib/aws-events';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { validateCrawls } from './crawls-config.js';
import { FrontierQueue } from './frontier.js';
import { CrawlObservability } from './observability.js';
import { checkCrawlerProps, timeProps, type ApiProps, type CrawlerProps } from './props.js';

export type { ApiCrawlLimitProps, ApiKeyApiProps, ApiProps, CrawlerProps, DiscoveryProps, ExtraPageStep, IamApiProps } from './props.js';
import { checkSchedules, CrawlSchedules } from './schedules.js';
import { DEFAULT_TEXT_REBUILD_LOG_ENTRIES, SearchIndex } from './search-index.js';
import { CrawlStages, STAGES, type StageName, type StageSizing } from './stages.js';
import { CrawlStorage, DEFAULT_WARM_THROUGHPUT } from './storage.js';
import { DEFAULT_FETCH_RETENTION_DAYS } from '../shared/store/aws/table-layout.js';
import { FRONTIER_QUEUE } from '../shared/store/aws/frontier-queue.js';
import { VISIBILITY_PER_TIMEOUT } from './quotas.js';
import { ENV, environmentOf } from '../shared/config/lambda-environment.js';
import { CrawlWorkflows, type PageStep } from './workflows.js';
import { CrawlDiscovery } from './discovery.js';
import { nagRef } from './nag.js';
import { CrawlWebhooks } from './webhooks.js';
import { RunEndings } from './run-endings.js';
import { THROTTLE_RETRIES } from '../shared/pipeline/cloud/enrich-workflow.js';

/**
 * Fetch worker invocations at once (the event source's maximum concurrency) unless
 * `maxFetchConcurrency` says otherwise: each takes a batch of up to 10 turns at 10 hosts, so a run
 * with enough hosts ready fetches ≈ 400 pages a second (`bench:cloud-scale`'s defaults figure) and
 * leaves most of an account's 1,000 concurrent executions to the page workflow and other stacks.
 */
export const DEFAULT_FETCH_CONCURRENCY = 100;

/** Memory and timeout of each stage unless `memoryMb` says otherwise. */
export const DEFAULT_SIZING: Record<StageName, StageSizing> = {
  'init-run': { memoryMb: 512, timeout: Duration.minutes(2) },
  // A few API calls a target, each waiting out its API's rate limit (at most a minute) when it must.
  'discover-targets': { memoryMb: 512, timeout: Duration.minutes(10) },
  'run-progress': { memoryMb: 256, timeout: Duration.minutes(2) },
  'finalize-run': { memoryMb: 1769, timeout: Duration.minutes(15) },
  // A batch of turns at once, each a fetch (30 s at most) and its writes.
  'fetch-worker': { memoryMb: 512, timeout: Duration.minutes(1) },
  // The page workflow's steps fit Express's 5 minutes with their retries (lib/quotas.ts checks the path at synth).
  'extract-page': { memoryMb: 1024, timeout: Duration.seconds(40) },
  'record-failure': { memoryMb: 256, timeout: Duration.seconds(30) },
  'run-ended': { memoryMb: 256, timeout: Duration.seconds(30) },
  // Chromium with two tabs: 2048 MB leaves the browser its working set and gives a full vCPU's share.
  'render-page': { memoryMb: 2048, timeout: Duration.seconds(50) },
  // A model call is mostly waiting; the local methods want a CPU share (1024 MB: ~0.6 vCPU on arm64).
  'summarize-page': { memoryMb: 1024, timeout: Duration.seconds(45) },
  'index-page': { memoryMb: 1024, timeout: Duration.seconds(40) },
  // The API: DynamoDB reads and one query embedding per search; 1024 MB for a quick cold start. A
  // Firecrawl scrape waits for its page's one-page run (FIRECRAWL_WAIT_MS), then for its json
  // (STORED_JSON_WAIT_MS), inside the timeout.
  'search-api': { memoryMb: 1024, timeout: Duration.seconds(120) },
};

/**
 * trawl on AWS: storage, the SQS FIFO frontier, the Lambda stages, the run state machine and
 * page workflow, one schedule per crawl, a dashboard and alarms. Instantiate it in any stack.
 *
 * @example
 * import { Crawler } from 'trawl/cdk';
 * new Crawler(stack, 'Crawler', { crawls: [{ name: 'docs', schedule: 'rate(7 days)', seeds: ['https://example.com/'] }] });
 */
export class Crawler extends Construct {
  readonly storage: CrawlStorage;
  readonly frontier: FrontierQueue;
  readonly stages: CrawlStages;
  readonly workflows: CrawlWorkflows;
  readonly schedules: CrawlSchedules;
  readonly observability: CrawlObservability;
  /** The vector index and model permissions (absent with `enrichment: false`). */
  readonly search?: SearchIndex;
  /** The search API's Function URL (absent with `api: false`). */
  readonly apiUrl?: lambda.FunctionUrl;
  /** The Discover function's secret and settings (its secret is absent when no crawl needs one and none was given). */
  readonly discovery: CrawlDiscovery;
  /**
   * The crawl's events (source `trawl`): `trawl.crawl.started`, `trawl.crawl.finished` and
   * `trawl.crawl.failed`, each with the run's id and summary. Subscribe with a rule on it.
   */
  readonly eventBus: events.EventBus;
  /** The rule that marks failed a run whose execution failed, timed out or was aborted, and its dead letters. */
  readonly runEndings: RunEndings;
  /** The `webhooks` receivers (absent without them): their API destinations, rules, secrets and dead letters. */
  readonly webhooks?: CrawlWebhooks;

  constructor(scope: Construct, id: string, props: CrawlerProps) {
    super(scope, id);
    checkCrawlerProps(id, props);
    const times = timeProps(props);
    const crawls = validateCrawls({ crawls: props.crawls }, `Crawler "${id}" crawls`);
    // Before any stage is bundled: a crawl its schedule cannot carry fails synth at once.
    checkSchedules(crawls);
    const removalPolicy = props.removalPolicy ?? RemovalPolicy.RETAIN;
    const logRetention = props.logRetention ?? logs.RetentionDays.ONE_MONTH;
    const sizing = Object.fromEntries(
      STAGES.map((name) => [name, { ...DEFAULT_SIZING[name], memoryMb: props.memoryMb?.[name] ?? DEFAULT_SIZING[name].memoryMb }]),
    ) as Record<StageName, StageSizing>;

    this.storage = new CrawlStorage(this, 'Storage', {
      rawInfrequentAccessDays: times.rawIaDays ?? 30,
      rawRetentionDays: times.rawRetentionDays,
      warcInfrequentAccessDays: times.warcIaDays,
      warcRetentionDays: times.warcRetentionDays,
      extractedRetentionDays: times.extractedRetentionDays,
      noncurrentVersionDays: 30,
      removalPolicy,
      existingTableObj: props.existingTableObj,
      tableProps: props.tableProps,
      existingBucketObj: props.existingBucketObj,
      bucketProps: props.bucketProps,
      warmThroughput: props.warmThroughput ?? DEFAULT_WARM_THROUGHPUT,
    });
    this.frontier = new FrontierQueue(this, 'Frontier', {
      maxReceiveCount: FRONTIER_QUEUE.maxReceiveCount,
      // SQS's rule for a Lambda event source: visibility at least six times the function's timeout.
      visibilityTimeout: Duration.seconds(sizing['fetch-worker'].timeout.toSeconds() * VISIBILITY_PER_TIMEOUT),
    });
    const enrichment = props.enrichment === false ? undefined : (props.enrichment ?? {});
    const modelCap = enrichment?.maxConcurrency ?? (enrichment?.provider === 'bedrock' ? 4 : undefined);
    // Said at synth: a capped model step bounds the whole crawl's rate, which nothing else shows.
    if (modelCap !== undefined) Annotations.of(this).addInfo(modelRateNote(modelCap));
    this.stages = new CrawlStages(this, 'Stages', {
      reserved: { 'summarize-page': modelCap, 'index-page': modelCap },
      table: this.storage.table,
      bucket: this.storage.bucket,
      sizing,
      logRetention,
      removalPolicy,
      environment: {
        ...environmentOf({
          queueUrl: this.frontier.queue.queueUrl,
          deadLetterUrl: this.frontier.deadLetters.queueUrl,
          frontierRetentionDays: String(times.frontierRetentionDays ?? 90),
          fetchRetentionDays: String(times.fetchRetentionDays ?? DEFAULT_FETCH_RETENTION_DAYS),
          extractedSnapshots: String(props.extractedSnapshots ?? false),
        }),
      },
    });
    const fns = this.stages.functions;
    const extra: PageStep[] = (props.extraPageSteps ?? []).map((s) => ({ name: s.name, fn: s.fn, timeout: s.timeout ?? Duration.seconds(60) }));
    this.search = enrichment && new SearchIndex(this, 'Search', { ...enrichment, removalPolicy });
    const enrichSteps = this.search && enrichment ? enrichmentSteps(this.search, fns, sizing, enrichment) : [];
    this.discovery = new CrawlDiscovery(this, 'Discovery', {
      fn: fns['discover-targets'],
      crawls,
      existingSecretObj: props.discovery?.existingSecretObj,
      environment: props.discovery?.environment,
      removalPolicy,
    });
    this.workflows = new CrawlWorkflows(this, 'Workflows', {
      tracePages: props.tracePages,
      initRun: fns['init-run'],
      discover: { fn: fns['discover-targets'], timeout: sizing['discover-targets'].timeout },
      progress: fns['run-progress'],
      finalizeRun: fns['finalize-run'],
      recordFailure: fns['record-failure'],
      pageSteps: [
        { name: 'Extract', fn: fns['extract-page'], timeout: Duration.seconds(sizing['extract-page'].timeout.toSeconds() - 5) },
        ...enrichSteps,
        ...extra,
      ],
      render: { fn: fns['render-page'], timeout: sizing['render-page'].timeout },
      pollSeconds: times.pollSeconds ?? 60,
      rebuildText: enrichment !== undefined,
      logRetention,
      removalPolicy,
    });
    this.eventBus = new events.EventBus(this, 'Events');
    if (props.webhooks?.length) {
      this.webhooks = new CrawlWebhooks(this, 'Webhooks', { bus: this.eventBus, hooks: props.webhooks, removalPolicy });
      this.webhooks.secrets.forEach(
        (secret, i) =>
          new CfnOutput(this, `Webhook${i}SecretArn`, { value: secret.secretArn, description: `the key deliveries to ${props.webhooks![i]!.url} carry` }),
      );
    }
    this.runEndings = new RunEndings(this, 'RunEndings', { runMachine: this.workflows.runMachine, fn: fns['run-ended'], removalPolicy });
    this.wireFrontierAndEvents(fns, props.maxFetchConcurrency);
    this.schedules = new CrawlSchedules(this, 'Schedules', { crawls, runMachine: this.workflows.runMachine, removalPolicy });
    this.observability = new CrawlObservability(this, 'Observability', {
      functions: fns,
      queue: this.frontier.queue,
      deadLetters: this.frontier.deadLetters,
      otherDeadLetters: {
        'run-endings': this.runEndings.deadLetters,
        schedules: this.schedules.deadLetters,
        ...(this.webhooks ? { webhooks: this.webhooks.deadLetters } : {}),
      },
      machines: { run: this.workflows.runMachine, page: this.workflows.pageWorkflow },
      capped: modelCap !== undefined ? ['summarize-page', 'index-page'] : [],
      pageWorkflow: this.workflows.pageWorkflow,
      table: this.storage.table,
      topic: props.alarmTopic,
      dashboard: props.dashboard,
    });
    if (props.api !== false) this.apiUrl = this.addApi(props.api ?? {}, fns['search-api']);
    this.addOutputs();
  }

  /** The frontier's senders and consumers, the fetch worker's event source, the event bus's tellers. */
  private wireFrontierAndEvents(fns: CrawlStages['functions'], maxFetchConcurrency: number | undefined): void {
    for (const teller of [fns['init-run'], fns['finalize-run'], fns['run-ended']]) {
      teller.addEnvironment(ENV.eventBusName, this.eventBus.eventBusName);
      this.eventBus.grantPutEventsTo(teller);
    }
    for (const sender of [fns['init-run'], fns['discover-targets'], fns['fetch-worker'], fns['extract-page'], fns['run-progress']])
      this.frontier.queue.grantSendMessages(sender);
    this.frontier.deadLetters.grantSendMessages(fns['fetch-worker']);
    // Progress gives the run's dead-lettered turns back to their hosts (a few times each).
    this.frontier.deadLetters.grantConsumeMessages(fns['run-progress']);
    fns['fetch-worker'].addEnvironment(ENV.pageWorkflowArn, this.workflows.pageWorkflow.stateMachineArn);
    this.workflows.pageWorkflow.grantStartExecution(fns['fetch-worker']);
    fns['fetch-worker'].addEventSource(
      new SqsEventSource(this.frontier.queue, {
        // Turns at different hosts, taken in parallel by one invocation (a host has one turn in flight).
        batchSize: FRONTIER_QUEUE.batchSize,
        reportBatchItemFailures: true,
        maxConcurrency: maxFetchConcurrency ?? DEFAULT_FETCH_CONCURRENCY,
      }),
    );
  }

  /** The search API's environment, grants and Function URL (IAM, or a public URL with an API key). */
  private addApi(api: ApiProps, fn: lambda.Function): lambda.FunctionUrl {
    const publicUrl = api.auth === 'apiKey';
    if (api.auth === 'apiKey') {
      fn.addEnvironment(ENV.apiKeySha256, api.apiKeySha256.toLowerCase());
      fn.addEnvironment(ENV.apiKeyHeader, api.apiKeyHeader ?? 'x-api-key');
      // A public URL: unauthenticated requests still invoke the function, so its concurrency is capped.
      (fn.node.defaultChild as lambda.CfnFunction).reservedConcurrentExecutions = api.maxConcurrency ?? 10;
    }
    const start = api.auth === 'apiKey' ? undefined : api.startCrawls;
    if (start) {
      const settings = typeof start === 'object' ? (start.settings ?? {}) : {};
      fn.addEnvironment(ENV.runMachineArn, this.workflows.runMachine.stateMachineArn);
      fn.addEnvironment(ENV.apiCrawlSettings, JSON.stringify(settings));
      fn.addEnvironment(ENV.apiCrawlLimits, JSON.stringify({ ...DEFAULT_API_CRAWL_LIMITS, ...(typeof start === 'object' ? (start.limits ?? {}) : {}) }));
      const writers = typeof start === 'object' ? (start.writers ?? []) : [];
      if (writers.length) fn.addEnvironment(ENV.apiWriters, writers.join(','));
      const admins = typeof start === 'object' ? (start.admins ?? []) : [];
      if (admins.length) fn.addEnvironment(ENV.apiAdmins, admins.join(','));
      const machine = this.workflows.runMachine;
      machine.grantStartExecution(fn);
      // DescribeExecution on the run machine's executions (GET /crawls/{id}), nothing else.
      machine.grantExecution(fn, 'states:DescribeExecution');
      const executions = Stack.of(this).formatArn({
        service: 'states',
        resource: 'execution',
        arnFormat: ArnFormat.COLON_RESOURCE_NAME,
        resourceName: `${Stack.of(this).splitArn(machine.stateMachineArn, ArnFormat.COLON_RESOURCE_NAME).resourceName!}:*`,
      });
      Validations.of(fn.role!).acknowledge({
        id: `AwsSolutions-IAM5[Resource::${nagRef(this, executions)}]`,
        reason: 'Executions are named by the job ids the API gives out: their names are not known at deploy time. Only DescribeExecution, on the run machine.',
      });
      // DELETE /crawls/{id} marks the run interrupted.
      fn.addToRolePolicy(new iam.PolicyStatement({ actions: ['dynamodb:UpdateItem'], resources: [this.storage.table.tableArn] }));
      this.storage.table.encryptionKey?.grant(fn, 'kms:Encrypt', 'kms:GenerateDataKey');
    }
    const url = fn.addFunctionUrl({ authType: publicUrl ? lambda.FunctionUrlAuthType.NONE : lambda.FunctionUrlAuthType.AWS_IAM });
    new CfnOutput(this, 'ApiUrl', { value: url.url });
    return url;
  }

  private addOutputs(): void {
    new CfnOutput(this, 'TableName', { value: this.storage.table.tableName });
    new CfnOutput(this, 'EventBusName', { value: this.eventBus.eventBusName });
    if (this.storage.table.tableStreamArn) new CfnOutput(this, 'TableStreamArn', { value: this.storage.table.tableStreamArn });
    new CfnOutput(this, 'BucketName', { value: this.storage.bucket.bucketName });
    new CfnOutput(this, 'RunStateMachineArn', { value: this.workflows.runMachine.stateMachineArn });
    if (this.search) new CfnOutput(this, 'VectorBucketName', { value: this.search.vectorBucketName });
    if (this.discovery.secret)
      new CfnOutput(this, 'DiscoverySecretArn', { value: this.discovery.secret.secretArn, description: 'the search and social API keys, a JSON object' });
  }
}

/** The search index's grants to the stages, and the page workflow's Summarize and Index steps. */
function enrichmentSteps(
  search: SearchIndex,
  fns: CrawlStages['functions'],
  sizing: Record<StageName, StageSizing>,
  enrichment: { textRebuildLogEntries?: number },
): PageStep[] {
  search.grantVectors(fns['index-page'], 'write');
  search.grantVectors(fns['finalize-run'], 'query');
  search.grantVectors(fns['summarize-page'], 'query');
  search.grantModels(fns['summarize-page'], ['chat']);
  search.grantModels(fns['index-page'], ['embed']);
  search.grantVectors(fns['search-api'], 'query');
  // The API embeds queries, and answers Firecrawl's question format with the chat model.
  search.grantModels(fns['search-api'], ['embed', 'chat']);
  // Progress counts the full-text log past the generation; the loop rebuilds past this many entries.
  fns['run-progress'].addEnvironment(ENV.textRebuildLogEntries, String(enrichment.textRebuildLogEntries ?? DEFAULT_TEXT_REBUILD_LOG_ENTRIES));
  const timeout = (name: 'summarize-page' | 'index-page') => Duration.seconds(sizing[name].timeout.toSeconds() - 5);
  return [
    { name: 'Summarize', fn: fns['summarize-page'], timeout: timeout('summarize-page'), modelRetries: THROTTLE_RETRIES },
    { name: 'Index', fn: fns['index-page'], timeout: timeout('index-page'), modelRetries: THROTTLE_RETRIES },
  ];
}

/** Seconds a page spends in model calls with Bedrock, per step (Summarize: summary and tags; Index: the embedding), as the review measured them. */
const MODEL_SECONDS_A_PAGE = { low: 2, high: 4 };

/**
 * What a cap on the model steps' concurrency means for the crawl: each capped step runs at most
 * `cap` pages at once, so it takes at most cap ÷ (seconds a page spends in it) pages a second.
 */
export function modelRateNote(cap: number): string {
  const fast = cap / MODEL_SECONDS_A_PAGE.low;
  const slow = cap / MODEL_SECONDS_A_PAGE.high;
  return `enrichment.maxConcurrency ${cap}: Summarize and Index run at most ${cap} pages at once, so the crawl enriches about ${slow.toFixed(1)}–${fast.toFixed(1)} pages a second (${MODEL_SECONDS_A_PAGE.low}–${MODEL_SECONDS_A_PAGE.high} s of model calls a page); pages past that wait in their workflows, and one throttled past its retries stays stored (done) without its summary or vector. Raise maxConcurrency with your Bedrock quota.`;
}
