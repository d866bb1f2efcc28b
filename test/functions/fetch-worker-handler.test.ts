// The fetch worker's Lambda handler on the emulators: Powertools' FIFO batch processing, message
// validation, malformed messages dead-lettered with their reason, hand-backs as item failures, one
// WARC object a batch uploaded before its pages' workflows start.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { handler } from '../../functions/fetch-worker/index.js';
import { startEmulators, type Emulators } from '../../support/cloud/emulators.js';
import { cloudEnvironment } from '../../support/cloud/harness.js';
import { frontierRow, serve } from '../../support/helpers.js';
import { createLogger } from '../../shared/log/logger.js';
import { withRun, type CloudDeps } from '../../shared/pipeline/cloud/cloud-context.js';
import { queueAtHosts } from '../../shared/pipeline/cloud/cloud-commit.js';
import { DynamoCrawlStore } from '../../shared/store/aws/dynamo-store.js';
import { S3BlobStore, S3Objects } from '../../shared/store/aws/s3-store.js';
import { archiveKeys } from '../../shared/ports/archive-keys.js';
import type { HostTurn } from '../../shared/ports/index.js';
import { urlId } from '../../shared/url/canonical.js';

let emu: Emulators;
let names: Awaited<ReturnType<Emulators['provision']>>;
/** Step Functions' StartExecution on the wire: each start's input, and the run's WARC objects in S3 when it came. */
const starts: Array<{ input: { row: { url: string }; warc?: { file: string } }; warcObjects: string[] }> = [];
let sfn: { origin: string; close: () => Promise<void> };
let objects: S3Objects;
before(async () => {
  emu = await startEmulators();
  names = await emu.provision('fetch-handler');
  objects = new S3Objects(emu.clients.s3, names.bucket);
  sfn = await serve((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      void (async () => {
        const input = JSON.parse(String((JSON.parse(body) as { input: string }).input));
        // A page at /refused is refused as Step Functions refuses a start it throttles.
        if (new URL(input.row.url).pathname === '/refused')
          return res
            .writeHead(400, { 'content-type': 'application/x-amz-json-1.0' })
            .end(JSON.stringify({ __type: 'ThrottlingException', message: 'Rate exceeded' }));
        const warcObjects = (await objects.list(archiveKeys.warc(input.row.runId, ''))).map((o) => o.key);
        starts.push({ input, warcObjects });
        res
          .writeHead(200, { 'content-type': 'application/x-amz-json-1.0' })
          .end(JSON.stringify({ executionArn: 'arn:aws:states:us-east-1:123456789012:execution:page:x', startDate: 0 }));
      })();
    });
  });
  cloudEnvironment(emu, names, sfn.origin);
  process.env.DEAD_LETTER_QUEUE_URL = names.dlqUrl;
});
after(async () => {
  delete process.env.DEAD_LETTER_QUEUE_URL;
  await sfn.close();
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

test("a batch's turns write one WARC object a run, uploaded before the workflows of the pages they fetched start; a page refused a start goes back to its host's queue", async () => {
  const page = (req: { url?: string }, res: import('node:http').ServerResponse) =>
    req.url === '/robots.txt'
      ? res.writeHead(404).end()
      : res.writeHead(200, { 'content-type': 'text/html' }).end(`<title>${req.url}</title><p>The page at ${req.url}.</p>`);
  const sites = [await serve(page), await serve(page)];
  try {
    const blobs = new S3BlobStore(objects);
    const store = new DynamoCrawlStore(emu.clients.doc, names.table, { blobs });
    const sent: HostTurn[] = [];
    const deps: CloudDeps = {
      store,
      blobs,
      objects,
      frontier: { sendTurns: async (t: HostTurn[]) => void sent.push(...t) } as never,
      logger: createLogger('silent'),
    };
    const run = await store.createRun(
      sites.map((s) => `${s.origin}/`),
      { allowPrivateNetwork: true, delayMs: 0 },
      Date.now(),
    );
    const rows = [...sites, sites[0]!].map((s, i) => {
      const url = `${s.origin}/${i === 2 ? 'refused' : 'a'}`;
      return frontierRow({ runId: run.id, urlId: urlId(url), url, host: new URL(s.origin).host, priority: i === 2 ? 0 : 1 });
    });
    await store.addUrls(rows);
    await withRun(deps, run.id, (ctx) => queueAtHosts(ctx, rows));
    assert.equal(sent.length, 2, 'each host got a turn');
    const refused = rows[2]!;
    starts.length = 0;
    const event: SQSEvent = { Records: sent.map((t, i) => record(`t${i}`, JSON.stringify(t), t.host)) };
    const res = await handler(event, { getRemainingTimeInMillis: () => 120_000 });
    assert.deepEqual(res.batchItemFailures, []);
    const warcs = (await objects.list(archiveKeys.warc(run.id, ''))).map((o) => o.key);
    assert.equal(warcs.length, 1, `one WARC object for the batch: ${warcs.join(', ')}`);
    assert.deepEqual(
      starts.map((s) => new URL(s.input.row.url).pathname),
      ['/a', '/a'],
    );
    for (const start of starts) {
      assert.deepEqual(start.warcObjects, warcs, 'the object was in S3 when the workflow started');
      assert.ok(warcs[0]!.endsWith(`/${start.input.warc?.file}`), JSON.stringify(start.input.warc));
    }
    // The page whose start was throttled is queued again, one attempt spent, its fetch on record with why.
    const back = await store.getUrl(run.id, refused.urlId);
    assert.deepEqual([back?.state, back?.attempts], ['queued', 1]);
    const history = await store.fetchHistory(refused.urlId);
    assert.match(history[0]?.error ?? '', /processing deferred: ThrottlingException/);
  } finally {
    await Promise.all(sites.map((s) => s.close()));
  }
});
