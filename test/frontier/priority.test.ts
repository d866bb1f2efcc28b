import { test } from 'node:test';
import assert from 'node:assert/strict';
import { admissionFloor, ARCHIVED_FIRST, before, defaultPriority, relinkedPriority, resumedPriority, type PriorityFn } from '../../shared/frontier/priority.js';
import { Heap } from '../../shared/frontier/heap.js';
import { HostQueue } from '../../shared/frontier/host-queue.js';
import type { FrontierRow } from '../../shared/ports/index.js';
import { frontierRow } from '../../support/helpers.js';

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

test('relinked: another link adds what the function gives an inlink, and never lowers what an earlier link scored', () => {
  const input = { url: 'https://a.test/page', depth: 2, inlinks: 3, fresh: false };
  // From 2 to 3 inlinks the default function adds 0.05 × (log2 4 − log2 3).
  const gain = defaultPriority(input) - defaultPriority({ ...input, inlinks: 2 });
  assert.ok(gain > 0);
  assert.equal(relinkedPriority(defaultPriority, input, 0), defaultPriority(input), 'a low current priority: the function’s own score');
  assert.equal(
    relinkedPriority(defaultPriority, input, 1.2),
    Math.round((1.2 + gain) * 10_000) / 10_000,
    'a better earlier link keeps its lead, plus the gain',
  );
  // A profile that scores anchors: the new link's weaker anchor does not undo the earlier one's.
  const byAnchor: PriorityFn = (i) => (i.anchor === 'great' ? 2 : 0.5) + 0.01 * i.inlinks;
  assert.equal(relinkedPriority(byAnchor, { ...input, anchor: 'meh' }, 2.02), 2.03);
});

test('resumed: an answer the archive holds goes before every URL the host still has to ask', () => {
  assert.equal(resumedPriority(0.5, false), 0.5);
  assert.ok(resumedPriority(-1, true) > resumedPriority(2, false));
  assert.equal(resumedPriority(0.5, true), 0.5 + ARCHIVED_FIRST);
});

test('a host queue: the higher priority first, then the shallower URL; equal ones are not before each other', () => {
  assert.equal(before({ depth: 5 }, 1, { depth: 0 }, 0.9), true);
  assert.equal(before({ depth: 1 }, 1, { depth: 2 }, 1), true);
  assert.equal(before({ depth: 2 }, 1, { depth: 1 }, 1), false);
  assert.equal(before({ depth: 1 }, 1, { depth: 1 }, 1), false);
});

test('the cloud’s frontier admits from the focused profile’s threshold, and everything without one', () => {
  assert.equal(admissionFloor({ focused: true, profile: { threshold: 0.4 } }), 0.4);
  assert.equal(admissionFloor({ focused: false, profile: { threshold: 0.4 } }), undefined);
});
