// A progress line people can read: rates, the queue, hosts fetching and waiting (not
// "0 active" throughout), elapsed time and an ETA of the work queued.
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
    renderSkipped: {},
    elapsedMs: 60_000,
    pagesPerSecond: 2,
  };
  const line = progressLine(stats, 40, 1, 5, 300);
  assert.match(line, /^pages 120 \(2\.0\/s\) {2}requests 150 \(2\.5\/s\) {2}queued 40 {2}hosts 1 fetching, 5 waiting, 1 parked {2}errors 2/);
  // The ETA is the work queued now (40 URLs at 2.5 requests a second), not the page budget's 180 pages left.
  assert.match(line, /1m00s {2}ETA ~16s$/);
  assert.match(progressLine(stats, 40, 1, 5), /ETA ~16s$/, 'without a budget, the queue still says how long');
  assert.match(progressLine(stats, 400, 1, 5, 130), /ETA ~4s$/, 'a budget nearly spent caps the queue (10 pages left)');
  assert.doesNotMatch(progressLine(stats, 0, 1, 5, 300), /ETA/, 'nothing queued: no ETA');
  assert.doesNotMatch(progressLine({ ...stats, requests: 0, elapsedMs: 0 }, 40, 1, 5, 300), /ETA/, 'no rate yet: no ETA');
  assert.deepEqual([formatDuration(42_000), formatDuration(185_000), formatDuration(3_720_000)], ['42s', '3m05s', '1h02m']);
});
