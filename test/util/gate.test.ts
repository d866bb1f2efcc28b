import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Gate } from '../../shared/util/gate.js';

test('a gate holds its size at once, hands a slot given up to the first waiter, and counts a release once', async () => {
  const gate = new Gate(2);
  const first = await gate.acquire();
  const second = await gate.acquire();
  const order: string[] = [];
  const third = gate.acquire().then((release) => (order.push('third'), release));
  const fourth = gate.acquire().then((release) => (order.push('fourth'), release));
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(order, [], 'both wait while two slots are held');
  assert.equal(gate.holders, 2);
  first();
  first(); // a second call gives up nothing more
  const releaseThird = await third;
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(order, ['third'], 'one slot given up lets one waiter in, the first');
  assert.equal(gate.holders, 2);
  second();
  const releaseFourth = await fourth;
  releaseThird();
  releaseFourth();
  assert.equal(gate.holders, 0);
});

test("a gate's run gives its slot up when the task throws", async () => {
  const gate = new Gate(1);
  await assert.rejects(
    gate.run(async () => {
      throw new Error('task failed');
    }),
    /task failed/,
  );
  assert.equal(gate.holders, 0);
  assert.equal(await gate.run(async () => 7), 7);
});
