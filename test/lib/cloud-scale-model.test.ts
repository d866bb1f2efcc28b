// The scale model of bench:cloud-scale: a trace's per-page figures replayed into AWS's limits.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AWS_LIMITS, DEPLOYMENTS, growingReads, modelSize, rateLimits, scopeOf, warcObjectsAt, type Trace } from '../../bench/cloud-scale.js';
import { SWEEP_ITEMS_PER_CALL } from '../../shared/pipeline/cloud/stall-recovery.js';
import { WACZ_PART_FILES } from '../../shared/pipeline/cloud/warc-compaction.js';
import { FINALIZE_SPREAD_PAGES } from '../../shared/pipeline/cloud/run-finalize.js';
import { partitionPattern } from '../../support/cloud/cost-meter.js';
import { LARGE_RUN_PAGES } from '../../shared/store/aws/table-layout.js';

function trace(partitions: Trace['partitions'], reads: Trace['reads'] = []): Trace {
  return {
    pages: 1000,
    requests: 1100,
    elapsedMs: 60_000,
    hosts: 5,
    delayMs: 1000,
    usdPer1kPages: 0.05,
    lambda: {
      'fetch-worker': { invocations: 2000, seconds: 600, maxInvocationSeconds: 2, memoryMb: 512 },
      'extract-page': { invocations: 1000, seconds: 260, maxInvocationSeconds: 1, memoryMb: 1024 },
      'finalize-run': { invocations: 1, seconds: 1.2, maxInvocationSeconds: 1.2, memoryMb: 1769 },
    },
    pageExecutions: 1000,
    sqsRequests: 3000,
    s3: { puts: 2000, gets: 1000, putsByPrefix: { warc: 1100, extracted: 900 } },
    storage: { dynamoBytes: 30_000_000, s3Bytes: 90_000_000 },
    runMachine: { eventsPerPoll: 14, historyEvents: 25_000, pollSeconds: 60 },
    partitions,
    reads,
  };
}

const part = (pattern: string, distinct: number, writeUnits: number, readUnits = 0) => ({
  pattern,
  distinct,
  writeUnits,
  readUnits,
  writes: writeUnits,
  reads: readUnits,
});

test('partition keys are named by what they stand for, and scoped by how their keys grow', () => {
  assert.equal(partitionPattern('RUN#12#7'), 'RUN#<run>#<shard>');
  assert.equal(partitionPattern('RUN#12'), 'RUN#<run>');
  assert.equal(partitionPattern('URL#0123456789abcdef'), 'URL#<id>');
  assert.equal(partitionPattern('HOST#a.example:8080'), 'HOST#<host>');
  assert.equal(partitionPattern('BAND#3#1a2b3c'), 'BAND#<band>#<value>');
  assert.equal(partitionPattern('TEXTLOG'), 'TEXTLOG');
  assert.equal(scopeOf('RUN#<run>#<shard>', 32, 1000), 'run');
  assert.equal(scopeOf('URL#<id>', 4000, 1000), 'spread');
  assert.equal(scopeOf('TEXTLOG', 1, 1000), 'table');
  assert.equal(scopeOf('HOST#<host>', 5, 1000), 'host');
});

test("one run's partition caps it where its shards lift the cap; the first limit is what binds", () => {
  const single = trace([part('RUN#<run>', 1, 7600), part('URL#<id>', 5000, 20_000)]);
  const [binding] = rateLimits(single);
  assert.match(binding!.name, /RUN#<run>'s hottest key \(100\.0 % of 7\.60 units a page\)/);
  assert.equal(Math.round(binding!.pagesPerSecond), Math.round(AWS_LIMITS.partitionWriteUnits / 7.6));
  const sharded = trace([part('RUN#<run>#<shard>', 32, 7600), part('URL#<id>', 5000, 20_000)]);
  const model = modelSize(sharded, 1_000_000);
  // 32 partitions carry 32 times the writes; the fetch workers bind first, at 100 as deployed and 1,000 tuned.
  assert.match(model.limitedByDefaults, /^fetch workers \(maxFetchConcurrency 100; 0\.600 s of fetch worker a page\)/);
  assert.equal(model.pagesPerSecondPerRunDefaults, Math.round(100 / 0.6));
  assert.match(model.limitedBy, /^fetch workers \(maxFetchConcurrency 1000;/);
  assert.equal(model.pagesPerSecondPerRun, Math.round(1000 / 0.6));
  assert.deepEqual(model.runWideOps, []);
  assert.equal(model.runEnds, true);
  // A run whose budget passes LARGE_RUN_PAGES spreads over four times the shards: each takes a quarter of the load.
  const shardLimit = (runPages: number) => rateLimits(sharded, DEPLOYMENTS.tuned, runPages).find((l) => l.name.includes('RUN#<run>#<shard>'))!.pagesPerSecond;
  assert.equal(Math.round(shardLimit(LARGE_RUN_PAGES * 10)), Math.round(4 * shardLimit(LARGE_RUN_PAGES)));
});

test('a read that grows with the run makes the run unable to end once its invocation passes 15 minutes', () => {
  const t = trace(
    [part('RUN#<run>#<shard>', 32, 4000), part('TEXTLOG', 1, 1000)],
    [
      { fn: 'run-progress', command: 'Query', pattern: 'RUN#<run>#<shard>', calls: 32, items: 40_000, maxItems: 40_000 },
      // The stall's sweep reads a bounded slice a call, whatever the run: not growing.
      { fn: 'run-progress', command: 'Query', pattern: 'RUN#<run>#<shard>', calls: 32, items: 4000, maxItems: SWEEP_ITEMS_PER_CALL },
      { fn: 'extract-page', command: 'Query', pattern: 'BAND#<band>#<value>', calls: 6000, items: 800, maxItems: 6 },
      { fn: 'finalize-run', command: 'Scan', pattern: '(scan)', calls: 3, items: 1000, maxItems: 1000 },
    ],
  );
  const { run, table } = growingReads(t);
  assert.deepEqual(
    run.map((r) => r.fn),
    ['run-progress'],
  );
  assert.deepEqual(
    table.map((r) => r.pattern),
    ['(scan)'],
  );
  // 1.2 s for 1,000 pages: 1.2 ms a page, past 900 s at 750,000 pages.
  assert.deepEqual(modelSize(t, 100_000).cannotEnd, []);
  (t.lambda as Record<string, unknown>)['run-progress'] = t.lambda['finalize-run'];
  const big = modelSize(t, 1_000_000);
  assert.match(big.firstLimit, /^run-progress reads the whole run \(Query RUN#<run>#<shard>\): ~1200 s/);
  assert.deepEqual(big.runWideOps, ['run-progress Query RUN#<run>#<shard>']);
  assert.deepEqual(big.tableWideOps, ['finalize-run Scan (scan)']);
  // The table-wide key takes a write a page: 1,000 pages/s across every run.
  assert.match(big.limitedBy, /TEXTLOG/);
  assert.equal(big.storageGb.dynamodb, 30);
});

test('FinalizeRun reading the run it ranks alone counts for runs it ranks alone only: a larger run ends shard by shard', () => {
  const t = trace(
    [part('RUN#<run>#<shard>', 32, 4000)],
    [{ fn: 'finalize-run', command: 'Query', pattern: 'RUN#<run>#<shard>', calls: 32, items: 4000, maxItems: 4000 }],
  );
  assert.deepEqual(
    growingReads(t).run.map((r) => r.fn),
    ['finalize-run'],
  );
  assert.deepEqual(modelSize(t, FINALIZE_SPREAD_PAGES).runWideOps, ['finalize-run Query RUN#<run>#<shard>']);
  assert.deepEqual(modelSize(t, 1_000_000).runWideOps, []);
  assert.deepEqual(modelSize(t, 1_000_000).cannotEnd, []);
});

test('WARC objects: about one written a fetch, and after each run’s end one compacted object and its CDXJ a part', () => {
  // 1,100 PUTs under warc/ of which 2 objects were kept: 1.098 written a page.
  const t = { ...trace([]), s3: { puts: 2000, gets: 1000, putsByPrefix: { warc: 1100, extracted: 900 }, objectsByPrefix: { warc: 2 } } };
  const at = warcObjectsAt(t, 100_000_000, 10_000_000);
  assert.equal(at.written, 109_800_000);
  // A run of 10⁷ pages wrote 1.098×10⁷ objects: 1,098 parts of 10,000 (their bytes, 90 kB a page in all, fit 1 GiB parts too).
  assert.equal(at.kept, 2 * Math.ceil(10_980_000 / WACZ_PART_FILES) * 10);
  // A trace from before compaction keeps every object.
  assert.equal(warcObjectsAt(trace([]), 1_000_000, 1_000_000).kept, 1_100_000);
});
