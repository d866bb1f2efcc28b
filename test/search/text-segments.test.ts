import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { PostedDoc } from '../../shared/search/text-postings.js';
import {
  buildSegment,
  FAN_IN,
  inputShardsFor,
  LiveRows,
  mergeRows,
  mergeShard,
  plannedMerge,
  shardsFor,
  termShardOf,
  type SegmentData,
  type SegmentInfo,
  type TermShard,
} from '../../shared/search/text-segments.js';

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => (s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32;
}

const VOCABULARY = Array.from({ length: 60 }, (_, i) => `term${i}`);

function doc(id: string, random: () => number): PostedDoc {
  const terms = new Map<string, number>();
  for (let k = 0; k < 1 + Math.floor(random() * 8); k++) terms.set(VOCABULARY[Math.floor(random() * VOCABULARY.length)]!, 1 + Math.floor(random() * 5));
  return { urlId: id, host: `h${id.length}.test`, tags: [], length: 10 + Math.floor(random() * 90), terms };
}

/** What a query sees: each live page's frequency of every term, and the corpus statistics. */
function view(segments: SegmentData[]): { docs: number; totalLength: number; postings: Map<string, Map<string, number>> } {
  const live = new LiveRows(segments);
  const postings = new Map<string, Map<string, number>>();
  segments.forEach((segment, s) => {
    for (const shard of segment.shards)
      for (const term in shard) {
        const list = shard[term]!;
        for (let j = 0; j < list.length; j += 2) {
          if (!live.isLive(s, list[j]!)) continue;
          let of = postings.get(term);
          if (!of) postings.set(term, (of = new Map()));
          of.set(segment.rows[list[j]!]![0], list[j + 1]!);
        }
      }
  });
  return { docs: live.docs, totalLength: live.totalLength, postings };
}

function merged(inputs: SegmentData[], olderRemain: boolean, shards?: number): SegmentData {
  const plan = mergeRows(inputs, olderRemain, shards);
  const out: TermShard[] = [];
  for (let j = 0; j < plan.shards; j++) {
    out.push(
      mergeShard(
        j,
        plan,
        inputs.map((input) => inputShardsFor(j, input.shards.length, plan.shards).map((n) => input.shards[n]!)),
      ),
    );
  }
  return { rows: plan.rows, tombstones: plan.tombstones, shards: out };
}

test('a segment keeps the last entry of a page, tombstones only pages it has no row for, and a power of two of term shards', () => {
  const random = rng(1);
  const a = doc('a', random);
  const a2 = { ...doc('a', random), length: 999 };
  const segment = buildSegment([a, doc('b', random), a2], ['c', 'a', 'c']);
  assert.deepEqual(
    segment.rows.map((r) => [r[0], r[5]]),
    [
      ['a', 999],
      ['b', segment.rows[1]![5]],
    ],
  );
  assert.deepEqual(segment.tombstones, ['c']);
  for (const [n, shards] of [
    [0, 1],
    [2048, 1],
    [2049, 2],
    [100_000, 64],
    [10_000_000, 256],
  ] as const)
    assert.equal(shardsFor(n), shards, `${n} pages`);
  for (const [t, tf] of a2.terms) assert.deepEqual(segment.shards[termShardOf(t, segment.shards.length)]![t]!.slice(0, 2), [0, tf]);
});

test('the newest FAN_IN segments merge when they share a level and fit; so an index of F folds keeps at most FAN_IN - 1 segments a level', () => {
  const seg = (level: number, docs = 10): SegmentInfo => ({ id: '', level, docs, tombstones: 0, shards: 1 });
  assert.equal(plannedMerge(Array.from({ length: FAN_IN - 1 }, () => seg(0))), undefined);
  assert.equal(plannedMerge([seg(1), ...Array.from({ length: FAN_IN }, () => seg(0))]), 1);
  assert.equal(plannedMerge([...Array.from({ length: FAN_IN - 1 }, () => seg(0)), seg(1)]), undefined, 'mixed levels do not merge');
  assert.equal(
    plannedMerge(
      Array.from({ length: FAN_IN }, () => seg(0, 100)),
      FAN_IN,
      799,
    ),
    undefined,
    'past the size cap',
  );
  let list: SegmentInfo[] = [];
  let most = 0;
  for (let fold = 1; fold <= 5000; fold++) {
    list.push(seg(0, 1000));
    for (let from = plannedMerge(list); from !== undefined; from = plannedMerge(list))
      list = [
        ...list.slice(0, from),
        seg(
          list[from]!.level + 1,
          list.slice(from).reduce((n, s) => n + s.docs, 0),
        ),
      ];
    most = Math.max(most, list.length);
    for (let k = 1; k < list.length; k++) assert.ok(list[k - 1]!.level >= list[k]!.level, 'older segments are never of a lower level');
  }
  const levels = Math.ceil(Math.log(5000) / Math.log(FAN_IN));
  assert.ok(most <= (FAN_IN - 1) * levels, `${most} segments at most over 5,000 folds, ${levels} levels`);
  assert.equal(
    list.reduce((n, s) => n + s.docs, 0),
    5_000_000,
  );
});

test('an input shard of a merge is the one that holds the output shard’s terms, whichever has more shards', () => {
  for (const [inputShards, outputShards] of [
    [1, 8],
    [4, 8],
    [8, 8],
    [32, 8],
  ] as const) {
    for (let j = 0; j < outputShards; j++) {
      const from = inputShardsFor(j, inputShards, outputShards);
      for (const t of VOCABULARY)
        if (termShardOf(t, outputShards) === j) assert.ok(from.includes(termShardOf(t, inputShards)), `${t}: ${inputShards} → ${outputShards}`);
    }
  }
});

test('merged segments hold what the unmerged ones showed a query: each page’s newest entry, deleted pages gone, the same statistics', () => {
  for (const seed of [1, 2, 3, 4]) {
    const random = rng(seed);
    const segments: SegmentData[] = [];
    const ids = Array.from({ length: 300 }, (_, i) => `u${i}`);
    for (let s = 0; s < 12; s++) {
      const docs = Array.from({ length: 20 + Math.floor(random() * 400) }, () => doc(ids[Math.floor(random() * ids.length)]!, random));
      const deleted = Array.from({ length: Math.floor(random() * 20) }, () => ids[Math.floor(random() * ids.length)]!);
      segments.push(buildSegment(docs, deleted, 2 ** Math.floor(random() * 5)));
    }
    const before = view(segments);
    for (const from of [0, 4, 9])
      for (const shards of [1, 4, 32]) {
        const after = [...segments.slice(0, from), merged(segments.slice(from), from > 0, shards)];
        assert.deepEqual(view(after), before, `seed ${seed}, merging from segment ${from} into ${shards} shards`);
      }
    const all = merged(segments, false);
    assert.equal(all.tombstones.length, 0, 'nothing older remains: no tombstone is kept');
    assert.equal(all.rows.length, before.docs, 'a merge of everything keeps live rows only');
  }
});
