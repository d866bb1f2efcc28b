import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { SqliteCrawlStore } from '../../shared/store/local/sqlite-store.js';
import { SqliteEnrichStore } from '../../shared/store/local/sqlite-search.js';
import { salvage } from '../../shared/store/local/sqlite-salvage.js';
import { enrichmentRecord as record } from '../contract/enrich-store.contract.js';
import { tempDir } from '../helpers.js';
import { stem } from '../../shared/enrich/text.js';
import { LocalTextGenerator } from '../../shared/enrich/local-provider.js';
import type { EnrichDocument } from '../../shared/enrich/providers.js';
import { summarizePage } from '../../shared/pipeline/stages/enrich-stage.js';

test('the full-text index ranks by BM25, filters, forgets deleted pages, and survives a salvage with its rowids', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const store = new SqliteCrawlStore(dir);
    const enrich = new SqliteEnrichStore(store.db);
    await enrich.putEnrichment(
      record('p1', 'Compost heaps', ['#compost'], { language: 'en-GB', published: '2024-03-01' }),
      'Turn the compost heap every week; a compost heap gets hot.',
    );
    await enrich.putEnrichment(record('p2', 'Growing tomatoes', ['#tomatoes'], { host: 'b.example', language: 'de' }), 'Feed tomatoes with compost tea.');
    await enrich.putEnrichment(record('p3', 'Index funds', ['#investing']), 'Fees matter.');
    // Re-enriching replaces the indexed text: no stale terms remain.
    await enrich.putEnrichment(record('p3', 'Index funds', ['#investing']), 'Broad markets at low cost.');
    const ids = async (terms: string[], f = {}) => (await enrich.textSearch(terms, f, 10)).map((h) => h.urlId);
    assert.deepEqual(await ids(['compost']), ['p1', 'p2'], 'more and weightier matches rank first');
    assert.deepEqual(await ids(['composting']), ['p1', 'p2'], 'Porter stemming');
    assert.deepEqual(await ids(['compost'], { tags: ['#tomatoes'] }), ['p2']);
    assert.deepEqual(await ids(['compost'], { language: 'en' }), ['p1']);
    assert.deepEqual(await ids(['compost'], { since: '2024' }), ['p1']);
    assert.deepEqual(await ids(['fees']), []);
    assert.deepEqual(await ids(['markets', 'OR', '"quoted']), ['p3'], 'words that look like FTS5 syntax are only words');
    // Every write replaces a page's tags by doc_id: an index serves it, so a pass stays linear in pages.
    const plan = store.db.prepare('EXPLAIN QUERY PLAN DELETE FROM enrichment_tags WHERE doc_id = ?').all(1) as Array<{ detail: string }>;
    assert.match(plan.map((p) => p.detail).join(' '), /USING (COVERING )?INDEX enrichment_tags_doc/);
    await enrich.deleteEnrichment('p2');
    assert.deepEqual(await ids(['compost']), ['p1']);
    await store.close();

    const report = salvage(join(dir, 'trawl.db'));
    assert.equal(report.tables.find((t) => t.table === 'search_text')?.rows, 2);
    assert.ok(!report.tables.some((t) => t.table.startsWith('search_text_')), 'the FTS shadow tables are rebuilt, not copied');
    const reopened = new SqliteCrawlStore(dir);
    try {
      const after = new SqliteEnrichStore(reopened.db);
      assert.deepEqual(
        (await after.textSearch(['compost'], {}, 10)).map((h) => h.urlId),
        ['p1'],
      );
      const [hit] = await after.hitDetails(['p3'], ['market', 'cheap']);
      assert.deepEqual(hit!.matched, ['market'], 'the salvaged index still holds the text');
    } finally {
      await reopened.close();
    }
  } finally {
    cleanup();
  }
});

test('document frequencies come from the index, in the tagger’s own stems; the local tagger weighs phrases by them', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const store = new SqliteCrawlStore(dir);
    const enrich = new SqliteEnrichStore(store.db);
    // Thirty pages of one harbour site: "harbour" is on every one, "herring" on this one only.
    for (let i = 0; i < 30; i++)
      await enrich.putEnrichment(
        record(`p${i}`, `Page ${i}`, []),
        `The harbour guide, page ${i}: ${i === 7 ? 'herring boats landed herring' : 'moorings and tides'}.`,
      );
    const stats = await enrich.termFrequencies([stem('harbour'), stem('herring'), stem('moorings'), 'absent']);
    assert.equal(stats.docs, 30);
    assert.deepEqual(stats.df, { [stem('harbour')]: 30, [stem('herring')]: 1, [stem('moorings')]: 29 });

    // Through the Summarize stage: the local tagger gets the page's stems' frequencies.
    const seen: Array<EnrichDocument['corpus']> = [];
    class Spy extends LocalTextGenerator {
      override async tag(doc: EnrichDocument): Promise<string[]> {
        seen.push(doc.corpus);
        return super.tag(doc);
      }
    }
    const providers = { text: new Spy() };
    const text = 'Harbour harbour harbour. The harbour herring fleet landed herring at the harbour quay.';
    const candidate = { urlId: 'x', url: 'https://h.test/x', host: 'h.test', title: 'The herring fleet', markdown: text, textHash: 't' };
    const deps = { enrich, vectors: undefined as never, providers: providers as never, clock: Date.now };
    const tags = (await summarizePage(deps, candidate, { summary: true, tags: true, embedding: false })).tags;
    assert.equal(seen[0]?.docs, 30);
    assert.equal(seen[0]?.df[stem('harbour')], 30);
    assert.ok(!tags.includes('#harbour'), `a word on every page is no topic: ${tags.join(' ')}`);
    assert.ok(
      tags.some((t) => t.includes('herring')),
      tags.join(' '),
    );
    const without = await new LocalTextGenerator().tag({ url: candidate.url, title: candidate.title, text });
    assert.ok(without.includes('#harbour'), `without the statistics it is: ${without.join(' ')}`);
    await store.close();
  } finally {
    cleanup();
  }
});
