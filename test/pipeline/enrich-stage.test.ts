import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createProviders } from '../../shared/enrich/provider-factory.js';
import { enrichAll } from '../../shared/pipeline/embedded/enrich-run.js';
import { hybridSearch } from '../../shared/search/hybrid.js';
import { withFixtureCrawl } from '../../support/search/fixture-site.js';
import { pagesModelServer } from '../enrich/model-servers.js';

test('a page whose model calls keep failing goes to the dead-letter list, the pass goes on, and the next pass retries only it', async () => {
  let kimchiFails = true;
  const server = await pagesModelServer(
    ['#household', '#how-to', '#practical-advice'],
    (title) => `${title} explained in plain words, with its key numbers.`,
    (title) => {
      if (kimchiFails && /kimchi/i.test(title)) return { status: 400, body: { error: { message: 'content filtered' } } };
      if (/flat bicycle tyre/i.test(title)) return { status: 429, headers: { 'retry-after': '0' }, body: { error: { message: 'slow down' } } };
      return undefined;
    },
  );
  try {
    await withFixtureCrawl(server.origin, async (settings, local) => {
      const providers = createProviders(settings, {});
      const retry = { attempts: 3, baseMs: 1, sleep: async () => {} };
      const deps = { enrich: local.enrich, vectors: local.vectors, providers, clock: Date.now, retry };
      const first = await enrichAll(deps, { mode: 'new', concurrency: 3 });
      assert.equal(first.failed, 2);
      const failures = await local.enrich.enrichFailures();
      assert.deepEqual(failures.map((f) => [new URL(f.url).pathname, f.stage]).sort(), [
        ['/fermenting-kimchi', 'summary'],
        ['/flat-tyre', 'summary'],
      ]);
      assert.match(failures.find((f) => f.url.endsWith('kimchi'))!.error, /400: content filtered/);
      assert.match(failures.find((f) => f.url.endsWith('flat-tyre'))!.error, /429: slow down/);
      assert.equal(first.enriched, first.candidates - 2);
      const served = server.seen.filter((r) => /^Title: Fixing a flat bicycle tyre/m.test(r.body.messages?.[1]?.content ?? '')).length;
      assert.equal(served, 3, 'a throttled page is tried `attempts` times, then dead-lettered');

      // The enriched pages are searchable with the stamps of the model that made them.
      const { hits } = await hybridSearch({ enrich: local.enrich, vectors: local.vectors, embedder: providers.embedder }, { q: 'sourdough starter', limit: 3 });
      assert.equal(new URL(hits[0]!.url).pathname, '/sourdough-bread');
      const [record] = await local.enrich.enrichments('', 1);
      assert.deepEqual({ ...record!.summaryStamp, at: 0 }, { provider: 'openai', model: 'gpt-4o-mini', version: 'summary-v1', at: 0 });
      assert.deepEqual(record!.tags, ['#household', '#how-to', '#practical-advice']);

      kimchiFails = false;
      const before = server.seen.length;
      const second = await enrichAll(deps, { mode: 'new', concurrency: 3 });
      assert.equal(second.enriched, 1, 'only the pages that failed are tried again');
      assert.equal(second.failed, 1);
      assert.deepEqual(
        (await local.enrich.enrichFailures()).map((f) => new URL(f.url).pathname),
        ['/flat-tyre'],
      );
      assert.equal((await local.enrich.enrichFailures())[0]!.attempts, 2, 'attempts add up across passes');
      assert.ok(server.seen.length - before <= 3 + 3 + 1, 'no call for pages already enriched');
    });
  } finally {
    await server.close();
  }
});
