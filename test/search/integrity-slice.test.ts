import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkIndex, checkIndexSlice, integrityMarkdown, type IntegrityCursor, type IntegrityReport } from '../../shared/search/integrity.js';
import { SqliteCrawlStore } from '../../shared/store/local/sqlite-store.js';
import { SqliteEnrichStore } from '../../shared/store/local/sqlite-search.js';
import { SqliteVectorIndex } from '../../shared/store/local/sqlite-vectors.js';
import { enrichmentRecord } from '../contract/enrich-store.contract.js';
import { tempDir } from '../../support/helpers.js';

const model = { provider: 'local' as const, model: 'm1', version: 'v1', at: 1 };

/** 23 pages: most agree with the index; some are missing from it, hold another hash, or have no vector; 3 orphans. */
async function seeded(enrich: SqliteEnrichStore, vectors: SqliteVectorIndex): Promise<void> {
  for (let i = 0; i < 23; i++) {
    const id = `p${String(i).padStart(2, '0')}`;
    const thin = i % 11 === 5;
    await enrich.putEnrichment(enrichmentRecord(id, `Page ${i}`, [], { embedding: { ...model, dimension: thin ? 0 : 2, hash: `h${i}` } }), 'text');
    if (thin || i % 7 === 3) continue; // too thin for a vector, or missing from the index
    const hash = i % 9 === 4 ? 'other' : `h${i}`;
    await vectors.upsert([{ id, vector: Float32Array.from([1, i]), model: 'm1', hash, metadata: { host: 'a.test', tags: [] } }]);
  }
  for (const id of ['o1', 'o2', 'p99'])
    await vectors.upsert([{ id, vector: Float32Array.from([0, 1]), model: 'm1', hash: 'x', metadata: { host: 'a.test', tags: [] } }]);
}

const findings = (r: IntegrityReport) => ({
  missing: [...r.missing].sort(),
  orphans: [...r.orphans].sort(),
  hashMismatch: [...r.hashMismatch].sort(),
  modelMismatch: r.modelMismatch.map((m) => m.id).sort(),
  otherModel: r.otherModel,
  withEmbedding: r.store.withEmbedding,
});

test('a bounded integrity check goes round the records and the vectors a slice at a time and finds what the whole check finds', async () => {
  const { dir, cleanup } = tempDir();
  const store = new SqliteCrawlStore(dir);
  try {
    const enrich = new SqliteEnrichStore(store.db);
    const vectors = new SqliteVectorIndex(store.db);
    await seeded(enrich, vectors);
    const whole = await checkIndex(enrich, vectors, model);
    assert.equal(whole.ok, false);
    assert.deepEqual([whole.missing.length, whole.orphans.length, whole.hashMismatch.length], [3, 3, 3]);

    // One slice large enough for everything is the whole check.
    const all = await checkIndexSlice({ enrich, vectors }, model, { records: '' }, 1000);
    assert.deepEqual(findings(all), findings(whole));
    assert.equal(all.slice!.complete, true);
    assert.deepEqual(all.slice!.next, { records: '' });

    // Slices of 5 go round in turns; their findings add up to the whole check's, each once.
    let cursor: IntegrityCursor = { records: '' };
    const union = {
      missing: [] as string[],
      orphans: [] as string[],
      hashMismatch: [] as string[],
      modelMismatch: [] as string[],
      otherModel: 0,
      withEmbedding: 0,
    };
    let turns = 0;
    let recordsRound = false;
    let vectorsRound = false;
    while (!(recordsRound && vectorsRound)) {
      const r = await checkIndexSlice({ enrich, vectors }, model, cursor, 5);
      assert.ok(r.store.records <= 5 && r.index.vectors <= 5);
      assert.equal(r.slice!.complete, false);
      if (!recordsRound) {
        const f = findings(r);
        union.missing.push(...f.missing);
        union.hashMismatch.push(...f.hashMismatch);
        union.modelMismatch.push(...f.modelMismatch);
        union.otherModel += f.otherModel;
        union.withEmbedding += f.withEmbedding;
      }
      if (!vectorsRound) union.orphans.push(...r.orphans);
      recordsRound ||= r.slice!.next.records === '';
      vectorsRound ||= r.slice!.next.vectors === undefined;
      cursor = r.slice!.next;
      turns++;
      assert.ok(turns < 20);
    }
    assert.equal(turns, 5, '23 records and 23 vectors, 5 a turn');
    for (const k of ['missing', 'orphans', 'hashMismatch', 'modelMismatch'] as const) union[k].sort();
    assert.deepEqual(union, findings(whole));
    assert.match(
      integrityMarkdown(await checkIndexSlice({ enrich, vectors }, model, { records: 'p10' }, 5)),
      /A bounded check: the records after `p10` through `p15`/,
    );
  } finally {
    store.close();
    cleanup();
  }
});
