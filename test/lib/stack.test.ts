// The synthesized stack: resources and their settings, the cdk-nag AwsSolutions pack, the bundles.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { App, Stack, Validations } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { AwsSolutionsChecks } from 'cdk-nag';
import { Crawler } from '../../lib/crawler.js';
import { STAGES } from '../../lib/stages.js';

/** A DevTools call only puppeteer-core's browser code makes: its bundle is in the stage that holds it. */
const PUPPETEER_MARK = 'Target.setDiscoverTargets';
import { CrawlConfigError, loadCrawls, validateCrawls } from '../../lib/crawls-config.js';
import { FRONTIER_INDEX, INLINKS_INDEX, TTL_ATTRIBUTE } from '../../shared/store/aws/table-layout.js';
import { DEFAULT_WARM_THROUGHPUT } from '../../lib/storage.js';
import { DEFAULT_FETCH_CONCURRENCY } from '../../lib/crawler.js';
import { FRONTIER_QUEUE } from '../../shared/store/aws/sqs-frontier.js';
import { tempDir } from '../../support/helpers.js';
import { stateMachines, synthApp, type Synthesized } from '../../support/synth.js';
import { CL100K_RANKS, PDFJS_MODULE } from '../../shared/extract/runtime-files.js';

let synth: Synthesized;
let t: Template;
before(() => {
  // Real esbuild bundling, with the AwsSolutions pack registered: synth throws on any unacknowledged finding.
  synth = synthApp();
  t = Template.fromJSON(synth.template);
});
after(() => synth.cleanup());

test('synthesizes with cdk-nag AwsSolutions and no unacknowledged finding', () => {
  assert.ok(Object.keys(synth.template.Resources).length > 40);
});

test('cdk-nag is live: an unacknowledged finding stops synthesis', () => {
  const app = new App({ outdir: tempDir('trawl-nag-').dir });
  const stack = new Stack(app, 'Bad');
  new s3.Bucket(stack, 'Plain');
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  assert.throws(() => app.synth(), /AwsSolutions-S1|validation/i);
});

test('the table: keys, on-demand and pre-warmed, PITR, stream with both images, TTL, two indexes (aliases by target; the frontier, keys and notBefore only)', () => {
  t.hasResourceProperties('AWS::DynamoDB::Table', {
    KeySchema: [
      { AttributeName: 'PK', KeyType: 'HASH' },
      { AttributeName: 'SK', KeyType: 'RANGE' },
    ],
    BillingMode: 'PAY_PER_REQUEST',
    PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
    StreamSpecification: { StreamViewType: 'NEW_AND_OLD_IMAGES' },
    TimeToLiveSpecification: { AttributeName: TTL_ATTRIBUTE, Enabled: true },
    WarmThroughput: {
      WriteUnitsPerSecond: DEFAULT_WARM_THROUGHPUT.table.writeUnitsPerSecond,
      ReadUnitsPerSecond: DEFAULT_WARM_THROUGHPUT.table.readUnitsPerSecond,
    },
    GlobalSecondaryIndexes: [
      Match.objectLike({ IndexName: INLINKS_INDEX.name }),
      Match.objectLike({
        IndexName: FRONTIER_INDEX.name,
        Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: ['notBefore'] },
        WarmThroughput: {
          WriteUnitsPerSecond: DEFAULT_WARM_THROUGHPUT.frontierIndex.writeUnitsPerSecond,
          ReadUnitsPerSecond: DEFAULT_WARM_THROUGHPUT.frontierIndex.readUnitsPerSecond,
        },
      }),
    ],
  });
});

test('the archive bucket: private, encrypted, versioned, TLS only, raw bodies age out to IA', () => {
  t.hasResourceProperties('AWS::S3::Bucket', {
    VersioningConfiguration: { Status: 'Enabled' },
    PublicAccessBlockConfiguration: { BlockPublicAcls: true, BlockPublicPolicy: true, IgnorePublicAcls: true, RestrictPublicBuckets: true },
    BucketEncryption: Match.anyValue(),
    LifecycleConfiguration: {
      Rules: Match.arrayWith([Match.objectLike({ Prefix: 'raw/', Transitions: [{ StorageClass: 'STANDARD_IA', TransitionInDays: 30 }] })]),
    },
  });
  t.hasResourceProperties('AWS::S3::BucketPolicy', {
    PolicyDocument: { Statement: Match.arrayWith([Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } })]) },
  });
});

test('the frontier: FIFO without content-based dedupe, per-group throughput, a FIFO DLQ with a redrive limit', () => {
  t.hasResourceProperties('AWS::SQS::Queue', {
    FifoQueue: true,
    ContentBasedDeduplication: false,
    FifoThroughputLimit: 'perMessageGroupId',
    DeduplicationScope: 'messageGroup',
    RedrivePolicy: { deadLetterTargetArn: Match.anyValue(), maxReceiveCount: FRONTIER_QUEUE.maxReceiveCount },
    // What the emulators provision: the template's own visibility and retention.
    VisibilityTimeout: FRONTIER_QUEUE.visibilityTimeoutSeconds,
    MessageRetentionPeriod: FRONTIER_QUEUE.retentionSeconds,
  });
  // The frontier, its DLQ, the run-endings rule's dead letters and the schedules'.
  t.resourceCountIs('AWS::SQS::Queue', 4);
});

test('every stage is nodejs24.x on arm64 (Render on x86_64: Chromium ships for x64 only); the fetch worker takes a batch of turns at once with partial batch failures', () => {
  const fns = t.findResources('AWS::Lambda::Function');
  const stages = Object.values(fns).filter(
    (f) => (f.Properties as { Environment?: { Variables?: Record<string, unknown> } }).Environment?.Variables?.TABLE_NAME,
  );
  assert.equal(stages.length, STAGES.length);
  for (const f of stages) {
    const p = f.Properties as { Runtime: string; Architectures: string[]; Handler: string; MemorySize: number };
    assert.equal(p.Runtime, 'nodejs24.x');
    assert.deepEqual(p.Architectures, p.MemorySize === 2048 ? ['x86_64'] : ['arm64']);
    assert.equal(p.Handler, 'index.handler');
  }
  t.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
    BatchSize: FRONTIER_QUEUE.batchSize,
    FunctionResponseTypes: ['ReportBatchItemFailures'],
    ScalingConfig: { MaximumConcurrency: DEFAULT_FETCH_CONCURRENCY },
  });
});

test('the bundles are ESM built by esbuild, the extract stage carries pdf.js for its worker thread, and every stage that tokenizes its tokenizer', () => {
  const assets = readdirSync(synth.outdir).filter((d) => d.startsWith('asset.'));
  assert.equal(assets.length, STAGES.length);
  for (const a of assets) assert.ok(existsSync(join(synth.outdir, a, 'index.mjs')), a);
  // pdf.js ships with every stage whose bundle names it (Extract, and the stages that fetch search and social targets), and only there.
  const namingPdfjs = assets.filter((a) => readFileSync(join(synth.outdir, a, 'index.mjs'), 'utf8').includes(PDFJS_MODULE));
  // Three: a stage that only reaches the crawl's wiring (buildContext) carries no PDF reader.
  assert.equal(namingPdfjs.length, 3);
  assert.deepEqual(
    assets.filter((a) => existsSync(join(synth.outdir, a, 'node_modules/unpdf/dist/pdfjs.mjs'))),
    namingPdfjs,
  );
  // Every stage but the search API chunks or counts tokens (their bundles name the rank table), and the tokenizer reads it by path.
  const tokenizing = assets.filter((a) => readFileSync(join(synth.outdir, a, 'index.mjs'), 'utf8').includes(CL100K_RANKS));
  assert.equal(tokenizing.length, STAGES.length - 1);
  assert.deepEqual(
    assets.filter((a) => existsSync(join(synth.outdir, a, CL100K_RANKS))),
    tokenizing,
  );
  // The Render stage ships @sparticuz/chromium as it is (its packed browser is found beside its own
  // files), and no other stage does; its browser driver, puppeteer-core, is in its bundle.
  const shipping = (f: string) => assets.filter((a) => existsSync(join(synth.outdir, a, f)));
  const render = shipping('node_modules/@sparticuz/chromium/bin/chromium.br');
  assert.equal(render.length, 1);
  assert.deepEqual(
    assets.filter((a) =>
      readdirSync(join(synth.outdir, a)).some((f) => f.endsWith('.mjs') && readFileSync(join(synth.outdir, a, f), 'utf8').includes(PUPPETEER_MARK)),
    ),
    render,
  );
  assert.deepEqual(shipping('node_modules/playwright-core'), [], 'no other browser driver');
});

test('the run state machine is Standard: InitRun, Discover when the run has search or social targets, then a Wait/Progress/Choice loop, then the run’s end over its shards (JSONPath)', () => {
  const { STANDARD, EXPRESS } = stateMachines(synth.template);
  const states = STANDARD.definition.States as Record<
    string,
    {
      Type: string;
      Next?: string;
      Default?: string;
      Choices?: Array<{ Next: string }>;
      ItemProcessor?: { ProcessorConfig?: { Mode?: string }; StartAt: string };
      ItemsPath?: string;
    }
  >;
  assert.equal(STANDARD.definition.StartAt, 'InitRun');
  assert.equal(STANDARD.definition.QueryLanguage, 'JSONPath');
  assert.equal(states.InitRun!.Next, 'Started');
  assert.equal(states.Started!.Default, 'HasTargets');
  assert.equal(states.HasTargets!.Default, 'WaitForProgress');
  assert.equal(states.Discover!.Next, 'WaitForProgress');
  assert.equal(states.WaitForProgress!.Next, 'Progress');
  assert.equal(states.Progress!.Next, 'RunOver');
  assert.equal(states.RunOver!.Choices![0]!.Next, 'FinalizeStart');
  assert.equal(states.RunOver!.Default, 'WaitForProgress');
  // The end: a small run is ranked by FinalizeRun alone; a larger one by a Distributed Map a phase, a child a shard.
  assert.equal(states.FinalizeStart!.Next, 'SpreadOverShards');
  assert.deepEqual(
    states.SpreadOverShards!.Choices!.map((c) => c.Next),
    ['CollectShards'],
  );
  assert.equal(states.SpreadOverShards!.Default, 'FinalizeRun');
  for (const [map, next] of [
    ['CollectShards', 'GatherShards'],
    ['GatherShards', 'LinkShards'],
    ['LinkShards', 'DegreeShards'],
    ['DegreeShards', 'RankCheck'],
    ['RankShards', 'RankCheck'],
    ['WriteShards', 'ChangeShards'],
    ['ChangeShards', 'PackageParts'],
    ['PackageParts', 'FinalizeRun'],
  ] as Array<[string, string]>) {
    assert.equal(states[map]!.Type, 'Map', map);
    assert.equal(states[map]!.ItemProcessor!.ProcessorConfig!.Mode, 'DISTRIBUTED', map);
    // The archive's parts (its WARC files grouped by FinalizeStart), the ranking's shards.
    assert.equal(states[map]!.ItemsPath, { PackageParts: '$.finalize.parts', ChangeShards: '$.finalize.changeShards' }[map] ?? '$.finalize.shards', map);
    assert.equal(states[map]!.Next, next, map);
  }
  // The rounds go on until RankCheck says they converged.
  assert.equal(states.RankCheck!.Next, 'Ranked');
  assert.equal(states.Ranked!.Choices![0]!.Next, 'WriteShards');
  assert.equal(states.Ranked!.Default, 'RankShards');
  // A run that failed ends its execution failed.
  assert.equal(states.FinalizeRun!.Next, 'RunEnded');
  assert.equal(states.RunEnded!.Choices![0]!.Next, 'RunFailed');
  const page = EXPRESS.definition.States as Record<string, { Retry?: Array<{ ErrorEquals: string[] }>; Catch?: Array<{ Next: string }> }>;
  assert.equal(EXPRESS.definition.StartAt, 'Extract');
  // A page step that timed out is not retried (Express's five minutes); the run's steps are.
  assert.ok(page.Extract!.Retry!.some((r) => r.ErrorEquals.includes('ThrottlingException')));
  assert.ok(!page.Extract!.Retry!.some((r) => r.ErrorEquals.includes('States.Timeout')));
  const run = STANDARD.definition.States as Record<string, { Retry?: Array<{ ErrorEquals: string[] }>; Catch?: Array<{ Next: string }> }>;
  assert.ok(run.Progress!.Retry!.some((r) => r.ErrorEquals.includes('States.Timeout')));
  // Any failing step of the run ends it `failed`: a run-loop step's error goes to the run's end
  // with it; a failing step of the end goes to FailRun. Never `running` for ever.
  for (const name of ['Progress', 'Discover']) assert.equal(run[name]!.Catch![0]!.Next, 'FinalizeStart', name);
  for (const name of ['FinalizeStart', 'CollectShards', 'RankShards', 'RankCheck', 'WriteShards', 'FinalizeRun'])
    assert.equal(run[name]!.Catch![0]!.Next, 'FailRun', name);
  assert.equal(run.InitRun!.Catch![0]!.Next, 'RunFailed');
  assert.equal(page.Extract!.Catch![0]!.Next, 'RecordFailure');
  t.hasResourceProperties('AWS::StepFunctions::StateMachine', {
    StateMachineType: 'EXPRESS',
    // Traced only with tracePages (a sampled trace a page costs more than the page's Express execution).
    TracingConfiguration: { Enabled: false },
    // Errors only, without execution data: ~32 KB of logs a page (and crawled sites' cookies) otherwise.
    LoggingConfiguration: Match.objectLike({ Level: 'ERROR', IncludeExecutionData: false }),
  });
});

test("a crawl whose seeds are too long for its schedule's rule input fails synthesis, naming the crawl", () => {
  const stack = new Stack(new App({ outdir: tempDir('trawl-input-').dir }), 'Input');
  const seeds = Array.from({ length: 200 }, (_, i) => `https://site-${i}.example/some/section/of/the/site/`);
  assert.throws(
    () => new Crawler(stack, 'Crawler', { crawls: validateCrawls({ crawls: [{ name: 'many', schedule: 'rate(1 day)', seeds }] }) }),
    /crawl "many": its run input is \d+ characters, past the 8192 EventBridge allows a rule's target: list fewer seeds/,
  );
});

test('one EventBridge rule per crawl of crawls.json, starting the run state machine with the crawl as input', () => {
  t.resourceCountIs('AWS::Events::Rule', 2);
  t.hasResourceProperties('AWS::Events::Rule', {
    ScheduleExpression: 'rate(7 days)',
    Targets: [
      Match.objectLike({ Input: Match.serializedJson(Match.objectLike({ crawl: 'example-docs', seeds: ['https://example.com/'], profile: 'default' })) }),
    ],
  });
});

test("a rule hands the run machine's failed, timed-out and aborted executions to RunEnded, with retries and a dead-letter queue", () => {
  const rules = t.findResources('AWS::Events::Rule', { Properties: { EventPattern: { source: ['aws.states'] } } });
  assert.equal(Object.keys(rules).length, 1);
  const rule = Object.values(rules)[0]!.Properties as { EventPattern: Record<string, any>; Targets: Array<Record<string, any>> }; // eslint-disable-line @typescript-eslint/no-explicit-any -- template JSON
  assert.deepEqual(rule.EventPattern['detail-type'], ['Step Functions Execution Status Change']);
  assert.deepEqual(rule.EventPattern.detail.status, ['FAILED', 'TIMED_OUT', 'ABORTED']);
  const machine = Object.keys(t.findResources('AWS::StepFunctions::StateMachine', { Properties: { StateMachineType: 'STANDARD' } }))[0];
  assert.deepEqual(rule.EventPattern.detail.stateMachineArn, [{ Ref: machine }]);
  const target = rule.Targets[0]!;
  assert.match(JSON.stringify(target.Arn), /RunEnded|runended/i);
  assert.equal(target.RetryPolicy.MaximumRetryAttempts, 185);
  assert.ok(target.DeadLetterConfig?.Arn, 'undelivered events go to a dead-letter queue');
});

test('alarms on the DLQ, stage errors and throttles and failed executions; a dashboard', () => {
  const alarms = Object.values(t.findResources('AWS::CloudWatch::Alarm')).map((a) => (a.Properties as { MetricName: string }).MetricName);
  assert.ok(alarms.includes('ApproximateNumberOfMessagesVisible'));
  assert.equal(alarms.filter((m) => m === 'Errors').length, STAGES.length);
  assert.equal(alarms.filter((m) => m === 'Throttles').length, STAGES.length, 'the local provider reserves no concurrency: every stage has a throttle alarm');
  assert.equal(alarms.filter((m) => m === 'ExecutionsFailed').length, 2);
  t.resourceCountIs('AWS::CloudWatch::Dashboard', 1);
});

test('a team can use the Crawler construct in its own stack with its own crawls and sizes', () => {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new Stack(app, 'Team');
  new Crawler(stack, 'News', {
    crawls: [{ name: 'news', schedule: 'cron(0 3 * * ? *)', seeds: ['https://news.example/'] }],
    memoryMb: { 'extract-page': 2048 },
    maxFetchConcurrency: 5,
  });
  const team = Template.fromStack(stack);
  team.hasResourceProperties('AWS::Events::Rule', { ScheduleExpression: 'cron(0 3 * * ? *)' });
  team.hasResourceProperties('AWS::Lambda::Function', { MemorySize: 2048 });
  team.hasResourceProperties('AWS::Lambda::EventSourceMapping', { ScalingConfig: { MaximumConcurrency: 5 } });
});

test('crawls.json problems fail at synth time with the crawl, the field and what to write', () => {
  const bad = (crawl: Record<string, unknown>) => () =>
    validateCrawls({ crawls: [{ name: 'c', schedule: 'rate(1 day)', seeds: ['https://a.example/'], ...crawl }] });
  assert.throws(
    bad({ schedule: 'every day' }),
    (e: Error) => e instanceof CrawlConfigError && /crawl #1 "c": schedule "every day" is not an EventBridge expression/.test(e.message),
  );
  assert.throws(bad({ schedule: 'rate(2 day)' }), /rate\(2 days\)/);
  assert.throws(bad({ schedule: 'cron(0 3 * * *)' }), /6 fields/);
  assert.throws(bad({ seeds: ['ftp://x/'] }), /seed "ftp:\/\/x\/": ftp: URLs are not fetched: give an http\(s\) URL, or write search:ftp:\/\/x\/ to search/);
  assert.throws(bad({ seeds: ['  '] }), /seed " {2}": empty target/);
  assert.doesNotThrow(bad({ seeds: ['search:fire sprinkler inspection', 'r/Minneapolis', 'https://bsky.app/profile/nfpa.bsky.social'] }));
  assert.throws(bad({ limits: { maxPagez: 3 } }), /unknown setting "maxPagez"/);
  assert.throws(
    bad({ limits: { maxPages: -1 } }),
    /invalid value -1 for crawls.json: crawl #1 "c": limits: setting "maxPages": expected a whole number from 1 to 100000000/,
  );
  assert.throws(bad({ profile: 'fancy' }), /profile/);
  assert.throws(
    () =>
      validateCrawls({
        crawls: [
          { name: 'c', schedule: 'rate(1 day)', seeds: ['https://a/'] },
          { name: 'c', schedule: 'rate(1 day)', seeds: ['https://b/'] },
        ],
      }),
    /used twice/,
  );
  const dir = tempDir();
  writeFileSync(join(dir.dir, 'crawls.json'), '{"crawls": [');
  assert.throws(() => synthApp({ bundle: false, crawlsFile: join(dir.dir, 'crawls.json') }), /crawls.json is not valid JSON/);
  dir.cleanup();
});

test("a crawl's profile file (relative to crawls.json), query and select reach the schedule's input; a bad profile stops synth", () => {
  const dir = tempDir();
  try {
    mkdirSync(join(dir.dir, 'profiles'));
    writeFileSync(
      join(dir.dir, 'profiles', 'mine.json'),
      JSON.stringify({ name: 'mine', query: 'solar panels', fields: { price: { selector: '.price', type: 'number' } } }),
    );
    const crawls = (crawl: Record<string, unknown>) => {
      writeFileSync(
        join(dir.dir, 'crawls.json'),
        JSON.stringify({ crawls: [{ name: 'c', schedule: 'rate(1 day)', seeds: ['https://a.example/'], ...crawl }] }),
      );
      return join(dir.dir, 'crawls.json');
    };
    const [def] = loadCrawls(crawls({ profile: './profiles/mine.json', query: 'roof solar', select: { cap: 3 } }));
    assert.equal((def!.profile as { name: string }).name, 'mine');
    const synth = synthApp({ bundle: false, crawlsFile: crawls({ profile: './profiles/mine.json', query: 'roof solar', select: { cap: 3 } }) });
    try {
      Template.fromJSON(synth.template).hasResourceProperties('AWS::Events::Rule', {
        Targets: Match.arrayWith([
          Match.objectLike({
            Input: Match.serializedJson(
              Match.objectLike({ profile: Match.objectLike({ name: 'mine', query: 'solar panels' }), query: 'roof solar', select: { cap: 3 } }),
            ),
          }),
        ]),
      });
    } finally {
      synth.cleanup();
    }
    assert.equal(loadCrawls(crawls({ profile: 'fire-protection' }))[0]!.profile, 'fire-protection', 'a shipped profile stays a name');
    writeFileSync(join(dir.dir, 'profiles', 'bad.json'), JSON.stringify({ name: 'bad', fields: { phone: 'a[href' } }));
    assert.throws(
      () => loadCrawls(crawls({ profile: 'profiles/bad.json' })),
      /crawl #1 "c": field "phone" \(profile .*bad\.json, fields\.phone\): invalid CSS selector/,
    );
    assert.throws(() => loadCrawls(crawls({ profile: './nope.json' })), /crawl #1 "c": profile .*nope\.json does not exist/);
    assert.throws(() => loadCrawls(crawls({ select: { cap: 0 } })), /select\.cap/);
  } finally {
    dir.cleanup();
  }
});
