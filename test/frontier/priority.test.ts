import { test } from 'node:test';
import assert from 'node:assert/strict';
import { defaultPriority } from '../../shared/frontier/priority.js';
import { Heap } from '../../shared/frontier/heap.js';
import { HostQueue } from '../../shared/frontier/host-queue.js';
import type { FrontierRow } from '../../shared/store/ports/index.js';
import { frontierRow } from '../helpers.js';

test('scores depth, inlinks, freshness and content-type hints', () => {
  const base = { url: 'http://a.test/page', depth: 0, inlinks: 0, fresh: false };
  assert.equal(defaultPriority(base), 1);
  assert.equal(defaultPriority({ ...base, depth: 3 }), -0.5);
  assert.equal(defaultPriority({ ...base, inlinks: 1 }), 1.05);
  // Inlinks count on a log scale, capped below a level: a popular depth-2 URL never passes a depth-1 one.
  assert.equal(defaultPriority({ ...base, inlinks: 1000 }), 1.15);
  assert.ok(defaultPriority({ ...base, depth: 2, inlinks: 5000, url: 'http://a.test/news/x' }) < defaultPriority({ ...base, depth: 1 }));
  assert.equal(defaultPriority({ ...base, fresh: true }), 1.3);
  assert.equal(defaultPriority({ ...base, url: 'http://a.test/blog/x' }), 1.3);
  assert.equal(defaultPriority({ ...base, url: 'http://a.test/x.pdf' }), 0.7);
  assert.equal(defaultPriority({ ...base, url: 'http://a.test/x.zip' }), 0);
});

test('the heap pops in order', () => {
  const h = new Heap<number>((_a, ka, _b, kb) => ka < kb);
  for (const n of [5, 1, 4, 2, 3, 0, 9]) h.push(n, n);
  const out: number[] = [];
  while (h.size) out.push(h.pop()!);
  assert.deepEqual(out, [0, 1, 2, 3, 4, 5, 9]);
});

function row(id: string, priority: number, notBefore = 0): FrontierRow {
  return frontierRow({ runId: 1, urlId: id, url: `http://a.test/${id}`, depth: 1, priority, notBefore });
}

test('a host queue serves best first, honours notBefore and re-prioritises', () => {
  const q = new HostQueue('a.test', 'http://a.test');
  q.push(row('low', 0.5));
  q.push(row('high', 1.5));
  q.push(row('later', 9, 1000));
  q.push(row('mid', 1));
  q.reprioritize('low', 2);
  assert.deepEqual([q.pop(0)?.urlId, q.pop(0)?.urlId, q.pop(0)?.urlId, q.pop(0)?.urlId], ['low', 'high', 'mid', undefined]);
  assert.equal(q.earliestNotBefore(), 1000);
  assert.equal(q.pop(1000)?.urlId, 'later');
});

test('the heap keeps only what retain accepts, still in order', () => {
  const h = new Heap<number>((_a, ka, _b, kb) => ka < kb);
  for (let n = 0; n < 200; n++) h.push((n * 37) % 200, (n * 37) % 200);
  h.retain((n) => n % 3 === 0);
  const out: number[] = [];
  while (h.size) out.push(h.pop()!);
  assert.deepEqual(
    out,
    Array.from({ length: 67 }, (_, i) => i * 3),
  );
});

test("a host queue's heap stays bounded when its URLs are raised again and again, and empties when drained", () => {
  const q = new HostQueue('a.test', 'http://a.test');
  for (let i = 0; i < 10; i++) q.push(row(`u${i}`, 0));
  // Each raise leaves a stale node; a URL linked from thousands of pages is raised thousands of times.
  for (let step = 1; step <= 1000; step++) for (let i = 0; i < 10; i++) q.reprioritize(`u${i}`, step + i / 100);
  assert.ok(q.heapNodes <= 2 * q.size + 65, `${q.heapNodes} heap nodes for ${q.size} URLs`);
  assert.deepEqual(
    Array.from({ length: 10 }, () => q.pop(0)?.urlId),
    Array.from({ length: 10 }, (_, i) => `u${9 - i}`),
  );
  for (let i = 0; i < 5; i++) q.push(row(`v${i}`, i));
  assert.equal(q.drain().length, 5);
  assert.equal(q.heapNodes, 0);
  assert.equal(q.pop(0), undefined);
});
