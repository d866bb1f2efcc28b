// The cloud's full-text index on the S3 and DynamoDB emulators: folds that rewrite and delete pages,
// tiered merges, and an index of the earlier layout converted by its first fold, each checked
// against BM25 over the live pages computed whole; and a query that reads the best hits' rows only.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { S3Objects } from '../../../shared/store/aws/s3-store.js';
import { DynamoTextManifest } from '../../../shared/store/aws/dynamo-text-log.js';
import { S3TextIndex } from '../../../shared/store/aws/s3-text-index.js';
import type { TextIndexManifest } from '../../../shared/store/aws/s3-text-segments.js';
import { searchSegments } from '../../../shared/search/segment-search.js';
import { bm25, passesFilters, type PostedDoc } from '../../../shared/search/text-postings.js';
import { buildSegment, FAN_IN, ROWS_PER_CHUNK } from '../../../shared/search/text-segments.js';
import { archiveKeys } from '../../../shared/ports/archive-keys.js';
import type { SearchFilters, TextHit } from '../../../shared/ports/index.js';
import { startEmulators, type Emulators } from '../../../support/cloud/emulators.js';

let emu: Emulators;
let n = 0;
before(async () => {
  emu = await startEmulators();
});
after(() => emu.stop());

/** S3 objects whose reads are recorded. */
class CountedObjects extends S3Objects {
  reads: string[] = [];
  override async get(key: string): Promise<Buffer | undefined> {
    this.reads.push(key);
    return super.get(key);
  }
}

async function index(now: () => number = Date.now) {
  const names = await emu.provision(`text-index-${++n}`);
  const objects = new CountedObjects(emu.clients.s3, names.bucket);
  const cell = new DynamoTextManifest(emu.clients.doc, names.table);
  return { objects, cell, open: () => new S3TextIndex(objects, cell, now) };
}

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => (s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32;
}

const VOCABULARY = Array.from({ length: 120 }, (_, i) => `t${i}`);
const HOSTS = ['a.test', 'b.test', 'docs.b.test', 'c.test'];

function doc(id: string, random: () => number): PostedDoc {
  const terms = new Map<string, number>();
  // Low term numbers far more often, as words are.
  for (let k = 0; k < 2 + Math.floor(random() * 10); k++) terms.set(VOCABULARY[Math.floor(VOCABULARY.length * random() ** 3)]!, 1 + Math.floor(random() * 6));
  const tags = random() < 0.3 ? ['#harbour'] : [];
  return {
    urlId: id,
    host: HOSTS[Math.floor(random() * HOSTS.length)]!,
    language: random() < 0.5 ? 'en' : 'de',
    published: `2026-0${1 + Math.floor(random() * 9)}-1${Math.floor(random() * 10)}`,
    tags,
    length: 10 + Math.floor(random() * 300),
    terms,
  };
}

/** BM25 over the live pages computed whole: the segments' pages (changed ones counted until a fold takes them) and the changed pages as they are now. */
function expected(live: Map<string, PostedDoc>, replaced: Set<string>, fresh: PostedDoc[], query: string[], filters: SearchFilters, limit: number): TextHit[] {
  const all = [...live.values(), ...fresh];
  const stats = {
    docs: all.length,
    totalLength: all.reduce((s, d) => s + d.length, 0),
    df: (t: string) => all.filter((d) => d.terms.has(t)).length,
  };
  return [...[...live.values()].filter((d) => !replaced.has(d.urlId)), ...fresh]
    .filter((d) => passesFilters(d, filters))
    .map((d) => ({ urlId: d.urlId, score: bm25(d, query, stats) }))
    .filter((h) => h.score > 0)
    .sort((a, b) => b.score - a.score || (a.urlId < b.urlId ? -1 : 1))
    .slice(0, limit);
}

const QUERIES: Array<[string[], SearchFilters]> = [
  [['t0'], {}],
  [['t1', 't7'], {}],
  [['t3', 't40', 't90'], {}],
  [['t2'], { domain: 'b.test' }],
  [['t0', 't5'], { language: 'de', since: '2026-04-01' }],
  [['t4'], { tags: ['#harbour'], until: '2026-06-30' }],
  [['t119'], {}],
];

const shown = (hits: TextHit[]) => hits.map((h) => `${h.urlId} ${h.score.toFixed(9)}`);

test('folds that rewrite and delete pages, and their tiered merges, answer as BM25 over the live pages computed whole, with or without changes pending', async () => {
  const { open } = await index();
  const text = open();
  const random = rng(7);
  const live = new Map<string, PostedDoc>();
  const ids = Array.from({ length: 6000 }, (_, i) => `u${String(i).padStart(5, '0')}`);
  // A big first fold (its page table in two chunks), then small folds that rewrite pages and delete some.
  const first = ids.map((id) => doc(id, random));
  await text.fold(await text.manifest(), first, [], 1);
  for (const d of first) live.set(d.urlId, d);
  let merges = 0;
  for (let f = 0; f < 2 * FAN_IN; f++) {
    const docs = Array.from({ length: 40 }, () => doc(ids[Math.floor(random() * ids.length)]!, random));
    const deleted = Array.from({ length: 5 }, () => ids[Math.floor(random() * ids.length)]!);
    const fold = await text.fold(await text.manifest(), docs, deleted, f + 2);
    assert.equal(fold.committed, true);
    merges += fold.merges;
    for (const id of deleted) live.delete(id);
    for (const d of docs) live.set(d.urlId, d);
  }
  assert.ok(merges >= 1, `${merges} merges`);
  const snapshot = (await text.snapshot())!;
  assert.equal(snapshot.docs, live.size, 'the manifest counts each live page once');
  assert.equal(
    snapshot.totalLength,
    [...live.values()].reduce((s, d) => s + d.length, 0),
  );
  assert.ok(snapshot.segments.every((s) => s.format === 2));
  for (const [query, filters] of QUERIES) {
    const got = await searchSegments(snapshot, query, { replaced: new Set(), fresh: [] }, filters, 10);
    assert.deepEqual(shown(got), shown(expected(live, new Set(), [], query, filters, 10)), `${query} ${JSON.stringify(filters)}`);
    assert.ok(got.length > 0, `${query} finds pages`);
  }
  // Pages changed since the last fold: their segment entries are no hits, their new text is.
  const fresh = [...live.keys()].slice(0, 300).map((id) => doc(id, random));
  const replaced = new Set([...fresh.map((d) => d.urlId), ...[...live.keys()].slice(300, 320)]);
  for (const [query, filters] of QUERIES) {
    const got = await searchSegments(snapshot, query, { replaced, fresh }, filters, 25);
    assert.deepEqual(shown(got), shown(expected(live, replaced, fresh, query, filters, 25)), `${query} ${JSON.stringify(filters)} with changes pending`);
  }
  assert.deepEqual(
    [...(await snapshot.indexed(['u00001', 'nope', [...live.keys()][9]!]))].sort(),
    ['u00001', [...live.keys()][9]!].filter((id) => live.has(id)).sort(),
  );
});

test('a query reads the manifest, its terms’ shards, dead-row bitsets, lengths and (filtered) field columns, and the rows of its best hits only: no id table, no whole page table', async () => {
  const { objects, open } = await index();
  const writer = open();
  const random = rng(11);
  const ids = Array.from({ length: 3 * ROWS_PER_CHUNK }, (_, i) => `p${i}`);
  await writer.fold(
    await writer.manifest(),
    ids.map((id) => doc(id, random)),
    [],
    1,
  );
  await writer.fold(
    await writer.manifest(),
    ids.slice(0, 50).map((id) => doc(id, random)),
    ids.slice(50, 60),
    2,
  );
  const reader = open();
  objects.reads = [];
  const snapshot = (await reader.snapshot())!;
  const hits = await searchSegments(snapshot, ['t0', 't3'], { replaced: new Set(), fresh: [] }, {}, 10);
  assert.equal(hits.length, 10);
  const kinds = objects.reads.map((k) => k.replace(/^search\/text\/[^/]+\//, '').replace(/-[0-9a-z-]+\.(json|bin)$/, '.$1'));
  assert.ok(!kinds.some((k) => k === 'ids.bin' || k === 'docs.json'), kinds.join(' '));
  const chunks = objects.reads.filter((k) => /rows-\d+\.json$/.test(k));
  assert.ok(chunks.length <= 10, `${chunks.length} row chunks read for 10 hits`);
  // A filtered query tests the segments' field columns, and reads rows for its hits only.
  objects.reads = [];
  const filtered = await searchSegments(snapshot, ['t0'], { replaced: new Set(), fresh: [] }, { domain: 'b.test', language: 'de' }, 5);
  assert.equal(filtered.length, 5);
  assert.ok(objects.reads.some((k) => k.endsWith('fields.bin')));
  const filteredChunks = objects.reads.filter((k) => /rows-\d+\.json$/.test(k));
  assert.ok(filteredChunks.length <= 5, `${filteredChunks.length} row chunks read for 5 filtered hits`);
  const first = (await reader.manifest())!.manifest.segments[0]!;
  assert.ok(first.dead, 'the big segment has a dead-row bitset');
  assert.equal(first.live, 3 * ROWS_PER_CHUNK - 60);
});

test('an index of the earlier layout (whole page tables, tombstones) is read as it was, converted by its next fold, and answers the same after', async () => {
  const { objects, cell, open } = await index();
  const random = rng(3);
  const live = new Map<string, PostedDoc>();
  const manifest: TextIndexManifest = { builtAt: 3, segments: [], retired: [] };
  const ids = Array.from({ length: 400 }, (_, i) => `v${i}`);
  // Three segments as folds wrote them before: a later one holds newer entries and tombstones.
  for (let s = 0; s < 3; s++) {
    const docs = Array.from({ length: s === 0 ? 400 : 60 }, (_, i) => doc(s === 0 ? ids[i]! : ids[Math.floor(random() * ids.length)]!, random));
    const deleted = s === 0 ? [] : Array.from({ length: 6 }, () => ids[Math.floor(random() * ids.length)]!);
    const data = buildSegment(docs, 2);
    const latest = new Set(data.rows.map((r) => r[0]));
    const tombstones = [...new Set(deleted)].filter((id) => !latest.has(id)).sort();
    const id = `legacy${s}`;
    await objects.put(archiveKeys.textIndexDocs(id), JSON.stringify(data.rows), 'application/json');
    if (tombstones.length) await objects.put(archiveKeys.textIndexTombstones(id), JSON.stringify(tombstones), 'application/json');
    for (const [j, shard] of data.shards.entries()) await objects.put(archiveKeys.textIndexShard(id, j), JSON.stringify(shard), 'application/json');
    manifest.segments.push({ id, level: 0, docs: data.rows.length, tombstones: tombstones.length, shards: 2 });
    for (const d of docs) live.set(d.urlId, d);
    for (const t of tombstones) live.delete(t);
  }
  assert.equal(await cell.swap(JSON.stringify(manifest), 0), true);
  const check = async (label: string) => {
    const text = open();
    const snapshot = (await text.snapshot())!;
    assert.equal(snapshot.docs, live.size, label);
    for (const [query, filters] of QUERIES) {
      const got = await searchSegments(snapshot, query, { replaced: new Set(), fresh: [] }, filters, 10);
      assert.deepEqual(shown(got), shown(expected(live, new Set(), [], query, filters, 10)), `${label}: ${query} ${JSON.stringify(filters)}`);
    }
  };
  await check('before its fold');
  const text = open();
  const docs = [doc('v1', random), doc('new', random)];
  const fold = await text.fold(await text.manifest(), docs, ['v2'], 4);
  assert.equal(fold.committed, true);
  for (const d of docs) live.set(d.urlId, d);
  live.delete('v2');
  assert.ok(
    (await text.manifest())!.manifest.segments.every((s) => s.format === 2),
    'converted',
  );
  objects.reads = [];
  await check('after its fold');
  assert.ok(!objects.reads.some((k) => k.endsWith('docs.json')), 'no whole page table read');
});
