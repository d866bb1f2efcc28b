import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HostRenders } from '../../shared/pipeline/embedded/host-renders.js';

/** Takes a slot and records when it was given; `started` lists the names in the order they got one. */
function taker(renders: HostRenders, started: string[]) {
  return (name: string, host: string, exploring?: string) =>
    renders.take(host, exploring).then((release) => {
      started.push(name);
      return release;
    });
}
const tick = () => new Promise((r) => setImmediate(r));

test('pages of kinds that gained render side by side up to the host bound; the next waits for a slot', async () => {
  const started: string[] = [];
  const take = taker(new HostRenders(3), started);
  const [a, b, c] = await Promise.all([take('a', 'h'), take('b', 'h'), take('c', 'h')]);
  const d = take('d', 'h');
  await tick();
  assert.deepEqual(started, ['a', 'b', 'c']);
  b!();
  b!(); // giving a slot back twice frees it once
  await d;
  assert.deepEqual(started, ['a', 'b', 'c', 'd']);
  const e = take('e', 'h');
  await tick();
  assert.equal(started.length, 4, 'still three at once');
  a!();
  await e;
  c!();
  (await d)();
  (await e)();
});

test('one page at a time of a kind not yet shown to gain, and such pages leave a slot to the pages of kinds that did', async () => {
  const started: string[] = [];
  const renders = new HostRenders(4, 3);
  const take = taker(renders, started);
  const shell1 = take('shell 1', 'h', '/shell/:n');
  const shell2 = take('shell 2', 'h', '/shell/:n');
  const hang = take('hang', 'h', '/hang');
  const other = take('other kind', 'h', '/other');
  const gained = take('gained', 'h');
  await tick();
  // Two kinds explored at once (three browser slots, one kept for pages of kinds that gained).
  assert.deepEqual(started, ['shell 1', 'hang', 'gained']);
  (await shell1)();
  await shell2;
  assert.deepEqual(started, ['shell 1', 'hang', 'gained', 'shell 2']);
  (await hang)();
  await other;
  assert.equal(renders.running('h'), 3);
  (await shell2)();
  (await other)();
  (await gained)();
  assert.equal(renders.running('h'), 0);
});

test('hosts have their own slots; one slot in all renders everything one at a time', async () => {
  const started: string[] = [];
  const take = taker(new HostRenders(1), started);
  const a = await take('a', 'one', '/x');
  const b = await take('b', 'two', '/x');
  const c = take('c', 'one');
  await tick();
  assert.deepEqual(started, ['a', 'b']);
  a();
  (await c)();
  b();
});
