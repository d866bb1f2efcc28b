import { test } from 'node:test';
import assert from 'node:assert/strict';
import { crawl, enrich, openStore } from '../../shared/index.js';
import { tempDir } from '../../support/helpers.js';
import { startFixtureSite } from '../../support/search/fixture-site.js';

test('a program crawls, enriches and searches through the public library', async () => {
  const site = await startFixtureSite();
  const data = tempDir();
  try {
    await crawl([`${site.origin}/`], { data: data.dir, allowPrivateNetwork: true, delayMs: 0, env: {} });
    const seen: number[] = [];
    const result = await enrich({ data: data.dir, env: {}, onProgress: (p) => seen.push(p.done) });
    assert.equal(result.failed, 0);
    assert.equal(result.enriched, result.candidates);
    assert.equal(seen.at(-1), result.enriched, 'progress reaches the total');
    const store = openStore(data.dir);
    try {
      const { hits } = await store.search('sourdough starter', { limit: 3, env: {} });
      assert.equal(hits[0]!.url, `${site.origin}/sourdough-bread`);
      assert.deepEqual(hits[0]!.why.terms, ['sourdough', 'starter']);
      const none = await store.search('sourdough starter', { domain: 'elsewhere.example', env: {} });
      assert.equal(none.hits.length, 0);
      const e = await store.enrichment(`${site.origin}/sourdough-bread`);
      assert.equal(e?.summaryStamp.provider, 'local');
      assert.equal(e?.embedding?.dimension, 512);
      assert.ok(e!.tags.includes('#sourdough') || e!.tags.includes('#starter'), e!.tags.join(' '));
    } finally {
      await store.close();
    }
  } finally {
    await site.close();
    data.cleanup();
  }
});
