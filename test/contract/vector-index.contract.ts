import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { VectorIndex, VectorRecord } from '../../shared/ports/index.js';
import { using, type Adapter } from './adapter.js';

const vec = (...v: number[]) => Float32Array.from(v);

function record(id: string, vector: Float32Array, meta: Partial<VectorRecord['metadata']> = {}, model = 'm1'): VectorRecord {
  return { id, vector, model, hash: `h-${id}`, metadata: { host: 'a.example.com', language: 'en', tags: [], ...meta } };
}

/** The behaviour every VectorIndex adapter must have: cosine nearest neighbours, filters, replace, delete, paginated listing. */
export function vectorIndexContract(name: string, adapter: Adapter<VectorIndex>): void {
  test(`${name}: returns the nearest vectors of a model by cosine distance, filtered by domain, language, date and tags`, () =>
    using(adapter, async (index) => {
      await index.upsert([
        record('p1', vec(1, 0, 0, 0), { host: 'blog.example.com', language: 'en-GB', published: '2024-05-17', tags: ['#garden', '#compost'] }),
        record('p2', vec(0.9, 0.1, 0, 0), { host: 'example.org', language: 'de', published: '2021-01-02', tags: ['#garden'] }),
        record('p3', vec(0, 1, 0, 0), { host: 'example.com', language: 'en', tags: ['#money'] }),
        record('p4', vec(1, 0, 0, 0), {}, 'm2'),
      ]);
      const q = vec(1, 0, 0, 0);
      const all = await index.query(q, 'm1', 10, {});
      assert.deepEqual(
        all.map((h) => h.id),
        ['p1', 'p2', 'p3'],
        'nearest first; another model never answers',
      );
      assert.ok(Math.abs(all[0]!.distance) < 1e-6 && Math.abs(all[2]!.distance - 1) < 1e-6);
      assert.deepEqual(
        (await index.query(q, 'm1', 1, {})).map((h) => h.id),
        ['p1'],
      );
      const ids = async (f: Parameters<VectorIndex['query']>[3]) => (await index.query(q, 'm1', 10, f)).map((h) => h.id);
      assert.deepEqual(await ids({ domain: 'example.com' }), ['p1', 'p3'], 'a domain matches its subdomains');
      assert.deepEqual(await ids({ domain: 'blog.example.com' }), ['p1']);
      assert.deepEqual(await ids({ language: 'en' }), ['p1', 'p3'], 'a language matches its regional variants');
      assert.deepEqual(await ids({ language: 'en-GB' }), ['p1']);
      assert.deepEqual(await ids({ tags: ['#garden'] }), ['p1', 'p2']);
      assert.deepEqual(await ids({ tags: ['#garden', '#compost'] }), ['p1'], 'every tag must be on the page');
      assert.deepEqual(await ids({ since: '2022' }), ['p1'], 'pages without a date are left out when a bound is given');
      assert.deepEqual(await ids({ until: '2021-12' }), ['p2']);
      assert.deepEqual(await ids({ since: '2024-05-17', until: '2024-05-17' }), ['p1'], 'both bounds include the day');
    }));

  test(`${name}: replaces a vector by id, deletes, and lists every entry across pages`, () =>
    using(adapter, async (index) => {
      await index.upsert(['a', 'b', 'c', 'd', 'e'].map((id, i) => record(id, vec(1, i, 0, 0))));
      await index.upsert([{ ...record('c', vec(0, 0, 1, 0)), hash: 'h-new' }]);
      await index.delete(['e', 'missing']);
      const seen = new Map<string, { model: string; dimension: number; hash: string }>();
      let token: string | undefined;
      let pages = 0;
      do {
        const page = await index.list(token, 2);
        assert.ok(page.entries.length <= 2);
        for (const e of page.entries) seen.set(e.id, e);
        token = page.next;
        pages++;
      } while (token && pages < 10);
      assert.deepEqual([...seen.keys()].sort(), ['a', 'b', 'c', 'd']);
      assert.deepEqual(seen.get('c'), { id: 'c', model: 'm1', dimension: 4, hash: 'h-new' });
      assert.deepEqual(
        (await index.entriesOf(['d', 'e', 'c', 'missing'])).sort((x, y) => (x.id < y.id ? -1 : 1)),
        [seen.get('c'), seen.get('d')],
        'the entries of the ids asked, of those it holds',
      );
      assert.equal((await index.query(vec(0, 0, 1, 0), 'm1', 1, {}))[0]!.id, 'c');
    }));
}
