// The IAM contract's evaluator (support/cloud/iam.ts) against the synthesized template: the calls
// the handlers make are allowed by their own roles, and a template with one grant removed denies
// the call that needed it, naming the function, the action and the resource.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { allowed, checkCalls, iamOf, impliedKmsCalls, policiesByFunction, type SdkCall } from '../../support/cloud/iam.js';
import { synthApp, type Synthesized } from '../../support/synth.js';

let synth: Synthesized;
let keyed: Synthesized;
before(() => {
  synth = synthApp({ bundle: false });
  keyed = synthApp({ bundle: false, context: { customerManagedKeys: true } });
});
after(() => {
  synth?.cleanup();
  keyed?.cleanup();
});

const env = {
  TABLE_NAME: 'crawl',
  BUCKET_NAME: 'archive',
  QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/123456789012/frontier.fifo',
  EVENT_BUS_NAME: 'crawl-events',
};
const bus = 'arn:aws:events:us-east-1:123456789012:event-bus/crawl-events';
const table = 'arn:aws:dynamodb:us-east-1:123456789012:table/crawl';
const calls: SdkCall[] = [
  { fn: 'index-page', action: 'dynamodb:DeleteItem', resource: table },
  { fn: 'index-page', action: 'dynamodb:PutItem', resource: table },
  { fn: 'fetch-worker', action: 'dynamodb:UpdateItem', resource: table },
  { fn: 'fetch-worker', action: 's3:PutObject', resource: 'arn:aws:s3:::archive/warc/run-1/a.warc.gz' },
  { fn: 'search-api', action: 'dynamodb:Query', resource: `${table}/index/inlinks` },
  { fn: 'extract-page', action: 'sqs:SendMessage', resource: 'arn:aws:sqs:us-east-1:123456789012:frontier.fifo' },
  { fn: 'search-api', action: 's3:ListBucket', resource: 'arn:aws:s3:::archive' },
  { fn: 'finalize-run', action: 'dynamodb:Scan', resource: table },
  { fn: 'init-run', action: 'events:PutEvents', resource: bus },
  { fn: 'finalize-run', action: 'events:PutEvents', resource: bus },
];

test('SDK commands map to the IAM actions and ARNs a role must allow', () => {
  assert.deepEqual(iamOf('DynamoDB', 'DeleteCommand', { TableName: 'crawl' }), { action: 'dynamodb:DeleteItem', resources: [table] });
  assert.deepEqual(iamOf('DynamoDB', 'QueryCommand', { TableName: 'crawl', IndexName: 'inlinks' }).resources, [`${table}/index/inlinks`]);
  assert.deepEqual(iamOf('S3', 'ListObjectsV2Command', { Bucket: 'archive' }), { action: 's3:ListBucket', resources: ['arn:aws:s3:::archive'] });
  assert.deepEqual(iamOf('SQS', 'SendMessageBatchCommand', { QueueUrl: env.QUEUE_URL }).action, 'sqs:SendMessage');
  assert.deepEqual(iamOf('EventBridge', 'PutEventsCommand', { Entries: [{ EventBusName: 'crawl-events' }] }), { action: 'events:PutEvents', resources: [bus] });
  assert.equal(allowed([{ Effect: 'Allow', Action: ['dynamodb:*'], Resource: [`${table}*`] }], 'dynamodb:GetItem', table), true);
  assert.equal(
    allowed(
      [
        { Effect: 'Allow', Action: '*', Resource: '*' },
        { Effect: 'Deny', Action: 'dynamodb:DeleteItem', Resource: '*' },
      ],
      'dynamodb:DeleteItem',
      table,
    ),
    false,
    'an explicit deny wins',
  );
});

test("each function's calls are allowed by its own role; the search API's role writes nothing", () => {
  assert.deepEqual(checkCalls(synth.template, calls, env).denied, []);
  const api = policiesByFunction(synth.template, env).get('search-api')!;
  assert.equal(allowed(api, 'dynamodb:PutItem', table), false);
  assert.equal(allowed(api, 's3:PutObject', 'arn:aws:s3:::archive/x'), false);
  assert.equal(allowed(api, 'events:PutEvents', bus), false, 'only InitRun and FinalizeRun tell the bus');
  const progress = policiesByFunction(synth.template, env).get('run-progress')!;
  assert.equal(allowed(progress, 'dynamodb:Scan', table), false, 'run-progress scans nothing');
});

test('a template with one grant removed denies the call that needed it, naming the function', () => {
  const template = JSON.parse(JSON.stringify(synth.template)) as Synthesized['template'];
  for (const [id, r] of Object.entries(template.Resources)) {
    if (r.Type !== 'AWS::IAM::Policy' || !/indexpage/i.test(id)) continue;
    const doc = r.Properties.PolicyDocument as { Statement: Array<{ Action: string | string[] }> };
    for (const st of doc.Statement) if (Array.isArray(st.Action)) st.Action = st.Action.filter((a) => a !== 'dynamodb:DeleteItem');
  }
  const file = join(synth.outdir, 'without-delete.json');
  writeFileSync(file, JSON.stringify(template));
  process.env.TRAWL_IAM_TEMPLATE = file;
  try {
    const report = checkCalls(synth.template, calls, env);
    assert.deepEqual(
      report.denied.map((d) => d.why),
      [`index-page's role does not allow dynamodb:DeleteItem on ${table}`],
    );
  } finally {
    delete process.env.TRAWL_IAM_TEMPLATE;
  }
});

test('under customer-managed keys each call implies the KMS call AWS makes as the role, and every role that touches the bucket or table may make it', () => {
  const put: SdkCall = { fn: 'fetch-worker', action: 's3:PutObject', resource: 'arn:aws:s3:::archive/warc/run-1/a.warc.gz' };
  const get: SdkCall = { fn: 'search-api', action: 's3:GetObject', resource: 'arn:aws:s3:::archive/extracted/a.json' };
  const item: SdkCall = { fn: 'run-progress', action: 'dynamodb:GetItem', resource: table };
  assert.deepEqual(impliedKmsCalls(synth.template, put, env), [], 'no key, no KMS call');
  const [write] = impliedKmsCalls(keyed.template, put, env);
  const [read] = impliedKmsCalls(keyed.template, get, env);
  const [tableRead] = impliedKmsCalls(keyed.template, item, env);
  assert.equal(write?.action, 'kms:GenerateDataKey');
  assert.equal(read?.action, 'kms:Decrypt');
  assert.equal(tableRead?.action, 'kms:Decrypt');
  assert.match(write!.resource, /^arn:aws:kms:us-east-1:123456789012:key\/BucketKey/);
  assert.match(tableRead!.resource, /^arn:aws:kms:us-east-1:123456789012:key\/TableKey/);
  const report = checkCalls(keyed.template, [...calls, put, get, item], env, { only: 'kms' });
  assert.deepEqual(report.denied, []);
  assert.ok(report.checked >= 3);
  // The fetch worker's grant on the bucket's key taken away: its writes would be denied, and the check says so.
  const template = JSON.parse(JSON.stringify(keyed.template)) as Synthesized['template'];
  for (const [id, r] of Object.entries(template.Resources)) {
    if (r.Type !== 'AWS::IAM::Policy' || !/fetchworker/i.test(id)) continue;
    const doc = r.Properties.PolicyDocument as { Statement: Array<{ Action: string | string[] }> };
    for (const st of doc.Statement) if (Array.isArray(st.Action)) st.Action = st.Action.filter((a) => !a.startsWith('kms:GenerateDataKey'));
  }
  const file = join(keyed.outdir, 'without-data-key.json');
  writeFileSync(file, JSON.stringify(template));
  process.env.TRAWL_IAM_TEMPLATE = file;
  try {
    assert.deepEqual(
      checkCalls(keyed.template, [put], env, { only: 'kms' }).denied.map((d) => d.why),
      [`fetch-worker's role does not allow kms:GenerateDataKey on ${write!.resource}`],
    );
  } finally {
    delete process.env.TRAWL_IAM_TEMPLATE;
  }
});
