import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { CrawlStore, FrontierRow, RunLedger } from '../../shared/ports/index.js';
import { using, type Adapter } from './adapter.js';
import { frontierRow } from '../../support/helpers.js';

const row = (runId: number, id: string, host = 'a.test'): FrontierRow => frontierRow({ runId, urlId: id, url: `http://${host}/${id}` });

/** The behaviour every RunLedger adapter must have: the claims and counters many stateless workers share. */
export function runLedgerContract(name: string, adapter: Adapter<CrawlStore & RunLedger>): void {
  test(`${name}: a host is claimed by one worker at a time, and not before its next allowed time`, () =>
    using(adapter, async (store) => {
      const first = await store.claimHost('a.test', 'w1', 1000, 60_000);
      assert.equal(first.claimed, true);
      assert.deepEqual(await store.claimHost('a.test', 'w2', 1001, 60_000), { claimed: false, readyAt: 0, leased: true });
      await store.releaseHost({ host: 'a.test', nextAllowedAt: 3000, backoffUntil: 5000, backoffStep: 1, consecutiveFailures: 1, crawlDelayMs: 0 }, 'w1');
      assert.deepEqual(await store.claimHost('a.test', 'w2', 4000, 60_000), { claimed: false, readyAt: 5000, leased: false, backedOff: true });
      const later = await store.claimHost('a.test', 'w2', 5000, 60_000);
      assert.ok(later.claimed && later.record.state.backoffUntil === 5000);
      // A crashed worker's lease lapses.
      assert.equal((await store.claimHost('a.test', 'w3', 5000 + 60_001, 60_000)).claimed, true);
    }));

  test(`${name}: a refused claim of a parked host says why, so its URLs can settle at once`, () =>
    using(adapter, async (store) => {
      await store.putHostState({
        host: 'p.test',
        nextAllowedAt: 0,
        backoffUntil: 9e12,
        backoffStep: 0,
        consecutiveFailures: 1,
        crawlDelayMs: 0,
        parkedReason: 'HTTP 429 asked to wait 7200 s',
      });
      assert.deepEqual(await store.claimHost('p.test', 'w1', 1000, 60_000), {
        claimed: false,
        readyAt: 9e12,
        leased: false,
        backedOff: true,
        parkedReason: 'HTTP 429 asked to wait 7200 s',
      });
    }));

  test(`${name}: a URL is claimed once; a lapsed claim can be taken over; a settled URL never`, () =>
    using(adapter, async (store) => {
      const run = await store.createRun([], {}, 1);
      await store.addUrls([row(run.id, 'u')]);
      assert.equal((await store.claimUrl(run.id, 'u', 100, 1000))?.urlId, 'u');
      assert.equal(await store.claimUrl(run.id, 'u', 200, 1000), undefined);
      assert.equal((await store.claimUrl(run.id, 'u', 1101, 1000))?.urlId, 'u');
      await store.commitFetch({ runId: run.id, urlId: 'u', state: 'done', attempts: 1 });
      assert.equal(await store.claimUrl(run.id, 'u', 99_999, 1000), undefined);
      assert.equal(await store.claimUrl(run.id, 'missing', 1, 1000), undefined);
    }));

  test(`${name}: run counters move once per URL; redelivered commits change nothing; deferral counts as settled`, () =>
    using(adapter, async (store) => {
      const run = await store.createRun(['http://a.test/'], {}, 1);
      await store.addUrls([row(run.id, 'a'), row(run.id, 'b'), { ...row(run.id, 'c'), state: 'skipped', reason: 'out-of-scope' }]);
      await store.addUrls([row(run.id, 'a')]);
      const fetch = {
        runId: run.id,
        urlId: 'a',
        url: 'http://a.test/a',
        kind: 'page' as const,
        fetcher: 'http' as const,
        status: 200,
        fetchedAt: 5,
        durationMs: 1,
        bytes: 7,
        truncated: false,
        notModified: false,
      };
      for (let i = 0; i < 2; i++) await store.commitFetch({ runId: run.id, urlId: 'a', state: 'done', attempts: 1, fetch, discovered: [row(run.id, 'd')] });
      assert.deepEqual(await store.runProgress(run.id), { status: 'running', enqueued: 4, settled: 2, pages: 0, startedAt: 1 });
      await store.setUrlStates(run.id, ['b'], 'deferred', 'backed-off', 10_000);
      assert.equal((await store.runProgress(run.id))?.settled, 3);
      const summary = await store.summary(run.id);
      assert.deepEqual([summary.requests, summary.bytes, summary.fetchesByStatus], [1, 7, { 200: 1 }]);
    }));

  test(`${name}: page and per-host budgets are claimed slot by slot`, () =>
    using(adapter, async (store) => {
      const run = await store.createRun([], {}, 1);
      assert.deepEqual(await Promise.all([1, 2, 3].map(() => store.claimPageSlot(run.id, 2))).then((r) => r.filter(Boolean).length), 2);
      await store.releasePageSlot(run.id);
      assert.equal(await store.claimPageSlot(run.id, 2), true);
      assert.equal(await store.claimHostSlot(run.id, 'a.test', 1), true);
      assert.equal(await store.claimHostSlot(run.id, 'a.test', 1), false);
      assert.equal(await store.claimHostSlot(run.id, 'b.test', 1), true);
    }));

  test(`${name}: trap counters are shared by every worker of a run`, () =>
    using(adapter, async (store) => {
      assert.equal(await store.rememberVariant(1, 'calendar:x', '2026-01', 2), true);
      assert.equal(await store.rememberVariant(1, 'calendar:x', '2026-02', 2), true);
      assert.equal(await store.rememberVariant(1, 'calendar:x', '2026-01', 2), true);
      assert.equal(await store.rememberVariant(1, 'calendar:x', '2026-03', 2), false);
      assert.equal(await store.rememberVariant(2, 'calendar:x', '2026-03', 2), true);
    }));
}
