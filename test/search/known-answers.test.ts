import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resolveSettings } from '../../shared/cli/args.js';
import { crawlCommand } from '../../shared/cli/crawl-command.js';
import { openLocalForWriting } from '../../shared/store/local/open-local.js';
import { createProviders } from '../../shared/enrich/provider-factory.js';
import { LocalEmbedder } from '../../shared/enrich/local-provider.js';
import { DEFAULT_HASHING } from '../../shared/enrich/local-embedding.js';
import { enrichAll } from '../../shared/pipeline/embedded/enrich-run.js';
import { DOCS } from '../../support/search/corpus.js';
import { tempDir } from '../../support/helpers.js';
import { testFlags } from '../../support/crawl-helpers.js';
import { startFixtureSite } from '../../support/search/fixture-site.js';
import { evaluate } from '../../support/search/evaluate.js';

test('the known-answer queries find their pages: BM25, vectors and fused, with the local provider', async () => {
  const site = await startFixtureSite();
  const data = tempDir();
  try {
    const settings = resolveSettings(testFlags(data.dir, { 'delay-ms': '0' }), {});
    await crawlCommand([`${site.origin}/`], settings, { out: () => {} });
    const local = openLocalForWriting(data.dir, 'test');
    try {
      const providers = createProviders(settings, {});
      const run = await enrichAll({ enrich: local.enrich, vectors: local.vectors, providers, clock: Date.now }, { mode: 'new', concurrency: 2 });
      assert.equal(run.failed, 0, JSON.stringify(run.failures));
      assert.ok(run.enriched >= DOCS.length, `enriched ${run.enriched} of ${DOCS.length} fixture pages`);
      const slugOf = (url: string) => new URL(url).pathname.slice(1);
      const deps = { enrich: local.enrich, vectors: local.vectors, embedder: providers.embedder };
      const text = await evaluate(deps, 'text', slugOf);
      const vector = await evaluate(deps, 'vector', slugOf);
      const fused = await evaluate(deps, 'hybrid', slugOf);
      // Plain bag-of-words vectors, the baseline the n-gram hashing has to beat on paraphrases.
      const bowProviders = { ...providers, embedder: new LocalEmbedder({ ...DEFAULT_HASHING, charNgrams: [], bigramWeight: 0 }) };
      await enrichAll({ enrich: local.enrich, vectors: local.vectors, providers: bowProviders, clock: Date.now }, { mode: 'stale', concurrency: 2 });
      const bow = await evaluate({ ...deps, embedder: bowProviders.embedder }, 'vector', slugOf);
      for (const s of [text, vector, fused, { ...bow, mode: 'bag-of-words vectors' }]) {
        console.log(
          `# ${s.mode.padEnd(20)} recall@5 ${s.recallAt5.toFixed(3)}  MRR ${s.mrr.toFixed(3)}  (keyword ${s.keywordRecallAt5.toFixed(3)}, paraphrase ${s.paraphraseRecallAt5.toFixed(3)})`,
        );
        for (const m of s.misses) console.log(`#   miss: ${m}`);
      }
      assert.ok(fused.recallAt5 >= 0.9, `fused recall@5 ${fused.recallAt5} is under 0.9`);
      assert.equal(fused.keywordRecallAt5, 1, 'every keyword query finds its page in the top 5');
      assert.ok(vector.paraphraseRecallAt5 >= bow.paraphraseRecallAt5, 'n-gram hashing does no worse than bag-of-words on paraphrases');
    } finally {
      await local.close();
    }
  } finally {
    await site.close();
    data.cleanup();
  }
});
