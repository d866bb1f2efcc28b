// Quotas and limits as synth-time checks. A crawl whose longest run would pass the
// Standard history quota, or a page workflow whose retries could outlast Express's five minutes,
// fails synthesis naming it; long hosts get a hashed message group; SQS's visibility rule holds.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { App, Duration, Stack } from 'aws-cdk-lib';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { Template } from 'aws-cdk-lib/assertions';
import { Crawler, DEFAULT_SIZING } from '../../lib/crawler.js';
import { RANK_ROUNDS_MAX } from '../../shared/graph/sharded-rank.js';
import { checkRunHistory, EXPRESS_LIMIT_SECONDS, FINALIZE_EVENTS, runHistoryEvents, STANDARD_HISTORY_EVENTS, taskWorstSeconds } from '../../lib/quotas.js';
import { HOST_BUSY_RETRY, PAGE_RETRY } from '../../lib/workflows.js';
import { RENDER_HOST_WAIT_MS } from '../../shared/pipeline/cloud/render-wait.js';
import { CrawlConfigError } from '../../shared/errors.js';
import { FRONTIER_QUEUE, messageGroupId } from '../../shared/store/aws/sqs-frontier.js';

const crawl = (maxMinutes?: number) => ({ name: 'docs', schedule: 'rate(7 days)', seeds: ['https://example.com/'], ...(maxMinutes ? { maxMinutes } : {}) });

test('a week-long run at a one-minute poll would pass the history quota: synthesis says so and what to change', () => {
  assert.ok(runHistoryEvents(24 * 60, 60) < STANDARD_HISTORY_EVENTS, 'the default day-long run fits');
  assert.throws(
    () => checkRunHistory('crawl "docs"', 7 * 24 * 60, 60),
    (e: unknown) => e instanceof CrawlConfigError && /92142 history events.*maxMinutes ≤ 2619 or pollInterval ≥ 231 s/.test(e.message),
  );
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  assert.throws(() => new Crawler(new Stack(app, 'Week'), 'Crawler', { crawls: [crawl(7 * 24 * 60)] }), /crawl "docs": a run of maxMinutes 10080/);
  // With a slower poll the same run fits: six minutes, as every poll may rebuild the text generation (14 events).
  assert.throws(
    () => new Crawler(new Stack(app, 'Five'), 'Crawler', { crawls: [crawl(7 * 24 * 60)], pollInterval: Duration.minutes(5) }),
    /29646 history events/,
  );
  new Crawler(new Stack(app, 'Slow'), 'Crawler', { crawls: [crawl(7 * 24 * 60)], pollInterval: Duration.minutes(6) });
  // Without enrichment the loop has no RebuildText: nine events a poll, and five minutes suffice.
  new Crawler(new Stack(app, 'Plain'), 'Crawler', { crawls: [crawl(7 * 24 * 60)], pollInterval: Duration.minutes(5), enrichment: false });
});

test('a poll that rebuilds the text generation writes 14 events, and crawls started over the API are held to the same quota', () => {
  // The run's end adds its own: its finalize states and up to RANK_ROUNDS_MAX ranking rounds.
  assert.equal(FINALIZE_EVENTS, 20 + 7 * 6 + RANK_ROUNDS_MAX * 13);
  assert.equal(runHistoryEvents(30 * 60, 60, true), 30 * 60 * 14 + 60 + FINALIZE_EVENTS);
  assert.ok(runHistoryEvents(28 * 60, 60, true) < STANDARD_HISTORY_EVENTS);
  assert.ok(runHistoryEvents(30 * 60, 60, true) > STANDARD_HISTORY_EVENTS, 'thirty hours of polls that each rebuild pass the quota');
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  assert.throws(
    () => new Crawler(new Stack(app, 'Api'), 'Crawler', { crawls: [crawl()], api: { startCrawls: { limits: { maxMinutes: 3 * 24 * 60 } } } }),
    (e: unknown) => e instanceof CrawlConfigError && /api\.startCrawls\.limits\.maxMinutes: a run of maxMinutes 4320 .* maxMinutes ≤ 1684/.test(e.message),
  );
  new Crawler(new Stack(app, 'ApiDay'), 'Crawler', { crawls: [crawl()], api: { startCrawls: { limits: { maxMinutes: 24 * 60 } } } });
});

test("the page workflow's longest path fits Express's limit with every retry; a step that would not fits nowhere", () => {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new Stack(app, 'Steps');
  const fn = new lambda.Function(stack, 'Slow', {
    runtime: lambda.Runtime.NODEJS_24_X,
    handler: 'index.handler',
    code: lambda.Code.fromInline('exports.handler=()=>1'),
  });
  assert.throws(
    () => new Crawler(stack, 'Crawler', { crawls: [crawl()], extraPageSteps: [{ name: 'Classify', fn, timeout: Duration.seconds(120) }] }),
    (e: unknown) => e instanceof CrawlConfigError && /longest path can take \d+ s .*Classify 123 s.*past the 300 s/.test(e.message),
  );
  assert.equal(taskWorstSeconds(40, [PAGE_RETRY]), 43);
  assert.ok(EXPRESS_LIMIT_SECONDS === 300);
});

test("Render's budget counts each HostBusy attempt's wait inside the Lambda, and the default path still fits", () => {
  // A render that waits for its host: three attempts that each wait RENDER_HOST_WAIT_MS and fail, 3 + 6 + 12 s
  // between them, then one that renders to its 50 s timeout, plus the throttle retries' 1 + 2 s.
  const render = taskWorstSeconds(50, [PAGE_RETRY, HOST_BUSY_RETRY]);
  assert.equal(render, 50 + 3 + 21 + 3 * (RENDER_HOST_WAIT_MS / 1000));
  // The whole path as the construct checks it: a default stack with rendering and enrichment synthesizes.
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  new Crawler(new Stack(app, 'Default'), 'Crawler', { crawls: [crawl()] });
});

test('the frontier queue hides a message six times the worker timeout; a host past 128 characters gets a hashed group', () => {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new Stack(app, 'Queue');
  new Crawler(stack, 'Crawler', { crawls: [crawl()] });
  const template = Template.fromStack(stack);
  const queues = Object.values(template.findResources('AWS::SQS::Queue')).map(
    (q) => (q as { Properties: { VisibilityTimeout?: number } }).Properties.VisibilityTimeout,
  );
  assert.ok(
    queues.includes(FRONTIER_QUEUE.visibilityTimeoutSeconds) &&
      FRONTIER_QUEUE.visibilityTimeoutSeconds === 6 * DEFAULT_SIZING['fetch-worker'].timeout.toSeconds(),
    JSON.stringify(queues),
  );
  const long = `${'a'.repeat(60)}.${'b'.repeat(60)}.${'c'.repeat(60)}.example`;
  assert.equal(messageGroupId('example.com'), 'example.com');
  assert.ok(messageGroupId(long).length <= 128);
  assert.equal(messageGroupId(long), messageGroupId(long));
  assert.notEqual(messageGroupId(long), messageGroupId(`${long}x`));
});
