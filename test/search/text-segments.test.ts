import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { PostedDoc } from '../../shared/search/text-postings.js';
import {
  buildSegment,
  FAN_IN,
  decodeRowFields,
  encodeIdTable,
  encodeRowFields,
  rowFields,
  IdTable,
  isDead,
  legacyLiveness,
  markDead,
  deadRows,
  mergeRows,
  mergeGroups,
  mergeShards,
  plannedMerge,
  shardsFor,
  termShardOf,
  type DocRow,
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

/** Segments with their dead rows, as folds leave them. */
type Held = SegmentData & { dead: Uint8Array };

/** What a query sees: each live page's frequency of every term, and the corpus statistics. */
function view(segments: Held[]): { docs: number; totalLength: number; postings: Map<string, Map<string, number>> } {
  const postings = new Map<string, Map<string, number>>();
  let docs = 0;
  let totalLength = 0;
  for (const segment of segments) {
    segment.rows.forEach((r, i) => {
      if (isDead(segment.dead, i)) return;
      docs += 1;
      totalLength += r[5];
    });
    for (const shard of segment.shards)
      for (const term in shard) {
        const list = shard[term]!;
        for (let j = 0; j < list.length; j += 2) {
          if (isDead(segment.dead, list[j]!)) continue;
          let of = postings.get(term);
          if (!of) postings.set(term, (of = new Map()));
          assert.ok(!of.has(segment.rows[list[j]!]![0]), 'a page has one live row');
          of.set(segment.rows[list[j]!]![0], list[j + 1]!);
        }
      }
  }
  return { docs, totalLength, postings };
}

/** A fold as the index makes it: the pages' rows in older segments marked dead (found in their id tables), then the new segment. */
function fold(segments: Held[], docs: PostedDoc[], deleted: string[], shards: number): void {
  const data = buildSegment(docs, shards);
  const ids = [...data.rows.map((r) => r[0]), ...deleted];
  for (const segment of segments) {
    const table = new IdTable(encodeIdTable(segment.rows));
    for (const id of ids) {
      const at = table.find(id);
      if (at) markDead(segment.dead, at.row);
    }
  }
  segments.push({ ...data, dead: deadRows(data.rows.length) });
}

function merged(inputs: Held[], shards?: number): Held {
  const plan = mergeRows(inputs, shards);
  const out: TermShard[] = [];
  for (const group of mergeGroups(
    inputs.map((i) => i.shards.length),
    plan.shards,
  )) {
    const written = mergeShards(
      group.outputs,
      plan,
      inputs.map((input, i) => group.inputs[i]!.map((n) => input.shards[n]!)),
    );
    for (const [j, shard] of written) out[j] = shard;
  }
  return { rows: plan.rows, shards: out, dead: deadRows(plan.rows.length) };
}

test('a segment keeps the last entry of a page and a power of two of term shards', () => {
  const random = rng(1);
  const a = doc('a', random);
  const a2 = { ...doc('a', random), length: 999 };
  const segment = buildSegment([a, doc('b', random), a2]);
  assert.deepEqual(
    segment.rows.map((r) => [r[0], r[5]]),
    [
      ['a', 999],
      ['b', segment.rows[1]![5]],
    ],
  );
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

test('a merge reads each input shard once, in the group of the output shards that hold its terms, whichever has more shards', () => {
  for (const [inputShards, outputShards] of [
    [[1, 4], 8],
    [[4, 8], 8],
    [[8], 8],
    [[32, 16], 8],
    [[32, 32, 32], 256],
  ] as const) {
    const groups = mergeGroups(inputShards, outputShards);
    assert.deepEqual(
      groups.flatMap((g) => g.outputs).sort((a, b) => a - b),
      Array.from({ length: outputShards }, (_, j) => j),
      'every output shard written once',
    );
    inputShards.forEach((k, i) =>
      assert.deepEqual(
        groups.flatMap((g) => g.inputs[i]!).sort((a, b) => a - b),
        Array.from({ length: k }, (_, n) => n),
        'every input shard read once',
      ),
    );
    for (const t of VOCABULARY) {
      const group = groups.find((g) => g.outputs.includes(termShardOf(t, outputShards)))!;
      inputShards.forEach((k, i) => assert.ok(group.inputs[i]!.includes(termShardOf(t, k)), `${t}: ${inputShards} → ${outputShards}`));
    }
  }
});

test('an id table finds each url id’s row and length, and nothing for an id it lacks', () => {
  const random = rng(5);
  const rows: DocRow[] = Array.from({ length: 500 }, (_, i) => [
    i % 7 === 0 ? `ü${i}` : `${Math.floor(random() * 1e9).toString(36)}-${i}`,
    'h',
    null,
    null,
    [],
    i * 1.5,
  ]);
  const table = new IdTable(encodeIdTable(rows));
  rows.forEach((r, i) => assert.deepEqual(table.find(r[0]), { row: i, length: i * 1.5 }, r[0]));
  for (const id of ['', 'zzzz', '0', 'ü', 'nope-1']) assert.equal(table.find(id), undefined, id);
  assert.equal(new IdTable(encodeIdTable([])).find('a'), undefined);
});

test('a segment’s filter fields keep each row’s host, language, published and tags, each distinct value listed once', () => {
  const rows: DocRow[] = [
    ['a', 'x.test', 'en', '2026-01-02', ['#one'], 5],
    ['b', 'y.test', null, null, [], 6],
    ['c', 'x.test', 'en', '2026-01-03', ['#one', '#two'], 7],
    ['d', 'ü.test', 'de', '2026-01-02', ['#one'], 8],
  ];
  const fields = decodeRowFields(encodeRowFields(rowFields(rows)));
  assert.deepEqual(fields.hosts, ['x.test', 'y.test', 'ü.test']);
  assert.deepEqual(fields.published, ['2026-01-02', null, '2026-01-03']);
  rows.forEach((row, r) =>
    assert.deepEqual(
      [
        fields.hosts[fields.ids[4 * r]!],
        fields.languages[fields.ids[4 * r + 1]!],
        fields.published[fields.ids[4 * r + 2]!],
        fields.tags[fields.ids[4 * r + 3]!],
      ],
      [row[1], row[2], row[3], row[4]],
    ),
  );
  assert.equal(decodeRowFields(encodeRowFields(rowFields([]))).ids.length, 0);
});

test('segments of the earlier layout: each url id’s newest row is live, and a tombstone hides the rows before it', () => {
  const row = (id: string, length: number): DocRow => [id, 'h', null, null, [], length];
  const liveness = legacyLiveness([
    { rows: [row('a', 1), row('b', 2), row('c', 3)], tombstones: [] },
    { rows: [row('b', 20), row('b', 21)], tombstones: ['c'] },
    { rows: [row('c', 300)], tombstones: ['a'] },
  ]);
  const dead = liveness.map((l, s) => [0, 1, 2].filter((i) => isDead(l.dead, i) && i < [3, 2, 1][s]!));
  assert.deepEqual(dead, [[0, 1, 2], [0], []]);
  assert.deepEqual(
    liveness.map((l) => [l.live, l.liveLength]),
    [
      [0, 0],
      [1, 21],
      [1, 300],
    ],
  );
});

test('merged segments hold what the unmerged ones showed a query: each page’s newest entry, deleted pages gone, the same statistics', () => {
  for (const seed of [1, 2, 3, 4]) {
    const random = rng(seed);
    const segments: Held[] = [];
    const ids = Array.from({ length: 300 }, (_, i) => `u${i}`);
    for (let s = 0; s < 12; s++) {
      const docs = Array.from({ length: 20 + Math.floor(random() * 400) }, () => doc(ids[Math.floor(random() * ids.length)]!, random));
      const deleted = Array.from({ length: Math.floor(random() * 20) }, () => ids[Math.floor(random() * ids.length)]!);
      fold(segments, docs, deleted, 2 ** Math.floor(random() * 5));
    }
    const before = view(segments);
    for (const from of [0, 4, 9])
      for (const shards of [1, 4, 32]) {
        const after = [...segments.slice(0, from), merged(segments.slice(from), shards)];
        assert.deepEqual(view(after), before, `seed ${seed}, merging from segment ${from} into ${shards} shards`);
      }
    assert.equal(merged(segments).rows.length, before.docs, 'a merge keeps live rows only');
  }
});
