// The fetch worker's Lambda handler on the emulators: Powertools' FIFO batch processing, message
// validation, malformed messages dead-lettered with their reason, hand-backs as item failures.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { handler } from '../../functions/fetch-worker/index.js';
import { startEmulators, type Emulators } from '../../support/cloud/emulators.js';
import { cloudEnvironment } from '../../support/cloud/harness.js';
import { frontierRow } from '../../support/helpers.js';

let emu: Emulators;
let names: Awaited<ReturnType<Emulators['provision']>>;
before(async () => {
  emu = await startEmulators();
  names = await emu.provision('fetch-handler');
  cloudEnvironment(emu, names, 'http://127.0.0.1:9');
  process.env.DEAD_LETTER_QUEUE_URL = names.dlqUrl;
});
after(async () => {
  delete process.env.DEAD_LETTER_QUEUE_URL;
  await emu.stop();
});

const record = (id: string, body: string, group: string): SQSRecord => ({
  messageId: id,
  receiptHandle: `r-${id}`,
  body,
  md5OfBody: '',
  messageAttributes: {},
  eventSource: 'aws:sqs',
  eventSourceARN: names.queueArn,
  awsRegion: 'us-east-1',
  attributes: { ApproximateReceiveCount: '1', SentTimestamp: '0', SenderId: 'test', ApproximateFirstReceiveTimestamp: '0', MessageGroupId: group },
});

test('a malformed message is dead-lettered with its reason and deleted: it neither fails the batch nor holds its group', async () => {
  const event: SQSEvent = {
    Records: [record('m1', 'not json at all', 'a.test'), record('m2', JSON.stringify({ runId: 'one', url: 'ftp://x' }), 'b.test')],
  };
  const res = await handler(event, { getRemainingTimeInMillis: () => 120_000 });
  assert.deepEqual(res.batchItemFailures, []);
  const dead = await emu.clients.sqs.send(
    new ReceiveMessageCommand({ QueueUrl: names.dlqUrl, MaxNumberOfMessages: 10, AttributeNames: ['All'], MessageAttributeNames: ['All'] }),
  );
  const got = (dead.Messages ?? []).map((m) => [m.Body, m.Attributes?.MessageGroupId, m.MessageAttributes?.reason?.StringValue]);
  assert.deepEqual(got.map((g) => g[1]).sort(), ['a.test', 'b.test']);
  assert.match(String(got.find((g) => g[1] === 'a.test')![2]), /malformed frontier message: the body is not JSON/);
  assert.match(String(got.find((g) => g[1] === 'b.test')![2]), /malformed frontier message: runId: /);
});

test('a message of a run that does not exist is dropped, not retried', async () => {
  const body = JSON.stringify(frontierRow({ runId: 424242, urlId: '0'.repeat(32), url: 'http://a.test/' }));
  const res = await handler({ Records: [record('m3', body, 'a.test')] }, { getRemainingTimeInMillis: () => 120_000 });
  assert.deepEqual(res.batchItemFailures, []);
});
