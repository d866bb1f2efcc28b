// The search readers of `trawl serve`: worker threads with their own read-only connections answer
// the full-text, vector and hit-detail reads exactly as the HTTP thread would.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { openLocalForReading } from '../../shared/store/local/open-local.js';
import { ReaderPool } from '../../shared/store/local/reader-pool.js';
import { LocalEmbedder } from '../../shared/enrich/local-provider.js';
import { serveOptions } from '../../shared/cli/serve-command.js';
import { withEnrichedCrawl } from '../../support/search/fixture-site.js';

const QUERIES = ['seasoning cast iron', 'compost heap', 'sourdough starter feeding', 'index fund fees'];

test('search reads answered by reader threads equal the same reads on the calling thread', async () => {
  await withEnrichedCrawl(async (settings) => {
    const local = openLocalForReading(settings.data);
    const pool = new ReaderPool(settings.data, local, 2);
    try {
      assert.equal(await pool.whenReady(), 2);
      const pooled = pool.stores();
      const embedder = new LocalEmbedder();
      for (const q of QUERIES) {
        const terms = q.split(' ');
        const text = await pooled.enrich.textSearch(terms, {}, 10);
        assert.ok(text.length > 0, q);
        assert.deepEqual(text, await local.enrich.textSearch(terms, {}, 10));
        const [vector] = await embedder.embed([q]);
        const near = await pooled.vectors.query(vector!, embedder.stamp.model, 10, { language: 'en' });
        assert.deepEqual(near, await local.vectors.query(vector!, embedder.stamp.model, 10, { language: 'en' }));
        const ids = text.map((t) => t.urlId);
        assert.deepEqual(await pooled.enrich.hitDetails(ids, terms), await local.enrich.hitDetails(ids, terms));
      }
      // Several at once, spread over both readers.
      const many = await Promise.all(QUERIES.flatMap((q) => [1, 2, 3].map(() => pooled.enrich.textSearch(q.split(' '), {}, 5))));
      assert.equal(many.length, 12);
      // Writes are not theirs: they stay on the calling thread's store.
      assert.equal(pooled.enrich.putEnrichment, local.enrich.putEnrichment);
    } finally {
      await pool.close();
      await local.close();
    }
  });
});

test('readers that cannot open the directory leave the searches to the calling thread', async () => {
  await withEnrichedCrawl(async (settings) => {
    const local = openLocalForReading(settings.data);
    const pool = new ReaderPool(join(settings.data, 'missing'), local, 1);
    try {
      assert.equal(await pool.whenReady(), 0);
      const hits = await pool.stores().enrich.textSearch(['compost'], {}, 5);
      assert.deepEqual(hits, await local.enrich.textSearch(['compost'], {}, 5));
      assert.ok(hits.length > 0);
    } finally {
      await pool.close();
      await local.close();
    }
  });
});

test('--readers takes a thread count, 0 for none', () => {
  assert.equal(serveOptions({ readers: '0' }, {}).readers, 0);
  assert.ok(serveOptions({}, {}).readers >= 1);
  assert.throws(() => serveOptions({ readers: 'many' }, {}), /--readers: expected a number of search threads/);
});
