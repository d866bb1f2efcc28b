// A run's activity series on the DynamoDB emulator: requests counted where they are made (a fetch
// worker's batch, one write a run and minute), and a commit marked `fetchCounted` not counting its
// fetch again, while the run's counters still count every request once.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { DynamoCrawlStore } from '../../../shared/store/aws/dynamo-store.js';
import { S3BlobStore, S3Objects } from '../../../shared/store/aws/s3-store.js';
import { fetchRecord } from '../../store-records.js';
import { startEmulators, type Emulators } from '../../../support/cloud/emulators.js';

let emu: Emulators;
before(async () => {
  emu = await startEmulators();
});
after(() => emu.stop());

test("a batch's requests are one activity write a run and minute; a commit whose fetch was counted adds to the counters, not the series", async () => {
  const names = await emu.provision('request-activity');
  const blobs = new S3BlobStore(new S3Objects(emu.clients.s3, names.bucket));
  const store = new DynamoCrawlStore(emu.clients.doc, names.table, { blobs });
  const writes: string[] = [];
  const counted = new DynamoCrawlStore(
    {
      send: (command: never) => {
        const c = command as { constructor: { name: string }; input: { Key?: { SK?: string } } };
        if (c.constructor.name === 'UpdateCommand' && String(c.input.Key?.SK).startsWith('ACT#')) writes.push(String(c.input.Key?.SK));
        return emu.clients.doc.send(command);
      },
    } as never,
    names.table,
    { blobs },
  );
  const run = await store.createRun([], {}, 1);
  const minute = 60_000 * 29_000_000;
  await counted.countRequests([
    { runId: run.id, fetchedAt: minute + 1, status: 200, notModified: false },
    { runId: run.id, fetchedAt: minute + 2, status: 304, notModified: true },
    { runId: run.id, fetchedAt: minute + 3, status: 200, notModified: false },
    { runId: run.id, fetchedAt: minute + 60_000, status: 500, notModified: false },
  ]);
  assert.equal(writes.length, 2, 'one write a minute');
  const points = async () => (await store.activity(run.id)).points;
  assert.deepEqual(await points(), [
    { at: minute, requests: 3, ok: 2, unchanged: 1 },
    { at: minute + 60_000, requests: 1, ok: 0, unchanged: 0 },
  ]);

  // The page's commit: its fetch counted by the worker already; a second fetch counted by its commit.
  const base = { runId: run.id, state: 'done' as const, attempts: 1 };
  await counted.commitFetch({ ...base, urlId: 'p1', fetch: fetchRecord({ runId: run.id, urlId: 'p1', fetchedAt: minute + 4 }), fetchCounted: true });
  await counted.commitFetch({ ...base, urlId: 'p2', fetch: fetchRecord({ runId: run.id, urlId: 'p2', fetchedAt: minute + 5 }) });
  assert.equal(writes.length, 3);
  assert.deepEqual((await points())[0], { at: minute, requests: 4, ok: 3, unchanged: 1 });
  assert.equal((await store.summary(run.id)).requests, 2, 'the run’s counters count both commits’ fetches');
});
