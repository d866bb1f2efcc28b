import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { SqliteCrawlStore } from '../../shared/store/local/sqlite-store.js';
import { BM25_WEIGHTS, ftsQuery, SqliteEnrichStore } from '../../shared/store/local/sqlite-search.js';
import { salvage } from '../../shared/store/local/sqlite-salvage.js';
import { enrichmentRecord as record } from '../contract/enrich-store.contract.js';
import { tempDir } from '../../support/helpers.js';
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

test('full-text top-k pruning: only pages holding a rare term are scored when that decides the top k, with the answer scoring every match gives', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const store = new SqliteCrawlStore(dir);
    const enrich = new SqliteEnrichStore(store.db);
    // 200 pages: "harbour" on most, "tides" on a third, "herring" on ten (some twice, some in the
    // title), "kelp" on fifteen pages of another host. Seeded, so every run builds the same index.
    let seed = 7;
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let i = 0; i < 200; i++) {
      const words = ['the', 'boats', 'moorings'];
      if (i % 10 !== 3) words.push('harbour', ...(rand() < 0.3 ? ['harbour'] : []));
      if (i % 3 === 0) words.push('tides');
      if (i % 20 === 5) words.push('herring', ...(i % 40 === 5 ? ['herring'] : []));
      if (i % 13 === 1) words.push('kelp');
      // Four terms on about a third of the pages each, and all four, twice, on six short pages.
      if (i % 3 === 1) words.push('nets');
      if (i % 10 < 3) words.push('gulls');
      if (i % 4 === 2) words.push('sails');
      if (i % 5 === 4) words.push('ropes');
      if (i >= 194) words.splice(0, words.length, 'nets', 'nets', 'gulls', 'gulls', 'sails', 'sails', 'ropes', 'ropes');
      for (let w = Math.floor(rand() * 30); w > 0; w--) words.push('quay');
      const title = i % 60 === 25 ? 'Herring season' : `Page ${i}`;
      await enrich.putEnrichment(record(`p${String(i).padStart(3, '0')}`, title, [], { host: i % 2 ? 'b.example' : 'a.test' }), words.join(' '));
    }
    // What scoring every match answers (the plain query, as before pruning).
    const every = (terms: string[], limit: number, host?: string) =>
      (
        store.db
          .prepare(
            `SELECT e.url_id, -bm25(search_text, ${BM25_WEIGHTS.join(', ')}) AS score FROM search_text JOIN enrichments e ON e.doc_id = search_text.rowid
             WHERE search_text MATCH ?${host ? ' AND e.host = ?' : ''} ORDER BY score DESC, e.url_id LIMIT ?`,
          )
          .all(ftsQuery(terms), ...(host ? [host] : []), limit) as Array<{ url_id: string; score: number }>
      ).map((r) => ({ urlId: r.url_id, score: r.score }));
    const same = (got: Array<{ urlId: string; score: number }>, want: Array<{ urlId: string; score: number }>, what: string) => {
      assert.deepEqual(
        got.map((h) => h.urlId),
        want.map((h) => h.urlId),
        what,
      );
      got.forEach((h, i) => assert.ok(Math.abs(h.score - want[i]!.score) < 1e-9, `${what}: the same BM25 score`));
    };

    // Ten pages hold "herring": its bound alone outweighs the others', so only those are scored.
    same(await enrich.textSearch(['harbour', 'tides', 'herring'], {}, 5), every(['harbour', 'tides', 'herring'], 5), 'rare term');
    assert.equal(enrich.lastTextPlan, 'pruned');
    same(await enrich.textSearch(['harbour', 'herring'], { domain: 'b.example' }, 3), every(['harbour', 'herring'], 3, 'b.example'), 'filtered');
    // More asked for than the rare pages hold: pass by pass, the commoner terms' pages too.
    same(await enrich.textSearch(['harbour', 'tides', 'herring'], {}, 50), every(['harbour', 'tides', 'herring'], 50), 'deep');
    // One term, or a rarest term on most of the matching pages: every match is scored at once.
    same(await enrich.textSearch(['tides'], {}, 5), every(['tides'], 5), 'one term');
    assert.equal(enrich.lastTextPlan, 'all');
    // Two terms of similar rarity, and one common: still the same answer.
    same(await enrich.textSearch(['kelp', 'herring', 'harbour', 'quay'], {}, 8), every(['kelp', 'herring', 'harbour', 'quay'], 8), 'two rare terms');
    // Pages holding the four middling terms outscore every page holding "kelp": the first pass's
    // k-th score is below the others' bounds, and a wider pass (or every match) answers.
    same(
      await enrich.textSearch(['kelp', 'nets', 'gulls', 'sails', 'ropes'], {}, 5),
      every(['kelp', 'nets', 'gulls', 'sails', 'ropes'], 5),
      'common terms win',
    );
    assert.ok(!(await enrich.textSearch(['kelp'], {}, 20)).some((h) => every(['kelp', 'nets', 'gulls', 'sails', 'ropes'], 5)[0]!.urlId === h.urlId));
    same(await enrich.textSearch(['tides', 'harbour', 'absent'], {}, 10), every(['tides', 'harbour'], 10), 'a term no page holds');

    // The counts behind the bounds follow the index: a write makes "herring" common, and the answer follows.
    for (let i = 0; i < 120; i++) await enrich.putEnrichment(record(`q${i}`, `More ${i}`, []), 'herring herring herring');
    same(await enrich.textSearch(['harbour', 'tides', 'herring'], {}, 5), every(['harbour', 'tides', 'herring'], 5), 'after writes');
    await store.close();
  } finally {
    cleanup();
  }
});
