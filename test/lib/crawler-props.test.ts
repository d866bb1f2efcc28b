// The Crawler construct's props: ranges checked at synth (nothing clamped silently), escape hatches
// for an existing table or bucket and for overrides, and user steps in the page workflow.
import { STAGE_ACCESS, STAGES } from '../../lib/stages.js';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { App, Duration, Stack, Validations } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { AwsSolutionsChecks } from 'cdk-nag';
import { THROTTLE_RETRIES } from '../../shared/pipeline/cloud/enrich-workflow.js';
import { Crawler, type CrawlerProps } from '../../lib/crawler.js';
import { checkCrawlerProps } from '../../lib/props.js';
import { CrawlConfigError } from '../../shared/errors.js';
import { stateMachines } from '../../support/synth.js';
import { CAPPED_THROTTLES_ALARM } from '../../lib/observability.js';

const crawls = [{ name: 'docs', schedule: 'rate(1 day)', seeds: ['https://docs.example/'] }];

function synth(props: Partial<CrawlerProps>, extra?: (stack: Stack) => Partial<CrawlerProps>): Template {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new Stack(app, 'Team');
  new Crawler(stack, 'Crawler', { crawls, ...props, ...extra?.(stack) });
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  return Template.fromStack(stack);
}

test('a prop out of range fails synthesis naming the prop and the allowed range', () => {
  const cases: Array<[Partial<CrawlerProps>, RegExp]> = [
    [{ maxFetchConcurrency: 1 }, /maxFetchConcurrency is 1; it must be a whole number from 2 to 1000/],
    [{ maxFetchConcurrency: 5000 }, /maxFetchConcurrency is 5000; it must be a whole number from 2 to 1000/],
    [{ memoryMb: { 'extract-page': 64 } }, /memoryMb\["extract-page"\] is 64 MB; it must be a whole number from 128 to 10240 MB/],
    [{ memoryMb: { 'summarise-page': 2048 } as CrawlerProps['memoryMb'] }, /memoryMb names an unknown stage "summarise-page"/],
    [{ enrichment: { provider: 'bedrock', dimension: 300 } }, /enrichment.dimension is 300; Titan Text Embeddings V2 takes 256, 512 or 1024/],
    [{ enrichment: { maxConcurrency: 0 } }, /enrichment.maxConcurrency is 0; it must be a whole number from 1 to 1000/],
    [{ enrichment: { provider: 'openai' as 'local' } }, /enrichment.provider is "openai"; write "local" or "bedrock"/],
    [{ enrichment: { provider: 'bedrock', chatModel: 'claude 3' } }, /enrichment.chatModel "claude 3" is not a Bedrock model id/],
    [{ enrichment: { extractSchema: { type: 'object' } } }, /enrichment.extractSchema needs an LLM provider: write enrichment.provider "bedrock"/],
    [{ enrichment: { provider: 'bedrock', extractSchema: { type: 'nope' } } }, /enrichment.extractSchema: the extract schema is not a valid JSON Schema/],
    [
      { enrichment: { provider: 'bedrock', extractSchema: { type: 'object', description: 'x'.repeat(3000) } } },
      /enrichment.extractSchema is \d+ characters of JSON; it travels in the functions' environment, which holds 2048 at most/,
    ],
    [{ api: { auth: 'apiKey' } as never }, /api.auth "apiKey" needs api.apiKeySha256, the SHA-256 of the key in hex/],
    [{ api: { auth: 'apiKey', apiKeySha256: 'my-secret' } }, /needs api.apiKeySha256/],
    [{ api: { auth: 'open' as 'iam' } }, /api.auth is "open"; write "iam" or "apiKey"/],
    [{ pollInterval: Duration.seconds(1) }, /pollInterval is 1 s; it must be a whole number from 5 to 3600 s/],
    [{ pollInterval: Duration.millis(7500) }, /pollInterval is 7.5 s; it must be a whole number/],
    [{ rawInfrequentAccessAfter: Duration.days(7) }, /rawInfrequentAccessAfter is 7 days; it must be a whole number from 30 to 36500 days/],
    [{ rawRetention: Duration.days(20) }, /rawRetention \(20 days\) must be more than rawInfrequentAccessAfter \(30 days\)/],
    [{ frontierRetention: Duration.hours(12) }, /frontierRetention is 0.5 days/],
    [{ fetchRetention: Duration.days(4000) }, /fetchRetention is 4000 days; it must be a whole number from 1 to 3650 days/],
    [{ warcInfrequentAccessAfter: Duration.days(10) }, /warcInfrequentAccessAfter is 10 days; it must be a whole number from 30 to 36500 days/],
    [
      { warcInfrequentAccessAfter: Duration.days(60), warcRetention: Duration.days(60) },
      /warcRetention \(60 days\) must be more than warcInfrequentAccessAfter \(60 days\): WARC files move/,
    ],
    [{ extractedRetention: Duration.hours(36) }, /extractedRetention is 1.5 days/],
    [{ api: { startCrawls: { writers: ['crawl-starter'] } } }, /api.startCrawls.writers names "crawl-starter", which is not an IAM role or user ARN/],
    [{ tableProps: {}, existingTableObj: {} as dynamodb.ITable }, /give existingTableObj or tableProps, not both/],
    [
      { discovery: { environment: { TRAWL_BRAVE_API_KEY: 'k' } } },
      /discovery.environment sets TRAWL_BRAVE_API_KEY, which holds a credential: put it in the discovery secret's JSON instead/,
    ],
    [{ discovery: { environment: { APIFY_TOKEN: 't' } } }, /discovery.environment sets APIFY_TOKEN/],
    [{ discovery: { environment: { 'trawl-url': 'x' } } }, /discovery.environment name "trawl-url" is not an environment variable name/],
  ];
  for (const [props, message] of cases) {
    assert.throws(
      () => synth(props),
      (e: unknown) => e instanceof CrawlConfigError && message.test(e.message),
      JSON.stringify(Object.keys(props)),
    );
  }
});

test('an existing table and bucket are used instead of new ones, with grants on them', () => {
  const t = synth({}, (stack) => ({
    existingTableObj: dynamodb.Table.fromTableAttributes(stack, 'Shared', {
      tableArn: 'arn:aws:dynamodb:us-east-1:123456789012:table/crawl-shared',
      tableStreamArn: 'arn:aws:dynamodb:us-east-1:123456789012:table/crawl-shared/stream/x',
    }),
    existingBucketObj: s3.Bucket.fromBucketName(stack, 'Archive', 'team-archive'),
  }));
  t.resourceCountIs('AWS::DynamoDB::Table', 0);
  t.resourceCountIs('AWS::S3::Bucket', 0);
  t.hasResourceProperties('AWS::Lambda::Function', {
    Environment: { Variables: Match.objectLike({ TABLE_NAME: 'crawl-shared', BUCKET_NAME: 'team-archive' }) },
  });
  t.hasResourceProperties('AWS::IAM::Policy', {
    PolicyDocument: { Statement: Match.arrayWith([Match.objectLike({ Action: ['s3:GetObject', 's3:PutObject'] })]) },
  });
});

test("tableProps and bucketProps override trawl's defaults but never its layout", () => {
  const t = synth({
    tableProps: { contributorInsightsSpecification: { enabled: true }, partitionKey: { name: 'id', type: dynamodb.AttributeType.STRING } },
    bucketProps: { bucketName: 'team-archive-2' },
  });
  t.hasResourceProperties('AWS::DynamoDB::Table', {
    ContributorInsightsSpecification: { Enabled: true },
    KeySchema: [
      { AttributeName: 'PK', KeyType: 'HASH' },
      { AttributeName: 'SK', KeyType: 'RANGE' },
    ],
  });
  t.hasResourceProperties('AWS::S3::Bucket', { BucketName: 'team-archive-2', VersioningConfiguration: { Status: 'Enabled' } });
});

test('customer-managed keys on the table and the bucket: every stage may use each key as it uses the table and the bucket, no more', () => {
  const t = synth({}, (stack) => ({
    tableProps: { encryption: dynamodb.TableEncryption.CUSTOMER_MANAGED, encryptionKey: new kms.Key(stack, 'TableKey', { enableKeyRotation: true }) },
    bucketProps: { encryption: s3.BucketEncryption.KMS, encryptionKey: new kms.Key(stack, 'BucketKey', { enableKeyRotation: true }) },
  }));
  const keyId = (name: string) => Object.keys(t.findResources('AWS::KMS::Key')).find((id) => id.startsWith(name))!;
  const [tableKey, bucketKey] = [keyId('TableKey'), keyId('BucketKey')];
  const kmsOn = (stage: string, key: string) =>
    grants(t, stage)
      .filter((g) => g.resources.includes(key))
      .flatMap((g) => g.actions)
      .filter((a) => a.startsWith('kms:'))
      .sort();
  const read = ['kms:Decrypt', 'kms:DescribeKey'];
  const readWrite = [...read, 'kms:Encrypt', 'kms:GenerateDataKey'].sort();
  for (const stage of STAGES) {
    const access = STAGE_ACCESS[stage];
    assert.deepEqual(kmsOn(stage, tableKey), access.table.some((a) => a !== 'Scan') ? readWrite : read, `${stage} on the table's key`);
    assert.deepEqual(kmsOn(stage, bucketKey), access.objects.includes('write') ? readWrite : read, `${stage} on the bucket's key`);
  }
  assert.deepEqual(kmsOn('search-api', tableKey), read, 'the search API only reads the table');
});

test('your own Lambdas run after Extract in the page workflow, with the same retries and Catch', () => {
  const t = synth({}, (stack) => {
    const notify = new lambda.Function(stack, 'Notify', {
      runtime: lambda.Runtime.NODEJS_24_X,
      handler: 'index.handler',
      code: lambda.Code.fromInline('exports.handler = async (e) => ({ ok: true });'),
    });
    // The user's own function: its findings are the user's to acknowledge, beside it.
    Validations.of(notify.role!).acknowledge({
      id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
      reason: 'A test step that only writes its logs.',
    });
    return { extraPageSteps: [{ name: 'Notify', fn: notify, timeout: Duration.seconds(20) }] };
  });
  const { EXPRESS } = stateMachines(t.toJSON() as Parameters<typeof stateMachines>[0]);
  const states = EXPRESS.definition.States as Record<string, { Next?: string; Catch?: Array<{ Next: string }>; TimeoutSeconds?: number; ResultPath?: string }>;
  // Extract → NeedsRender? → (Render → ExtractRendered →) Summarize → Index → Notify: your step runs after the page's final extraction and its indexing.
  assert.equal(states.Extract!.Next, 'NeedsRender');
  const choice = states.NeedsRender as unknown as { Default: string; Choices: Array<{ Next: string }> };
  assert.equal(choice.Default, 'Summarize');
  assert.equal(choice.Choices[0]!.Next, 'Render');
  assert.equal(states.Render!.Next, 'ExtractRendered');
  assert.equal(states.ExtractRendered!.Next, 'Summarize');
  assert.equal(states.Summarize!.Next, 'Index');
  assert.equal(states.Index!.Next, 'Notify');
  assert.equal(states.ExtractRendered!.ResultPath, '$.results.Extract');
  assert.equal(states.Notify!.Next, 'PageDone');
  assert.equal(states.Notify!.Catch![0]!.Next, 'RecordFailure');
  assert.equal(states.Notify!.TimeoutSeconds, 20);
  assert.equal(states.Notify!.ResultPath, '$.results.Notify');
  assert.throws(
    () =>
      synth({}, (stack) => ({
        extraPageSteps: [{ name: 'Extract', fn: lambda.Function.fromFunctionArn(stack, 'X', 'arn:aws:lambda:us-east-1:123456789012:function:x') }],
      })),
    /extraPageSteps name "Extract" is taken/,
  );
});

test('the fetch worker may dead-letter malformed messages: it knows the DLQ and may send to it', () => {
  const t = synth({});
  t.hasResourceProperties('AWS::Lambda::Function', {
    Environment: { Variables: Match.objectLike({ DEAD_LETTER_QUEUE_URL: Match.anyValue(), QUEUE_URL: Match.anyValue() }) },
  });
  const policies = Object.values(t.findResources('AWS::IAM::Policy')).map((p) => JSON.stringify(p));
  assert.ok(policies.some((p) => p.includes('sqs:SendMessage') && p.includes('FrontierDeadLetters')));
});

type Policy = { Properties: { PolicyDocument: { Statement: Array<{ Action: string | string[]; Resource: unknown }> }; Roles: Array<{ Ref: string }> } };

/** The actions and resources granted to the role of the function whose logical id starts with `stage`. */
function grants(t: Template, stage: string): Array<{ actions: string[]; resources: string }> {
  const fn = Object.entries(t.findResources('AWS::Lambda::Function')).find(([id]) => id.startsWith(`CrawlerStages${stage.replace(/-/g, '')}`));
  assert.ok(fn, stage);
  const role = (fn[1].Properties as { Role: { 'Fn::GetAtt': string[] } }).Role['Fn::GetAtt'][0];
  return Object.values(t.findResources('AWS::IAM::Policy') as Record<string, Policy>)
    .filter((p) => p.Properties.Roles.some((r) => r.Ref === role))
    .flatMap((p) => p.Properties.PolicyDocument.Statement)
    .map((s) => ({ actions: [s.Action].flat(), resources: JSON.stringify(s.Resource) }));
}

test('Summarize and Index: an S3 Vectors index, model retries in the workflow, and permissions scoped to the index and the model ids', () => {
  const local = synth({});
  local.hasResourceProperties('AWS::S3Vectors::VectorBucket', { EncryptionConfiguration: { SseType: 'AES256' } });
  local.hasResourceProperties('AWS::S3Vectors::Index', {
    IndexName: 'pages',
    DataType: 'float32',
    Dimension: 512,
    DistanceMetric: 'cosine',
    MetadataConfiguration: { NonFilterableMetadataKeys: ['hash', 'dimension'] },
  });
  const { EXPRESS } = stateMachines(local.toJSON() as Parameters<typeof stateMachines>[0]);
  const states = EXPRESS.definition.States as Record<
    string,
    { Parameters?: Record<string, string>; Retry?: Array<{ ErrorEquals: string[]; MaxAttempts: number }> }
  >;
  for (const name of ['Summarize', 'Index']) {
    assert.deepEqual(states[name]!.Parameters, { 'task.$': '$', 'retry.$': '$$.State.RetryCount' });
    // The model's limit and Lambda's throttle of the capped step share the first retrier: the handler's
    // last model retry gives up gracefully, and one more attempt is left for a throttle that came first.
    const [first] = states[name]!.Retry!;
    assert.deepEqual(first!.ErrorEquals, ['Lambda.TooManyRequestsException', 'ModelThrottled']);
    assert.equal(first!.MaxAttempts, THROTTLE_RETRIES + 1);
    assert.ok(!states[name]!.Retry!.slice(1).some((r) => r.ErrorEquals.includes('Lambda.TooManyRequestsException')));
  }
  const indexGrants = grants(local, 'index-page');
  assert.ok(indexGrants.some((g) => g.actions.includes('s3vectors:PutVectors') && g.resources.includes('IndexArn')));
  assert.ok(!grants(local, 'summarize-page').some((g) => g.actions.includes('s3vectors:PutVectors')), 'Summarize only reads vectors');
  assert.ok(!indexGrants.some((g) => g.actions.some((a) => a.startsWith('bedrock:'))), 'the local provider calls no model');
  local.hasResourceProperties('AWS::Lambda::Function', {
    Environment: { Variables: Match.objectLike({ TRAWL_PROVIDER: 'local', TRAWL_EMBED_DIMENSION: '512', VECTOR_INDEX_NAME: 'pages' }) },
  });

  const schema = { type: 'object', properties: { price: { type: 'number' } }, required: ['price'] };
  const bedrock = synth({
    enrichment: {
      provider: 'bedrock',
      chatModel: 'us.anthropic.claude-3-5-haiku-20241022-v1:0',
      dimension: 1024,
      extractSchema: schema,
      extractPrompt: 'the price',
    },
  });
  bedrock.hasResourceProperties('AWS::S3Vectors::Index', { Dimension: 1024 });
  // The Summarize step reads the crawl's extract schema from its environment, as every setting.
  bedrock.hasResourceProperties('AWS::Lambda::Function', {
    Environment: {
      Variables: Match.objectLike({ TRAWL_PROVIDER: 'bedrock', TRAWL_EXTRACT_SCHEMA: JSON.stringify(schema), TRAWL_EXTRACT_PROMPT: 'the price' }),
    },
  });
  const chat = grants(bedrock, 'summarize-page').filter((g) => g.actions.includes('bedrock:InvokeModel'));
  assert.equal(chat.length, 1);
  assert.match(chat[0]!.resources, /inference-profile\/us\.anthropic\.claude-3-5-haiku-20241022-v1:0/);
  assert.match(chat[0]!.resources, /bedrock:\*::foundation-model\/anthropic\.claude-3-5-haiku-20241022-v1:0/);
  assert.doesNotMatch(chat[0]!.resources, /titan/, 'Summarize may not call the embedding model');
  const embed = grants(bedrock, 'index-page').filter((g) => g.actions.includes('bedrock:InvokeModel'));
  assert.equal(embed.length, 1);
  assert.match(embed[0]!.resources, /foundation-model\/amazon\.titan-embed-text-v2:0/);
  assert.doesNotMatch(embed[0]!.resources, /anthropic|\*/);
  bedrock.hasResourceProperties('AWS::Lambda::Function', {
    ReservedConcurrentExecutions: 4,
    Environment: { Variables: Match.objectLike({ TRAWL_PROVIDER: 'bedrock', TRAWL_EMBED_MODEL: 'amazon.titan-embed-text-v2:0' }) },
  });
  const throttles = Object.values(bedrock.findResources('AWS::CloudWatch::Alarm'))
    .map((a) => a.Properties as { MetricName: string; Threshold: number })
    .filter((a) => a.MetricName === 'Throttles');
  assert.equal(throttles.length, STAGES.length, 'every stage has a throttle alarm');
  assert.equal(
    throttles.filter((a) => a.Threshold === CAPPED_THROTTLES_ALARM).length,
    2,
    'a capped model stage is throttled by design: its alarm waits for sustained throttling',
  );

  const off = synth({ enrichment: false });
  off.resourceCountIs('AWS::S3Vectors::Index', 0);
  const offStates = stateMachines(off.toJSON() as Parameters<typeof stateMachines>[0]).EXPRESS.definition.States as Record<string, unknown>;
  assert.ok(!('Summarize' in offStates) && !('Index' in offStates));
});

test('the search API: a read-only Lambda behind a Function URL with IAM auth, or a public URL that checks an API key by its hash; none with api: false', () => {
  const iam = synth({});
  iam.hasResourceProperties('AWS::Lambda::Url', { AuthType: 'AWS_IAM' });
  iam.hasOutput('*', { Value: { 'Fn::GetAtt': [Match.stringLikeRegexp('searchapi'), 'FunctionUrl'] } });
  const api = grants(iam, 'search-api');
  const actions = api.flatMap((g) => g.actions);
  for (const write of ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:BatchWriteItem', 's3:PutObject', 's3vectors:PutVectors', 's3vectors:DeleteVectors'])
    assert.ok(!actions.includes(write), `the API may not ${write}`);
  assert.ok(actions.includes('dynamodb:Query') && actions.includes('s3:GetObject') && actions.includes('s3vectors:QueryVectors'));

  const sha = 'ab'.repeat(32);
  const open = synth({ api: { auth: 'apiKey', apiKeySha256: sha } });
  open.hasResourceProperties('AWS::Lambda::Url', { AuthType: 'NONE' });
  open.hasResourceProperties('AWS::Lambda::Function', { Environment: { Variables: Match.objectLike({ API_KEY_SHA256: sha, API_KEY_HEADER: 'x-api-key' }) } });
  // A public URL is invoked by anyone: its concurrency is capped.
  open.hasResourceProperties('AWS::Lambda::Function', {
    Environment: { Variables: Match.objectLike({ API_KEY_SHA256: sha }) },
    ReservedConcurrentExecutions: 10,
  });
  synth({ api: { auth: 'apiKey', apiKeySha256: sha, maxConcurrency: 3 } }).hasResourceProperties('AWS::Lambda::Function', {
    Environment: { Variables: Match.objectLike({ API_KEY_SHA256: sha }) },
    ReservedConcurrentExecutions: 3,
  });
  const capped = Object.entries(iam.findResources('AWS::Lambda::Function')).filter(
    ([id, f]) => id.toLowerCase().includes('searchapi') && 'ReservedConcurrentExecutions' in (f as { Properties: object }).Properties,
  );
  assert.equal(capped.length, 0, 'an IAM-authenticated API is not capped');

  synth({ api: false }).resourceCountIs('AWS::Lambda::Url', 0);
  assert.ok(!actions.includes('states:StartExecution'), 'the API starts no crawl unless api.startCrawls says so');
});

test('api.startCrawls: the API may start, read and stop runs of the run machine, nothing more; IAM auth only; its settings checked at synth', () => {
  const t = synth({ api: { startCrawls: { settings: { delayMs: 2000, allowPrivateNetwork: false } } } });
  const api = grants(t, 'search-api');
  const on = (action: string) => api.filter((g) => g.actions.includes(action)).map((g) => g.resources);
  assert.deepEqual(on('states:StartExecution'), [
    JSON.stringify({ Ref: Object.keys(t.findResources('AWS::StepFunctions::StateMachine')).find((id) => id.includes('RunMachine')) }),
  ]);
  assert.equal(on('states:DescribeExecution').length, 1);
  assert.match(on('states:DescribeExecution')[0]!, /execution:/);
  assert.deepEqual(on('dynamodb:UpdateItem'), [JSON.stringify({ 'Fn::GetAtt': [Object.keys(t.findResources('AWS::DynamoDB::Table'))[0], 'Arn'] })]);
  for (const write of ['dynamodb:PutItem', 's3:PutObject', 'states:StopExecution', 'states:ListExecutions'])
    assert.ok(!api.some((g) => g.actions.includes(write)), `the API may not ${write}`);
  t.hasResourceProperties('AWS::Lambda::Function', {
    Environment: {
      Variables: Match.objectLike({ API_CRAWL_SETTINGS: JSON.stringify({ delayMs: 2000, allowPrivateNetwork: false }), RUN_MACHINE_ARN: Match.anyValue() }),
    },
  });
  assert.throws(() => synth({ api: { auth: 'apiKey', apiKeySha256: 'ab'.repeat(32), startCrawls: true } as never }), /api.startCrawls needs api.auth "iam"/);
  assert.throws(() => synth({ api: { startCrawls: { settings: { maxPages: -1 } } } }), /api.startCrawls.settings: setting "maxPages"/);
  assert.throws(() => synth({ api: { startCrawls: { settings: { maxPage: 10 } } } }), /unknown setting "maxPage"/);
  // Server-side caps: the defaults unless given, each checked at synth.
  t.hasResourceProperties('AWS::Lambda::Function', {
    Environment: {
      Variables: Match.objectLike({ API_CRAWL_LIMITS: JSON.stringify({ maxPages: 100_000, maxMinutes: 1440, concurrentRuns: 4, runsPerCaller: 2 }) }),
    },
  });
  synth({ api: { startCrawls: { limits: { maxPages: 500, concurrentRuns: 1 } } } }).hasResourceProperties('AWS::Lambda::Function', {
    Environment: {
      Variables: Match.objectLike({ API_CRAWL_LIMITS: JSON.stringify({ maxPages: 500, maxMinutes: 1440, concurrentRuns: 1, runsPerCaller: 2 }) }),
    },
  });
  assert.throws(
    () => synth({ api: { startCrawls: { limits: { maxMinutes: 20_000 } } } }),
    /api.startCrawls.limits.maxMinutes is 20000; it must be a whole number from 1 to 10080/,
  );
});

test('search and social seeds: InitRun → HasTargets → Discover → the loop, a secret of keys read only by Discover, nothing secret in the environment', () => {
  const withTargets = [{ name: 'watch', schedule: 'rate(1 day)', seeds: ['search:fire sprinkler inspection Minneapolis', 'r/Minneapolis'] }];
  const t = synth({ crawls: withTargets, discovery: { environment: { TRAWL_SEARXNG_URL: 'https://searx.example/' } } });
  const { STANDARD } = stateMachines(t.toJSON() as Parameters<typeof stateMachines>[0]);
  const states = STANDARD.definition.States as Record<string, { Next?: string; Default?: string; Choices?: Array<{ Next: string }>; TimeoutSeconds?: number }>;
  assert.equal(states.InitRun!.Next, 'Started');
  assert.equal(states.Started!.Default, 'HasTargets');
  assert.equal(states.HasTargets!.Choices![0]!.Next, 'Discover');
  assert.equal(states.HasTargets!.Default, 'WaitForProgress');
  assert.equal(states.Discover!.Next, 'WaitForProgress');
  assert.equal(states.Discover!.TimeoutSeconds, 600);
  t.resourceCountIs('AWS::SecretsManager::Secret', 1);
  t.hasResourceProperties('AWS::SecretsManager::Secret', { SecretString: '{}' });
  t.hasOutput('*', { Value: { Ref: Match.stringLikeRegexp('CrawlerDiscoveryKeys') } });
  const discover = grants(t, 'discover-targets');
  assert.ok(discover.some((g) => g.actions.includes('secretsmanager:GetSecretValue') && g.resources.includes('CrawlerDiscoveryKeys')));
  assert.ok(
    discover.some((g) => g.actions.includes('sqs:SendMessage')),
    'Discover sends the seeds and the links',
  );
  for (const other of ['init-run', 'fetch-worker', 'extract-page', 'search-api'])
    assert.ok(!grants(t, other).some((g) => g.actions.includes('secretsmanager:GetSecretValue')), `${other} cannot read the keys`);
  const fns = Object.entries(t.findResources('AWS::Lambda::Function')).map(([id, f]) => [
    id,
    JSON.stringify((f.Properties as { Environment?: unknown }).Environment ?? {}),
  ]);
  const [, env] = fns.find(([id]) => id!.startsWith('CrawlerStagesdiscovertargets'))!;
  assert.match(env!, /TARGETS_SECRET_ARN/);
  assert.match(env!, /"TRAWL_SEARXNG_URL":"https:\/\/searx.example\/"/);
  assert.ok(!fns.some(([, e]) => /API_KEY|APIFY_TOKEN/.test(e!)), 'no key in any environment');

  // No search or social seed: no secret (it would cost a month's fee for nothing); the Choice skips Discover.
  synth({}).resourceCountIs('AWS::SecretsManager::Secret', 0);
  // A secret of the team's own is used instead of a new one.
  const own = synth({ crawls: withTargets }, (stack) => ({
    discovery: { existingSecretObj: secretsmanager.Secret.fromSecretNameV2(stack, 'Keys', 'team/search-keys') },
  }));
  own.resourceCountIs('AWS::SecretsManager::Secret', 0);
  assert.ok(grants(own, 'discover-targets').some((g) => g.actions.includes('secretsmanager:GetSecretValue') && g.resources.includes('team/search-keys')));
});

test('webhooks: each receiver an API destination behind a rule on the bus, with a key from a secret, retries and dead letters; bad receivers fail synthesis', () => {
  const t = synth({
    webhooks: [
      { url: 'https://hooks.example.com/trawl' },
      { url: 'https://ops.example.com/in', events: ['trawl.crawl.failed'], header: 'x-ops-key', rateLimitPerSecond: 2 },
    ],
  });
  t.resourceCountIs('AWS::Events::ApiDestination', 2);
  t.hasResourceProperties('AWS::Events::ApiDestination', {
    InvocationEndpoint: 'https://hooks.example.com/trawl',
    HttpMethod: 'POST',
    InvocationRateLimitPerSecond: 10,
  });
  t.hasResourceProperties('AWS::Events::ApiDestination', { InvocationEndpoint: 'https://ops.example.com/in', InvocationRateLimitPerSecond: 2 });
  t.hasResourceProperties('AWS::Events::Connection', {
    AuthorizationType: 'API_KEY',
    AuthParameters: { ApiKeyAuthParameters: Match.objectLike({ ApiKeyName: 'x-ops-key' }) },
  });
  const bus = Object.keys(t.findResources('AWS::Events::EventBus'))[0]!;
  t.hasResourceProperties('AWS::Events::Rule', {
    EventBusName: { Ref: bus },
    EventPattern: { source: ['trawl'], 'detail-type': ['trawl.crawl.started', 'trawl.crawl.finished', 'trawl.crawl.failed', 'trawl.page.changed'] },
    Targets: [Match.objectLike({ DeadLetterConfig: Match.anyValue(), RetryPolicy: { MaximumEventAgeInSeconds: 86_400, MaximumRetryAttempts: 185 } })],
  });
  t.hasResourceProperties('AWS::Events::Rule', { EventBusName: { Ref: bus }, EventPattern: { source: ['trawl'], 'detail-type': ['trawl.crawl.failed'] } });
  t.resourceCountIs('AWS::SecretsManager::Secret', 2);
  assert.equal(Object.keys(t.findOutputs('*')).filter((k) => /Webhook\dSecretArn/.test(k)).length, 2);
  synth({}).resourceCountIs('AWS::Events::ApiDestination', 0);

  assert.throws(
    () => synth({ webhooks: [{ url: 'http://hooks.example.com/' }] }),
    /webhooks\[0\]\.url "http:\/\/hooks.example.com\/" must be an https:\/\/ URL/,
  );
  assert.throws(() => synth({ webhooks: [{ url: 'https://h.example/', events: ['page.stored' as never] }] }), /"page.stored" is not an event of the bus/);
  assert.throws(
    () => synth({ webhooks: [{ url: 'https://h.example/', rateLimitPerSecond: 0 }] }),
    /rateLimitPerSecond is 0; allowed: a whole number from 1 to 300/,
  );
});

const envValues = (t: Template, name: string) =>
  new Set(
    Object.values(t.findResources('AWS::Lambda::Function'))
      .map((f) => (f as { Properties: { Environment?: { Variables?: Record<string, unknown> } } }).Properties.Environment?.Variables?.[name])
      .filter((v) => v !== undefined),
  );

test('extracted/ snapshots are written only where extractedSnapshots asks for them', () => {
  assert.deepEqual([...envValues(synth({}), 'EXTRACTED_SNAPSHOTS')], ['false']);
  assert.deepEqual([...envValues(synth({ extractedSnapshots: true }), 'EXTRACTED_SNAPSHOTS')], ['true']);
});

test('fetch records expire after fetchRetention, and warc/ and extracted/ follow their lifecycle props', () => {
  const fetchDays = (t: Template) => envValues(t, 'FETCH_RETENTION_DAYS');
  const rules = (t: Template) =>
    Object.values(t.findResources('AWS::S3::Bucket'))
      .flatMap(
        (b) => (b as { Properties: { LifecycleConfiguration?: { Rules: Array<Record<string, unknown>> } } }).Properties.LifecycleConfiguration?.Rules ?? [],
      )
      .filter((r) => r.Id === 'warc-files' || r.Id === 'extracted-snapshots');

  const plain = synth({});
  assert.deepEqual([...fetchDays(plain)], ['400']);
  assert.deepEqual(rules(plain), [], 'WARC files and snapshots are kept by default');

  const set = synth({
    fetchRetention: Duration.days(30),
    warcInfrequentAccessAfter: Duration.days(30),
    warcRetention: Duration.days(365),
    extractedRetention: Duration.days(90),
  });
  assert.deepEqual([...fetchDays(set)], ['30']);
  assert.deepEqual(rules(set), [
    { Id: 'warc-files', Prefix: 'warc/', Status: 'Enabled', ExpirationInDays: 365, Transitions: [{ StorageClass: 'STANDARD_IA', TransitionInDays: 30 }] },
    { Id: 'extracted-snapshots', Prefix: 'extracted/', Status: 'Enabled', ExpirationInDays: 90 },
  ]);
});

test('the vector bucket is named by CloudFormation, so a bucket retained by an earlier deployment never collides; functions read the name off its ARN', () => {
  const t = synth({ enrichment: {} });
  const buckets = Object.entries(t.findResources('AWS::S3Vectors::VectorBucket'));
  assert.equal(buckets.length, 1);
  const [id, bucket] = buckets[0]!;
  assert.equal((bucket as { Properties: Record<string, unknown> }).Properties.VectorBucketName, undefined);
  const names = new Set(
    Object.values(t.findResources('AWS::Lambda::Function'))
      .map((f) => (f as { Properties: { Environment?: { Variables?: Record<string, unknown> } } }).Properties.Environment?.Variables?.VECTOR_BUCKET_NAME)
      .filter((v) => v !== undefined)
      .map((v) => JSON.stringify(v)),
  );
  assert.deepEqual([...names], [JSON.stringify({ 'Fn::Select': [1, { 'Fn::Split': ['/', { 'Fn::GetAtt': [id, 'VectorBucketArn'] }] }] })]);
});

test('api.startCrawls.writers reach the search API as the principals that may write', () => {
  const writers = ['arn:aws:iam::123456789012:role/crawl-starter', 'arn:aws:iam::123456789012:user/ops'];
  const t = synth({ api: { startCrawls: { writers } } });
  const values = Object.values(t.findResources('AWS::Lambda::Function'))
    .map((f) => (f as { Properties: { Environment?: { Variables?: Record<string, unknown> } } }).Properties.Environment?.Variables?.API_WRITERS)
    .filter((v) => v !== undefined);
  assert.deepEqual(values, [writers.join(',')]);
  const open = synth({ api: { startCrawls: true } });
  assert.equal(
    Object.values(open.findResources('AWS::Lambda::Function')).some(
      (f) => (f as { Properties: { Environment?: { Variables?: Record<string, unknown> } } }).Properties.Environment?.Variables?.API_WRITERS !== undefined,
    ),
    false,
  );
});

test("a capped model step's page rate is said at synth, with what to raise", () => {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new Stack(app, 'Capped');
  new Crawler(stack, 'Crawler', { crawls, enrichment: { provider: 'bedrock', maxConcurrency: 8 } });
  const infos = Annotations.fromStack(stack).findInfo('*', Match.stringLikeRegexp('enrichment.maxConcurrency 8'));
  assert.equal(infos.length, 1);
  assert.match(String(infos[0]!.entry.data), /about 2\.0–4\.0 pages a second .* Raise maxConcurrency/);
  const local = new Stack(app, 'Local');
  new Crawler(local, 'Crawler', { crawls });
  assert.equal(Annotations.fromStack(local).findInfo('*', Match.stringLikeRegexp('maxConcurrency')).length, 0);
});

test("a crawl's own extract schema in crawls.json needs a Bedrock chat model and is the schema itself, checked at synth", () => {
  const schema = { type: 'object', properties: { price: { type: 'number' } } };
  const withSchema = (extractSchema: unknown) => [{ ...crawls[0]!, limits: { extractSchema, extractPrompt: 'the price' } }];
  assert.doesNotThrow(() => checkCrawlerProps('C', { crawls: withSchema(schema), enrichment: { provider: 'bedrock' } }));
  assert.doesNotThrow(() => checkCrawlerProps('C', { crawls: withSchema(JSON.stringify(schema)), enrichment: { provider: 'bedrock' } }));
  assert.throws(
    () => checkCrawlerProps('C', { crawls: withSchema(schema) }),
    /crawl "docs": limits.extractSchema needs the construct's enrichment with a chat model: write enrichment: \{ provider: "bedrock" \}/,
  );
  assert.throws(() => checkCrawlerProps('C', { crawls: withSchema(schema), enrichment: false }), /needs the construct's enrichment with a chat model/);
  assert.throws(
    () => checkCrawlerProps('C', { crawls: withSchema('schemas/price.json'), enrichment: { provider: 'bedrock' } }),
    /limits.extractSchema is a file name; write the JSON Schema object itself/,
  );
  assert.throws(
    () => checkCrawlerProps('C', { crawls: withSchema({ type: 'object', properties: { price: { type: 'nummber' } } }), enrichment: { provider: 'bedrock' } }),
    /crawl "docs": limits.extractSchema: the extract schema is not a valid JSON Schema/,
  );
});
