import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WorkQueue } from '../../shared/pipeline/embedded/work-queue.js';

/** A task that runs until its test releases it. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

test('runs at most `concurrency` tasks at once, in the order pushed, and is full at maxItems', async () => {
  const started: number[] = [];
  const gates = [gate(), gate(), gate()];
  let done = 0;
  const q = new WorkQueue(
    { concurrency: 2, maxItems: 3, maxBytes: Infinity },
    (err) => assert.fail(String(err)),
    () => done++,
  );
  gates.forEach((g, i) =>
    q.push(async () => {
      started.push(i);
      await g.opened;
    }),
  );
  assert.deepEqual(started, [0, 1]);
  assert.equal(q.size, 3);
  assert.ok(q.full());
  gates[1]!.open();
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(started, [0, 1, 2], 'a freed slot starts the next task');
  assert.equal(done, 1);
  assert.ok(!q.full());
  gates[0]!.open();
  gates[2]!.open();
  await q.idle();
  assert.equal(q.size, 0);
  assert.equal(done, 3);
});

test('is full at maxBytes of held bodies, and frees them when their task ends', async () => {
  const g = gate();
  const q = new WorkQueue({ concurrency: 1, maxItems: 100, maxBytes: 1000 }, (err) => assert.fail(String(err)));
  q.push(() => g.opened, 600);
  assert.ok(!q.full());
  q.push(async () => {}, 600);
  assert.ok(q.full(), '1,200 bytes held');
  g.open();
  await q.idle();
  assert.ok(!q.full());
});

test('a task that throws is reported and does not stop the queue; idle() resolves at once when empty', async () => {
  const errors: unknown[] = [];
  const q = new WorkQueue({ concurrency: 1, maxItems: 10, maxBytes: Infinity }, (err) => errors.push(err));
  await q.idle();
  let ran = false;
  q.push(async () => {
    throw new Error('boom');
  });
  q.push(async () => {
    ran = true;
  });
  await q.idle();
  assert.equal(ran, true);
  assert.deepEqual(
    errors.map((e) => (e as Error).message),
    ['boom'],
  );
});
