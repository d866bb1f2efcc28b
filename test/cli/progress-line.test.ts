// Issue 31: a progress line people can read: rates, the queue, hosts fetching and waiting (not
// "0 active" throughout), elapsed time and an ETA when a page budget is set.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatDuration, progressLine } from '../../shared/cli/render.js';

test('the progress line says rates, hosts waiting, elapsed time and an ETA under a budget', () => {
  const stats = {
    runId: 1,
    pages: 120,
    requests: 150,
    errors: 2,
    blocked: 1,
    bytes: 2_000_000,
    hostsParked: 1,
    rendered: 0,
    renderFailures: 0,
    elapsedMs: 60_000,
    pagesPerSecond: 2,
  };
  const line = progressLine(stats, 40, 1, 5, 300);
  assert.match(line, /^pages 120 \(2\.0\/s\) {2}requests 150 \(2\.5\/s\) {2}queued 40 {2}hosts 1 fetching, 5 waiting, 1 parked {2}errors 2/);
  assert.match(line, /1m00s {2}ETA ~1m30s$/);
  assert.doesNotMatch(progressLine(stats, 40, 1, 5), /ETA/);
  assert.deepEqual([formatDuration(42_000), formatDuration(185_000), formatDuration(3_720_000)], ['42s', '3m05s', '1h02m']);
});
