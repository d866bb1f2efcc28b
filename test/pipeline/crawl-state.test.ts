// The embedded run's in-memory state, without a data directory: admission into host queues, the
// inlink bump of a URL linked again, the memory bound that spills a host's URLs to the store, and
// the refill that takes them back.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CrawlState } from '../../shared/pipeline/embedded/crawl-state.js';
import { Admitter, type LinkCandidate } from '../../shared/pipeline/stages/admission.js';
import { canonicalOptionsOf } from '../../shared/pipeline/stages/context.js';
import { defaultSettings } from '../../shared/config/settings.js';
import { defaultPriority } from '../../shared/frontier/priority.js';

const SEED = 'http://a.test/';

function admitter(): Admitter {
  const settings = { ...defaultSettings(), allowPrivateNetwork: true };
  return new Admitter({ runId: 1, scope: [SEED], settings, priority: defaultPriority, canonical: canonicalOptionsOf(settings), clock: () => 0 });
}

const link = (path: string, extra: Partial<LinkCandidate> = {}): LinkCandidate => ({ href: `http://a.test${path}`, depth: 1, kind: 'page', ...extra });

test('admits new URLs once, queues them by host, and raises a queued URL linked again (not for a nofollow link)', () => {
  const state = new CrawlState();
  const a = admitter();
  const first = state.admit(a, defaultPriority, [link('/x'), link('/x'), link('/y'), { href: 'http://elsewhere.test/z', depth: 1, kind: 'page' }]);
  assert.deepEqual(
    first.rows.filter((r) => r.state === 'queued').map((r) => r.url),
    ['http://a.test/x', 'http://a.test/y'],
    'a URL twice in one batch is admitted once',
  );
  assert.equal(first.rows.find((r) => r.url === 'http://elsewhere.test/z')?.reason, 'out-of-scope');
  for (const row of first.rows.filter((r) => r.state === 'queued')) state.enqueue(row);
  assert.equal(state.queuedCount(), 2);
  const x = first.rows.find((r) => r.url === 'http://a.test/x')!;
  const { inlinks, priority } = x;
  const again = state.admit(a, defaultPriority, [link('/x', { from: 'p2' })]);
  assert.equal(again.rows.length, 0, 'a queued URL is not admitted twice');
  assert.equal(again.reprioritized.length, 1);
  assert.equal(again.reprioritized[0]!.inlinks, inlinks + 1);
  assert.ok(again.reprioritized[0]!.priority > priority, 'its priority rises with the inlink');
  assert.deepEqual(state.admit(a, defaultPriority, [link('/x', { nofollow: true })]).reprioritized, [], 'a nofollow link counts for nothing');
});

test('past its share of memory a host spills URLs to the store, and takes them back best first when it runs low', () => {
  const state = new CrawlState(16);
  const a = admitter();
  const { rows } = state.admit(
    a,
    defaultPriority,
    Array.from({ length: 20 }, (_, i) => link(`/p${i}`)),
  );
  for (const row of rows) state.enqueue(row);
  const q = state.hosts.get('a.test')!;
  assert.equal(q.size, 16);
  assert.equal(q.spilled, 4);
  assert.equal(state.queuedCount(), 20);
  const spilled = rows.slice(16);
  assert.ok(spilled.every((r) => state.known.get(r.urlId) === 'spilled'));
  // A spilled URL linked again is left alone: its row is in the store only.
  assert.deepEqual(state.admit(a, defaultPriority, [link('/p19')]).reprioritized, []);
  // The host fetches some, then reads its best stored URLs back: the spilled ones return, others are skipped.
  for (let i = 0; i < 10; i++) q.pop(0);
  state.refill(q, [rows[0]!, ...spilled]);
  assert.equal(q.size, 10);
  assert.equal(q.spilled, 0);
  assert.ok(spilled.every((r) => state.known.get(r.urlId) === 'queued'));
});
