// The alarms a team pages on reach an SNS topic given as a prop, and watch what the
// emulators cannot show: Express executions that timed out, DynamoDB throttling, the frontier's
// oldest message.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as sns from 'aws-cdk-lib/aws-sns';
import { Crawler } from '../../lib/crawler.js';
import { FAILED_MESSAGES_ALARM } from '../../lib/observability.js';

test('every alarm sends to the alarm topic, and timeouts, throttling and a stuck frontier have alarms', () => {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new Stack(app, 'Alarms');
  const topic = new sns.Topic(stack, 'Pager');
  new Crawler(stack, 'Crawler', { crawls: [{ name: 'docs', schedule: 'rate(7 days)', seeds: ['https://example.com/'] }], alarmTopic: topic });
  const alarms = Object.values(Template.fromStack(stack).findResources('AWS::CloudWatch::Alarm')) as Array<{
    Properties: { AlarmActions?: Array<{ Ref: string }>; MetricName?: string; Metrics?: unknown[] };
  }>;
  const topicId = stack.resolve(topic.topicArn) as { Ref: string };
  assert.ok(alarms.length > 20);
  for (const a of alarms) assert.deepEqual(a.Properties.AlarmActions, [topicId]);
  const names = alarms.map((a) => a.Properties.MetricName);
  assert.ok(names.includes('ExecutionsTimedOut'));
  assert.ok(names.includes('ApproximateAgeOfOldestMessage'));
  assert.ok(alarms.some((a) => JSON.stringify(a.Properties.Metrics ?? []).includes('WriteThrottleEvents')));
  // Both machines' timeouts (the run's: RunEnded marked its run failed), and every dead-letter queue: the frontier's, the run-endings rule's and the schedules'.
  assert.equal(names.filter((n) => n === 'ExecutionsTimedOut').length, 2);
  assert.equal(names.filter((n) => n === 'ApproximateNumberOfMessagesVisible').length, 3);
  // What the handlers count: enrichment that failed, page steps that failed past their retries, an index out of step.
  const counted = alarms.filter((a) => (a.Properties as { Namespace?: string }).Namespace === 'trawl');
  const byName = (m: string) =>
    counted.filter((a) => a.Properties.MetricName === m).map((a) => (a.Properties as { Dimensions: Array<{ Name: string; Value: string }> }).Dimensions);
  assert.deepEqual(
    byName('EnrichFailures').map((d) => d.find((x) => x.Name === 'function')?.Value),
    ['summarize-page', 'index-page'],
  );
  assert.equal(byName('PageStepsFailed').length, 1);
  assert.equal(byName('PageStartsFailed').length, 1, 'a fetched page whose workflow did not start pages a team');
  assert.equal(byName('IndexInconsistent').length, 1);
  // Fetch-worker turns that failed (handed back after a short back-off) page a team past a threshold.
  const failedTurns = counted.find((a) => a.Properties.MetricName === 'MessagesFailed');
  assert.equal((failedTurns?.Properties as { Threshold?: number } | undefined)?.Threshold, FAILED_MESSAGES_ALARM);
  for (const dims of [...byName('EnrichFailures'), ...byName('PageStepsFailed')]) assert.ok(dims.some((d) => d.Name === 'service' && d.Value === 'trawl'));
});

test("a crawl's schedule retries a start it could not make for an hour, then keeps it in a dead-letter queue", () => {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new Stack(app, 'Schedules');
  const crawler = new Crawler(stack, 'Crawler', { crawls: [{ name: 'docs', schedule: 'rate(7 days)', seeds: ['https://example.com/'] }] });
  const template = Template.fromStack(stack);
  const rule = Object.values(template.findResources('AWS::Events::Rule')).find((r) =>
    String((r as { Properties: { Description?: string } }).Properties.Description).startsWith('trawl crawl "docs"'),
  ) as { Properties: { Targets: Array<{ RetryPolicy?: unknown; DeadLetterConfig?: { Arn: unknown } }> } };
  const [target] = rule.Properties.Targets;
  assert.deepEqual(target!.RetryPolicy, { MaximumEventAgeInSeconds: 3600, MaximumRetryAttempts: 20 });
  assert.deepEqual(target!.DeadLetterConfig?.Arn, stack.resolve(crawler.schedules.deadLetters.queueArn));
});
