import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import Database from '../../shared/store/local/sqlite-driver.js';
import { SqliteCrawlStore } from '../../shared/store/local/sqlite-store.js';
import { SqliteVectorIndex } from '../../shared/store/local/sqlite-vectors.js';
import { bestCodes, bestSketches, ByteCodes, sketchTable, sketchVector } from '../../shared/search/vector-sketch.js';
import { generated } from '../../scripts/build-wasm.js';
import { readFileSync } from 'node:fs';
import type { VectorRecord } from '../../shared/ports/index.js';
import { tempDir } from '../../support/helpers.js';
import { seededRandom as random } from '../../support/helpers.js';

/** Vectors around 40 topics, like pages of a few sites: each a topic's centre plus its own noise. */
function clustered(n: number, dimension: number, seed = 7): Float32Array[] {
  const r = random(seed);
  const gauss = () => Math.sqrt(-2 * Math.log(r() || 1e-12)) * Math.cos(2 * Math.PI * r());
  const centres = Array.from({ length: 40 }, () => Float32Array.from({ length: dimension }, gauss));
  return Array.from({ length: n }, (_, i) => Float32Array.from(centres[i % 40]!, (c) => c + 0.8 * gauss()));
}

const record = (id: string, vector: Float32Array, model = 'm'): VectorRecord => ({ id, vector, model, hash: id, metadata: { host: 'a.test', tags: [] } });

test('the sketch table scores a sign sketch exactly as the dot product of the query and its sign vector', () => {
  const r = random(3);
  const q = Float32Array.from({ length: 21 }, () => r() - 0.5);
  const v = Float32Array.from({ length: 21 }, () => r() - 0.5);
  const { bits, weight } = sketchVector(v);
  const table = sketchTable(q);
  let viaTable = 0;
  for (let j = 0; j < bits.length; j++) viaTable += table[j * 256 + bits[j]!]!;
  const direct = q.reduce((s, x, i) => s + x * (v[i]! > 0 ? 1 : -1), 0);
  assert.ok(Math.abs(viaTable - direct) < 1e-5, `${viaTable} vs ${direct}`);
  const l1 = v.reduce((s, x) => s + Math.abs(x), 0);
  const l2 = Math.sqrt(v.reduce((s, x) => s + x * x, 0));
  assert.ok(Math.abs(weight - l1 / (l2 * Math.sqrt(21))) < 1e-6);
  const columns = { bits: new Uint8Array(3 * bits.length), weights: Float32Array.from([0, weight, weight]), bytes: bits.length, slots: 3 };
  columns.bits.set(bits, bits.length);
  columns.bits.set(sketchVector(Float32Array.from(v, (x) => -x)).bits, 2 * bits.length);
  assert.deepEqual(bestSketches(table, columns, 5), [1, 2], 'in slot order; an empty slot never comes back');
  assert.deepEqual(bestSketches(table, columns, 1), direct > 0 ? [1] : [2], 'the best');
});

test('byte codes: the WebAssembly kernel ranks as the exact dot products of the codes do, through growth, and is the source assembled', async () => {
  const r = random(11);
  for (const dimension of [512, 48, 21]) {
    const codes = new ByteCodes(dimension, 4);
    const vectors = Array.from({ length: 300 }, () => Float32Array.from({ length: dimension }, () => r() - 0.5));
    // Written past the first capacity: the codes move as the memory grows and stay whole.
    vectors.forEach((v, slot) => codes.set(slot, sketchVector(v).codes));
    const query = Float32Array.from({ length: dimension }, () => r() - 0.5);
    const slots = Array.from({ length: 300 }, (_, i) => i).filter((i) => i % 3 !== 1);
    const cosine = (slot: number) => {
      const c = sketchVector(vectors[slot]!).codes;
      let dot = 0;
      let norm = 0;
      for (let j = 0; j < dimension; j++) {
        dot += query[j]! * c[j]!;
        norm += c[j]! * c[j]!;
      }
      return dot / Math.sqrt(norm);
    };
    const exact = [...slots].sort((a, b) => cosine(b) - cosine(a) || a - b).slice(0, 20);
    const got = bestCodes(query, codes, slots, 20);
    // The query is rounded to 16 bits in the kernel: only near-ties may swap.
    const kept = got.filter((s) => exact.includes(s)).length;
    assert.ok(kept >= 19, `dimension ${dimension}: ${kept} of the exact top 20`);
    assert.deepEqual(got.slice(0, 5), exact.slice(0, 5), `dimension ${dimension}: the best five in order`);
    // Scores are the cosines up to one factor: against the best's, within the query's rounding.
    const scores = codes.scores(query, slots);
    const best = scores[slots.indexOf(got[0]!)]! / cosine(got[0]!);
    slots.forEach((slot, i) => assert.ok(Math.abs(scores[i]! / best - cosine(slot)) < 1e-3 * cosine(got[0]!), `slot ${slot}`));
  }
  assert.equal(
    readFileSync(new URL('../../shared/search/code-dots-wasm.ts', import.meta.url), 'utf8'),
    await generated(),
    'code-dots-wasm.ts is code-dots.wat assembled (npm run build:wasm)',
  );
});

test('past the threshold, vector queries go through the sketches and keep the exact top 10', async () => {
  const { dir, cleanup } = tempDir();
  const store = new SqliteCrawlStore(dir);
  try {
    const vectors = clustered(6000, 96);
    const sketched = new SqliteVectorIndex(store.db, { approximateFrom: 5000, candidateShare: 0.05 });
    const exact = new SqliteVectorIndex(store.db, { approximateFrom: Infinity });
    await sketched.upsert(vectors.slice(0, 4000).map((v, i) => record(`p${i}`, v)));
    const r = random(11);
    const queries = Array.from({ length: 20 }, () => Float32Array.from(vectors[Math.floor(r() * 6000)]!, (x) => x + 0.5 * (r() - 0.5)));
    await sketched.query(queries[0]!, 'm', 10, {});
    assert.equal(sketched.lastPlan, 'exact', 'below the threshold every vector is compared');
    await sketched.upsert(vectors.slice(4000).map((v, i) => record(`p${4000 + i}`, v)));
    let kept = 0;
    for (const q of queries) {
      const want = new Set((await exact.query(q, 'm', 10, {})).map((h) => h.id));
      const got = await sketched.query(q, 'm', 10, {});
      assert.equal(sketched.lastPlan, 'sketched');
      kept += got.filter((h) => want.has(h.id)).length;
    }
    assert.ok(kept / 200 >= 0.98, `recall@10 ${kept / 200}`);
    await sketched.query(queries[0]!, 'm', 10, { domain: 'a.test' });
    assert.equal(sketched.lastPlan, 'exact', 'a filtered query is answered exactly');
  } finally {
    await store.close();
    cleanup();
  }
});

test("a reading connection's sketches follow another connection's writes, replacements and deletions", async () => {
  const { dir, cleanup } = tempDir();
  const store = new SqliteCrawlStore(dir);
  let readerStore: SqliteCrawlStore | undefined;
  try {
    const vectors = clustered(400, 32, 5);
    const writer = new SqliteVectorIndex(store.db);
    await writer.upsert(vectors.slice(0, 300).map((v, i) => record(`p${i}`, v)));
    // Every vector passed on to the exact comparison would hide a stale sketch: pass on only 10.
    readerStore = new SqliteCrawlStore(dir, { readonly: true });
    const reader = new SqliteVectorIndex(readerStore.db, { approximateFrom: 1, candidateShare: 0, minCandidates: 10 });
    const top = async (q: Float32Array) => (await reader.query(q, 'm', 1, {}))[0]?.id;
    assert.equal(await top(vectors[7]!), 'p7');
    await writer.upsert(vectors.slice(300).map((v, i) => record(`p${300 + i}`, v)));
    assert.equal(await top(vectors[350]!), 'p350', 'new vectors are found');
    await writer.upsert([
      record(
        'p7',
        vectors[399]!.map((x) => -x),
      ),
    ]);
    assert.notEqual(await top(vectors[7]!), 'p7', 'a replaced vector is found by its new value…');
    assert.equal(await top(vectors[399]!.map((x) => -x)), 'p7', '…and only by it');
    await writer.delete(['p350']);
    assert.notEqual(await top(vectors[350]!), 'p350', 'a deleted vector is gone');
    await writer.upsert([record('p12', vectors[12]!, 'other')]);
    assert.notEqual(await top(vectors[12]!), 'p12', 'a vector moved to another model leaves this one');
  } finally {
    await readerStore?.close();
    await store.close();
    cleanup();
  }
});

test('schema 10 gives the vectors an older trawl stored their sketches', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const first = new SqliteCrawlStore(dir);
    const vectors = clustered(50, 16, 9);
    await new SqliteVectorIndex(first.db).upsert(vectors.map((v, i) => record(`p${i}`, v)));
    await first.close();
    const db = new Database(join(dir, 'trawl.db'));
    db.exec("DROP TABLE vector_sketches; UPDATE meta SET value = '9' WHERE key = 'schema_version'");
    db.close();
    const store = new SqliteCrawlStore(dir);
    try {
      assert.equal((store.db.prepare('SELECT count(*) AS n FROM vector_sketches').get() as { n: number }).n, 50);
      const index = new SqliteVectorIndex(store.db, { approximateFrom: 1, candidateShare: 0, minCandidates: 5 });
      await index.query(vectors[31]!, 'm', 1, {});
      assert.equal(index.lastPlan, 'exact', "a connection's first query scans: loading the sketches would cost more");
      const hit = await index.query(vectors[31]!, 'm', 1, {});
      assert.equal(index.lastPlan, 'sketched');
      assert.equal(hit[0]?.id, 'p31');
    } finally {
      await store.close();
    }
  } finally {
    cleanup();
  }
});
