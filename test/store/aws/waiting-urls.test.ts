// URLs found on a page wait for their host's turn in one batch item a host; a turn that reaches the
// batch admits its URLs as URL items. Runs the DynamoDB store on dynalite.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { DynamoCrawlStore } from '../../../shared/store/aws/dynamo-store.js';
import { forgetSeenUrls } from '../../../shared/store/aws/dynamo-waiting.js';
import { S3BlobStore, S3Objects } from '../../../shared/store/aws/s3-store.js';
import { row } from '../../store-records.js';
import { frontierRow } from '../../../support/helpers.js';
import { startEmulators, type Emulators } from '../../../support/cloud/emulators.js';

let emu: Emulators;
before(async () => {
  emu = await startEmulators();
});
after(() => emu.stop());

const found = (runId: number, host: string, id: string, priority: number, from: string) =>
  frontierRow({ runId, urlId: id, url: `http://${host}/${id}`, priority, depth: 1, discoveredFrom: from });

test('URLs found on a page wait in one item a host, are admitted in queue order when a turn reaches them, and are counted once', async () => {
  const names = await emu.provision('waiting');
  const store = new DynamoCrawlStore(emu.clients.doc, names.table, { blobs: new S3BlobStore(new S3Objects(emu.clients.s3, names.bucket)) });
  const items = async (type: string) => ((await emu.clients.doc.send(new ScanCommand({ TableName: names.table }))).Items ?? []).filter((i) => i.type === type);
  const run = await store.createRun(['http://a.test/'], {}, 1);
  await store.addUrls([row(run.id, 'p0'), row(run.id, 'p1')]);
  const first = [1, 5, 3, 2, 4].map((p, i) => found(run.id, 'a.test', `u${i + 1}`, p, 'p0'));
  const added = await store.commitFetch({
    runId: run.id,
    urlId: 'p0',
    state: 'done',
    attempts: 1,
    discovered: [...first, found(run.id, 'b.test', 'v1', 1, 'p0')],
  });
  assert.deepEqual(added.sort(), ['u1', 'u2', 'u3', 'u4', 'u5', 'v1']);
  assert.equal(await store.addHostWork(run.id, 'a.test', 5, 1).then(Boolean), true);

  // One item for a.test's five; b.test's one URL is an item of its own at once (a batch of one would cost as much).
  assert.deepEqual(
    (await items('WAITING')).map((i) => [i.host, i.count]),
    [['a.test', 5]],
  );
  assert.deepEqual((await items('URL')).map((i) => i.urlId).sort(), ['p0', 'p1', 'v1']);
  assert.deepEqual([(await store.runProgress(run.id))?.enqueued, (await store.summary(run.id)).urlsByState.queued], [8, 7]);
  assert.ok((await store.seenUrls(run.id)).some((u) => u.urlId === 'u4' && u.state === 'queued'));
  assert.equal((await store.queuedUrls(run.id)).length, 7);
  const pending = (await Promise.all(Array.from({ length: await store.runShards(run.id) }, (_, k) => store.pendingUrls(run.id, k, 100)))).flatMap(
    (p) => p.urls,
  );
  assert.deepEqual(
    pending.filter((u) => u.urlId.startsWith('WAIT#')).map((u) => [u.host, u.state]),
    [['a.test', 'queued']],
    'a waiting batch is its host work for the stall path',
  );

  // A redelivered commit puts nothing again; another worker (no cache) finding u3 again, u6 and u7 puts a second batch.
  forgetSeenUrls();
  assert.deepEqual(await store.commitFetch({ runId: run.id, urlId: 'p0', state: 'done', attempts: 1, discovered: first }), []);
  const again = await store.commitFetch({
    runId: run.id,
    urlId: 'p1',
    state: 'done',
    attempts: 1,
    discovered: [found(run.id, 'a.test', 'u3', 3, 'p1'), found(run.id, 'a.test', 'u6', 0, 'p1'), found(run.id, 'a.test', 'u7', -1, 'p1')],
  });
  assert.deepEqual(again.sort(), ['u3', 'u6', 'u7']);
  await store.addHostWork(run.id, 'a.test', 3, 2);
  assert.equal((await store.runProgress(run.id))?.enqueued, 11);

  // The turn reads the queue: both batches are at its head, so both are admitted; the URLs come in priority order.
  const next = await store.nextQueued(run.id, 'a.test', 8);
  assert.deepEqual(
    next.map((q) => q.urlId),
    ['u2', 'u5', 'u3', 'u4', 'u1', 'u6', 'u7'],
  );
  assert.deepEqual((await items('URL')).map((i) => i.urlId).sort(), ['p0', 'p1', 'u1', 'u2', 'u3', 'u4', 'u5', 'u6', 'u7', 'v1']);
  assert.deepEqual(
    (await items('WAITING')).map((i) => i.state),
    ['admitted', 'admitted'],
  );
  // u3, found twice, is counted once: in the run and at its host.
  assert.equal((await store.runProgress(run.id))?.enqueued, 10);
  assert.equal((await store.summary(run.id)).urlsByState.queued, 8);
  assert.equal((await store.hostTurn(run.id, 'a.test'))?.queued, 7);
  assert.equal((await store.queuedUrls(run.id)).length, 8);

  // Read again, the queue holds the same URLs and nothing is admitted twice.
  assert.deepEqual(
    (await store.nextQueued(run.id, 'a.test', 3)).map((q) => q.urlId),
    ['u2', 'u5', 'u3'],
  );
  assert.equal((await store.runProgress(run.id))?.enqueued, 10);
});
