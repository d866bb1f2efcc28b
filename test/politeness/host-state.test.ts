import { test } from 'node:test';
import assert from 'node:assert/strict';
import { afterRequest, backoffMs, hostDelayMs, newHostState, readyAt, withCrawlDelay, type PolitenessConfig } from '../../shared/politeness/host-state.js';
import { sleep, timerDelay } from '../../shared/politeness/timers.js';
import { parseRetryAfter } from '../../shared/politeness/retry-after.js';
import { RateLimiter } from '../../shared/politeness/rate-limiter.js';

const cfg: PolitenessConfig = {
  delayMs: 1000,
  backoffBaseMs: 30_000,
  backoffMaxMs: 600_000,
  maxRetryAfterMs: 3600_000,
  maxConsecutiveFailures: 3,
  maxCrawlDelayMs: 60_000,
};

test('waits max(Crawl-delay, delay) after each request', () => {
  const s = newHostState('a.test');
  assert.equal(afterRequest(s, { kind: 'response', status: 200, at: 10_000 }, cfg).nextAllowedAt, 11_000);
  assert.equal(hostDelayMs({ ...s, crawlDelayMs: 5000 }, cfg), 5000);
  assert.equal(hostDelayMs({ ...s, crawlDelayMs: 5000 }, { ...cfg, delayMs: 0 }), 5000);
  assert.equal(hostDelayMs(s, { ...cfg, delayMs: 0 }), 0);
});

test('honours Retry-After on 429 and 503', () => {
  const s = afterRequest(newHostState('a.test'), { kind: 'response', status: 429, retryAfterMs: 120_000, at: 0 }, cfg);
  assert.equal(s.backoffUntil, 120_000);
  assert.equal(readyAt(s), 120_000);
  const t = afterRequest(newHostState('a.test'), { kind: 'response', status: 503, retryAfterMs: 5000, at: 0 }, cfg);
  assert.equal(readyAt(t), 5000);
});

test('backs off exponentially without Retry-After: 30 s doubling up to 10 min', () => {
  assert.deepEqual(
    [0, 1, 2, 3, 4, 5, 6].map((k) => backoffMs(k, cfg)),
    [30_000, 60_000, 120_000, 240_000, 480_000, 600_000, 600_000],
  );
  let s = newHostState('a.test');
  s = afterRequest(s, { kind: 'response', status: 429, at: 0 }, cfg);
  assert.equal(s.backoffUntil, 30_000);
  s = afterRequest(s, { kind: 'response', status: 429, at: 30_000 }, cfg);
  assert.equal(s.backoffUntil, 90_000);
});

test('resets the back-off after a success', () => {
  let s = afterRequest(newHostState('a.test'), { kind: 'response', status: 429, at: 0 }, cfg);
  s = afterRequest(s, { kind: 'response', status: 200, at: 40_000 }, cfg);
  assert.equal(s.backoffStep, 0);
  assert.equal(s.consecutiveFailures, 0);
  assert.equal(readyAt(s), 41_000);
});

test('parks a host that keeps failing, with a reason', () => {
  let s = newHostState('a.test');
  for (let i = 0; i < 3; i++) s = afterRequest(s, { kind: 'response', status: 500, at: i }, cfg);
  assert.match(s.parkedReason ?? '', /3 server errors in a row/);
  let n = newHostState('b.test');
  for (let i = 0; i < 3; i++) n = afterRequest(n, { kind: 'network-error', message: 'ECONNRESET', at: i }, cfg);
  assert.match(n.parkedReason ?? '', /ECONNRESET/);
});

test('parks a host whose Retry-After is beyond the limit', () => {
  const s = afterRequest(newHostState('a.test'), { kind: 'response', status: 429, retryAfterMs: 7200_000, at: 0 }, cfg);
  assert.match(s.parkedReason ?? '', /asked to wait 7200 s/);
});

test('parses Retry-After as seconds or an HTTP date', () => {
  const now = Date.parse('2026-11-23T10:00:00Z');
  assert.equal(parseRetryAfter('120', now), 120_000);
  assert.equal(parseRetryAfter('Mon, 23 Nov 2026 10:00:30 GMT', now), 30_000);
  assert.equal(parseRetryAfter('Mon, 23 Nov 2026 09:00:00 GMT', now), 0);
  assert.equal(parseRetryAfter('soon', now), undefined);
  assert.equal(parseRetryAfter(undefined, now), undefined);
});

test('caps the global request rate with a token bucket', () => {
  const limiter = new RateLimiter(2, 0);
  assert.equal(limiter.tryTake(0), 0);
  assert.equal(limiter.tryTake(0), 0);
  assert.equal(limiter.tryTake(0), 500);
  assert.equal(limiter.tryTake(500), 0);
  assert.equal(new RateLimiter(0, 0).tryTake(0), 0);
});

test('a Crawl-delay above the cap parks the host with the reason; one within it is kept', () => {
  const kept = withCrawlDelay(newHostState('a.test'), 30_000, cfg);
  assert.equal(kept.crawlDelayMs, 30_000);
  assert.equal(kept.parkedReason, undefined);
  for (const asked of [86_400_000, 999_999_999_000, Infinity]) {
    const parked = withCrawlDelay(newHostState('a.test'), asked, cfg);
    assert.match(parked.parkedReason ?? '', /Crawl-delay of .* is above the 60 s cap/);
    assert.ok(parked.crawlDelayMs <= cfg.maxCrawlDelayMs);
  }
});

test('a refused address parks the host at once', () => {
  const s = afterRequest(newHostState('a.test'), { kind: 'refused', message: 'resolves to 10.0.0.1', at: 5 }, cfg);
  assert.match(s.parkedReason ?? '', /address refused: resolves to 10\.0\.0\.1/);
});

test('no timer ever gets an overflowing value', async () => {
  assert.equal(timerDelay(3_000_000_000), 2 ** 31 - 1);
  assert.equal(timerDelay(Infinity), 2 ** 31 - 1);
  assert.equal(timerDelay(-5), 0);
  assert.equal(timerDelay(Number.NaN), 0);
  const warnings: string[] = [];
  const onWarning = (w: Error) => warnings.push(w.name);
  process.on('warning', onWarning);
  const timer = setTimeout(() => {}, timerDelay(1e12));
  clearTimeout(timer);
  await sleep(1);
  await new Promise((r) => setImmediate(r));
  process.off('warning', onWarning);
  assert.deepEqual(warnings, []);
});
