// The LocalStack route: what localstack/deploy.sh deploys must be a stack LocalStack can
// create. No Docker here, so the deploy itself is not run (docs/cloud.md says so); this checks the
// template it would send and the files that drive it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../../lib/stages.js';
import { synthApp } from '../../support/synth.js';

/**
 * CloudFormation types LocalStack's community image creates (its resource-provider coverage for the
 * services docker-compose.yml starts). S3 Vectors is not among them (localstack/localstack#13498).
 */
const LOCALSTACK_TYPES = new Set([
  'AWS::CDK::Metadata',
  'AWS::CloudWatch::Alarm',
  'AWS::DynamoDB::Table',
  'AWS::Events::EventBus',
  'AWS::Events::Rule',
  'AWS::IAM::Policy',
  'AWS::IAM::Role',
  'AWS::Lambda::EventSourceMapping',
  'AWS::Lambda::Function',
  'AWS::Lambda::Permission',
  'AWS::Lambda::Url',
  'AWS::Logs::LogGroup',
  'AWS::S3::Bucket',
  'AWS::S3::BucketPolicy',
  'AWS::SNS::Topic',
  'AWS::SNS::TopicPolicy',
  'AWS::SQS::Queue',
  'AWS::SQS::QueuePolicy',
  'AWS::SecretsManager::Secret',
  'AWS::StepFunctions::StateMachine',
  'Custom::S3AutoDeleteObjects',
  'Custom::LogRetention',
]);

test('deploy.sh synthesizes without enrichment and dashboard: no S3 Vectors, only types LocalStack creates', () => {
  const script = readFileSync(join(ROOT, 'localstack', 'deploy.sh'), 'utf8');
  assert.match(script, /cdklocal deploy[^\n]*-c enrichment=false -c dashboard=false/);
  const full = synthApp({ bundle: false });
  const local = synthApp({ bundle: false, context: { enrichment: 'false', dashboard: 'false' } });
  try {
    const types = (s: typeof full) => new Set(Object.values(s.template.Resources).map((r) => r.Type));
    assert.ok(
      [...types(full)].some((t) => t.startsWith('AWS::S3Vectors::')),
      'the default stack has the vector index',
    );
    const unsupported = [...types(local)].filter((t) => !LOCALSTACK_TYPES.has(t));
    assert.deepEqual(unsupported, [], `types LocalStack cannot create: ${unsupported.join(', ')}`);
    const page = Object.values(local.template.Resources).find(
      (r) => r.Type === 'AWS::StepFunctions::StateMachine' && r.Properties.StateMachineType === 'EXPRESS',
    );
    const definition = JSON.stringify(page?.Properties.DefinitionString);
    assert.match(definition, /\\"Extract\\"/);
    assert.doesNotMatch(definition, /\\"(Summarize|Index)\\"/, 'no Summarize or Index step without enrichment');
  } finally {
    full.cleanup();
    local.cleanup();
  }
});

test('a context flag that is not true or false stops synthesis, naming it', () => {
  assert.throws(() => synthApp({ bundle: false, context: { enrichment: 'off' } }), /context enrichment=off: use true or false/);
});

test('the compose file lets arm64 functions run on any host, and the crawl script parses', () => {
  const compose = readFileSync(join(ROOT, 'localstack', 'docker-compose.yml'), 'utf8');
  assert.match(compose, /LAMBDA_IGNORE_ARCHITECTURE=1/);
  execFileSync(process.execPath, ['--check', join(ROOT, 'localstack', 'crawl.mjs')]);
});

test('the compose file starts the service of every type the stack may hold (secrets for search and social keys and webhooks, SNS for alarms)', () => {
  const compose = readFileSync(join(ROOT, 'localstack', 'docker-compose.yml'), 'utf8');
  const services = new Set(/SERVICES=(\S+)/.exec(compose)![1]!.split(','));
  const serviceOf: Record<string, string> = {
    CloudWatch: 'cloudwatch',
    DynamoDB: 'dynamodb',
    Events: 'events',
    IAM: 'iam',
    Lambda: 'lambda',
    Logs: 'logs',
    S3: 's3',
    SNS: 'sns',
    SQS: 'sqs',
    SecretsManager: 'secretsmanager',
    StepFunctions: 'stepfunctions',
  };
  for (const type of LOCALSTACK_TYPES) {
    const [vendor, family] = type.split('::');
    if (vendor !== 'AWS' || family === 'CDK') continue;
    const service = serviceOf[family!];
    assert.ok(service, `no service named for ${type}`);
    assert.ok(services.has(service), `${type} needs ${service} in SERVICES`);
  }
});
