// Search over real articles (support/search/real-site.ts): each question, written from the middle of
// an article in other words, finds that article first or nearly (MRR at least 0.9), and no hub page
// of the blog (home, archive, tag pages: they hold every article's title and first lines) ranks
// above the article that answers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resolveSettings } from '../../shared/cli/args.js';
import { crawlCommand } from '../../shared/cli/crawl-command.js';
import { openLocalForWriting } from '../../shared/store/local/open-local.js';
import { createProviders } from '../../shared/enrich/provider-factory.js';
import { enrichAll } from '../../shared/pipeline/embedded/enrich-run.js';
import { tempDir } from '../../support/helpers.js';
import { testFlags } from '../../support/crawl-helpers.js';
import { evaluateReal, REAL_ARTICLES, startRealSite } from '../../support/search/real-site.js';

test('questions on real articles find their article, above every hub page that lists it', async () => {
  const site = await startRealSite();
  const data = tempDir();
  try {
    const settings = resolveSettings(testFlags(data.dir, { 'delay-ms': '0', 'max-depth': '2' }), {});
    await crawlCommand([`${site.origin}/`], settings, { out: () => {} });
    const local = openLocalForWriting(data.dir, 'test');
    const providers = createProviders(settings, {});
    try {
      const run = await enrichAll({ enrich: local.enrich, vectors: local.vectors, providers, clock: Date.now }, { mode: 'new', concurrency: 2 });
      assert.equal(run.failed, 0, JSON.stringify(run.failures));
      const records = await local.enrich.enrichments('', 1000);
      const paths = new Map(records.map((e) => [new URL(e.url).pathname, e]));
      for (const a of REAL_ARTICLES) assert.ok(paths.has(`/a/${a.id}`), `article ${a.id} was crawled and enriched`);
      // The archive and the tag pages of two or more stories read as listings.
      for (const path of ['/', '/archive', '/tag/health', '/tag/technology'])
        assert.ok((paths.get(path)?.listing ?? 0) >= 0.2, `${path} reads as a listing: ${paths.get(path)?.listing}`);
      const deps = { enrich: local.enrich, vectors: local.vectors, embedder: providers.embedder };
      const scores = [];
      for (const mode of ['text', 'vector', 'hybrid'] as const) {
        const s = await evaluateReal(deps, mode);
        scores.push(s);
        console.log(
          `# ${mode.padEnd(7)} MRR ${s.mrr.toFixed(3)}  recall@5 ${s.recallAt5.toFixed(3)}  hub pages in the first three ${s.hubsInTop3}  ranks ${s.ranks.join(',')}`,
        );
        for (const h of s.hubAbove) console.log(`#   hub above: ${h}`);
      }
      const hybrid = scores.at(-1)!;
      assert.deepEqual(hybrid.hubAbove, [], 'no hub page ranks above the article that answers');
      assert.ok(hybrid.mrr >= 0.9, `hybrid MRR ${hybrid.mrr.toFixed(3)} is under 0.9: ${hybrid.misses.join('; ')}`);
      assert.ok(hybrid.recallAt5 === 1, `every article in the first five: ${hybrid.misses.join('; ')}`);
    } finally {
      await providers.close?.();
      await local.close();
    }
  } finally {
    await site.close();
    data.cleanup();
  }
});
