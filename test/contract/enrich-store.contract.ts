import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { CrawlStore, EdgeRecord, EnrichmentRecord, EnrichStore, ExtractRecord } from '../../shared/ports/index.js';
import { ENRICH_LATENCY_BOUNDS_MS } from '../../shared/ports/search-index.js';
import { HIT_FIELDS, type PageFields } from '../../shared/ports/page-fields.js';

/** A value for every field a hit shows from its page (`HIT_FIELDS`): one left out by an adapter fails the tests below. */
const everyPageField = (salt: string): Required<PageFields> =>
  Object.fromEntries(
    Object.keys(HIT_FIELDS).map((f) => [f, f === 'published' ? `2024-01-0${salt.length}` : f === 'language' ? 'en' : `${f} of ${salt}`]),
  ) as Required<PageFields>;
import { edge, extract, page, row } from '../store-records.js';
import { using, type Adapter } from './adapter.js';

/** The store under test: the crawl store that holds pages, its enrichment side, and (in the cloud) the full-text build. */
export interface EnrichPair {
  store: CrawlStore;
  enrich: EnrichStore;
  /** Folds what changed into a new full-text generation, where the adapter builds one. */
  rebuild?: () => Promise<unknown>;
  /** Ranks a run's pages, where inlinks are as of the last ranking (the cloud's FinalizeRun). */
  rank?: (runId: number) => Promise<unknown>;
}

const stamp = { provider: 'local' as const, model: 'm', version: 'v1', at: 1 };

/** An enrichment record of `http://a.test/<urlId>` for store tests. */
export function enrichmentRecord(urlId: string, title: string, tags: string[], fields: Partial<EnrichmentRecord> = {}): EnrichmentRecord {
  return {
    urlId,
    url: `http://a.test/${urlId}`,
    host: 'a.test',
    title,
    textHash: `t-${urlId}`,
    summary: `About ${title}.`,
    tags,
    summaryStamp: stamp,
    tagsStamp: stamp,
    updatedAt: 1,
    ...fields,
  };
}

/** Commits a fetched page with its extraction (and outlinks) to the crawl store. */
async function stored(
  s: CrawlStore,
  runId: number,
  id: string,
  text: string,
  opts: { indexable?: boolean; x?: Partial<ExtractRecord>; edges?: EdgeRecord[] } = {},
): Promise<void> {
  await s.addUrls([row(runId, id)]);
  await s.commitFetch({
    runId,
    urlId: id,
    state: 'done',
    attempts: 1,
    page: { ...page({ runId, urlId: id, contentHash: `h-${id}`, fetchedAt: 10 }), indexable: opts.indexable ?? true },
    edges: opts.edges,
    extract: extract(id, text, `h-${id}`, { title: `Title ${id}`, ...opts.x }),
  });
}

/** The behaviour every EnrichStore adapter must have: candidates, records, BM25 search with filters, dead letters, hit details. */
export function enrichStoreContract(name: string, adapter: Adapter<EnrichPair>): void {
  test(`${name}: lists the pages to enrich in url-id order, leaving out noindex, empty and duplicate pages`, () =>
    using(adapter, async ({ store, enrich }) => {
      const run = await store.createRun([], {}, 1);
      await stored(store, run.id, 'e5', 'fifth page words', { x: everyPageField('e5') });
      await stored(store, run.id, 'a1', 'first page words');
      await stored(store, run.id, 'b2', 'hidden page', { indexable: false });
      await stored(store, run.id, 'c3', '', { x: { wordCount: 0 } });
      await stored(store, run.id, 'd4', 'first page words', { x: { textDuplicateOf: 'a1' } });
      const ids = async (after: string, limit: number) => (await enrich.enrichCandidates(after, limit)).map((c) => c.urlId);
      assert.deepEqual(await ids('', 10), ['a1', 'e5']);
      assert.deepEqual(await ids('', 1), ['a1']);
      assert.deepEqual(await ids('a1', 10), ['e5']);
      assert.deepEqual(await ids('e5', 10), []);
      const e5 = await enrich.enrichCandidate('e5');
      assert.deepEqual(
        { ...e5, enrichment: undefined },
        {
          urlId: 'e5',
          url: 'http://a.test/e5',
          host: 'a.test',
          title: 'Title e5',
          markdown: 'fifth page words',
          textHash: 't-fifth page words',
          // Every field a hit shows, from the page's extraction.
          ...everyPageField('e5'),
          enrichment: undefined,
        },
      );
      assert.equal(await enrich.enrichCandidate('b2'), undefined);
      assert.equal(e5!.enrichment, undefined);
      await enrich.putEnrichment(enrichmentRecord('e5', 'Title e5', ['#fifth']), 'fifth page words');
      assert.equal((await enrich.enrichCandidate('e5'))?.enrichment?.summary, 'About Title e5.');
    }));

  test(`${name}: keeps records in url-id order, replaces and deletes them`, () =>
    using(adapter, async ({ enrich }) => {
      // Every optional field set.
      const extracted = {
        data: { price: 12.5, specs: [{ name: 'Flow', value: '3000 l/h' }] },
        sources: { '/price': ['c1'], '/specs/0/name': ['c2'], '/specs/0/value': ['c2'] },
        attempts: 2,
        provider: 'openai',
        model: 'm',
        inputTokens: 900,
        outputTokens: 80,
        spec: 'abc',
      };
      const every = { ...everyPageField('9c'), embedding: { ...stamp, dimension: 4, hash: 'abc' }, listing: 0.5, extracted };
      await enrich.putEnrichment(enrichmentRecord('f0', 'Six', ['#six']), 'six');
      await enrich.putEnrichment(enrichmentRecord('0a', 'One', ['#one']), 'one');
      await enrich.putEnrichment(enrichmentRecord('9c', 'Two', ['#two'], every), 'two');
      await enrich.putEnrichment(enrichmentRecord('0a', 'One again', ['#one']), 'one');
      const all = await enrich.enrichments('', 10);
      assert.deepEqual(
        all.map((e) => [e.urlId, e.title]),
        [
          ['0a', 'One again'],
          ['9c', 'Two'],
          ['f0', 'Six'],
        ],
      );
      assert.deepEqual(all[1]!.embedding, { ...stamp, dimension: 4, hash: 'abc' });
      // Every field of a record comes back as it was put (tookMs is counted, not kept).
      assert.deepEqual(all[1], enrichmentRecord('9c', 'Two', ['#two'], every));
      assert.deepEqual(
        (await enrich.enrichments('0a', 1)).map((e) => e.urlId),
        ['9c'],
      );
      assert.deepEqual((await enrich.enrichmentsOf(['f0', 'never-there', '0a'])).map((e) => e.urlId).sort(), ['0a', 'f0']);
      await enrich.deleteEnrichment('9c');
      await enrich.deleteEnrichment('never-there');
      assert.deepEqual(
        (await enrich.enrichments('', 10)).map((e) => e.urlId),
        ['0a', 'f0'],
      );
    }));

  test(`${name}: ranks by BM25 with stemming and filters, forgets replaced words and deleted pages, before and after a full-text build`, () =>
    using(adapter, async ({ enrich, rebuild }) => {
      await enrich.putEnrichment(
        enrichmentRecord('a1', 'Compost heaps', ['#compost'], { host: 'blog.a.test', language: 'en-GB', published: '2024-03-01' }),
        'Turn the compost heap every week; a compost heap gets hot.',
      );
      await enrich.putEnrichment(
        enrichmentRecord('b2', 'Growing tomatoes', ['#tomatoes'], { host: 'b.test', language: 'de' }),
        'Feed tomatoes with compost tea.',
      );
      await enrich.putEnrichment(enrichmentRecord('c3', 'Index funds', ['#investing']), 'Fees matter.');
      await enrich.putEnrichment(enrichmentRecord('c3', 'Index funds', ['#investing']), 'Broad markets at low cost.');
      const ids = async (terms: string[], f = {}) => (await enrich.textSearch(terms, f, 10)).map((h) => h.urlId);
      const check = async () => {
        assert.deepEqual(await ids(['compost']), ['a1', 'b2'], 'more and weightier matches rank first');
        assert.deepEqual(await ids(['composting']), ['a1', 'b2'], 'stemming');
        assert.deepEqual(await ids(['compost'], { tags: ['#tomatoes'] }), ['b2']);
        assert.deepEqual(await ids(['compost'], { domain: 'a.test' }), ['a1'], 'a domain takes its subdomains');
        assert.deepEqual(await ids(['compost'], { language: 'en' }), ['a1'], 'a language takes its regions');
        assert.deepEqual(await ids(['compost'], { since: '2024' }), ['a1']);
        assert.deepEqual(await ids(['compost'], { until: '2023-12-31' }), []);
        assert.deepEqual(await ids(['fees']), [], 'replaced text is gone');
        assert.deepEqual(await ids(['markets', 'OR', '"quoted']), ['c3'], 'words that look like query syntax are only words');
        const [best] = await enrich.textSearch(['compost', 'tomatoes'], {}, 1);
        assert.ok(best && best.score > 0);
      };
      await check();
      await rebuild?.();
      await check();
      // After a build: a new page is found at once, a deleted one is gone, a changed one loses its old words.
      await enrich.putEnrichment(enrichmentRecord('d4', 'Compost bins', ['#compost']), 'A compost bin beats a compost heap.');
      await enrich.deleteEnrichment('b2');
      await enrich.putEnrichment(enrichmentRecord('c3', 'Index funds', ['#investing']), 'Low fees beat stock picking.');
      assert.deepEqual((await ids(['compost'])).sort(), ['a1', 'd4']);
      assert.deepEqual(await ids(['tomatoes']), []);
      assert.deepEqual(await ids(['markets']), []);
      assert.deepEqual(await ids(['fees']), ['c3']);
      await rebuild?.();
      assert.deepEqual((await ids(['compost'])).sort(), ['a1', 'd4']);
      assert.deepEqual(await ids(['tomatoes']), []);
    }));

  test(`${name}: keeps failing pages with their stage, error and attempts until they are cleared or enriched`, () =>
    using(adapter, async ({ enrich }) => {
      await enrich.recordEnrichFailure({ urlId: 'a1', url: 'http://a.test/a1', stage: 'summary', error: 'throttled', attempts: 1, failedAt: 5 });
      await enrich.recordEnrichFailure({ urlId: 'b2', url: 'http://a.test/b2', stage: 'embedding', error: 'bad vector', attempts: 1, failedAt: 3 });
      await enrich.recordEnrichFailure({ urlId: 'a1', url: 'http://a.test/a1', stage: 'tags', error: 'malformed', attempts: 1, failedAt: 7 });
      assert.deepEqual(await enrich.enrichFailures(), [
        { urlId: 'b2', url: 'http://a.test/b2', stage: 'embedding', error: 'bad vector', attempts: 1, failedAt: 3 },
        { urlId: 'a1', url: 'http://a.test/a1', stage: 'tags', error: 'malformed', attempts: 2, failedAt: 7 },
      ]);
      await enrich.clearEnrichFailure('b2');
      await enrich.putEnrichment(enrichmentRecord('a1', 'Fixed', []), 'fixed');
      assert.deepEqual(await enrich.enrichFailures(), []);
    }));

  test(`${name}: counts each enrichment's time in the latency histogram, and keeps it out of the record`, () =>
    using(adapter, async ({ enrich }) => {
      const empty = await enrich.enrichLatency();
      assert.deepEqual(empty, { counts: new Array<number>(ENRICH_LATENCY_BOUNDS_MS.length + 1).fill(0), sumMs: 0 });
      await enrich.putEnrichment(enrichmentRecord('a1', 'Quick', [], { tookMs: 4 }), 'quick');
      await enrich.putEnrichment(enrichmentRecord('b2', 'Slow', [], { tookMs: 300 }), 'slow');
      await enrich.putEnrichment(enrichmentRecord('a1', 'Quick again', [], { tookMs: 45_000 }), 'quick again');
      await enrich.putEnrichment(enrichmentRecord('c3', 'Untimed', []), 'untimed');
      const expected = new Array<number>(ENRICH_LATENCY_BOUNDS_MS.length + 1).fill(0);
      expected[0] = 1; // 4 ms: up to 10
      expected[4] = 1; // 300 ms: (250, 500]
      expected[ENRICH_LATENCY_BOUNDS_MS.length] = 1; // 45 s: above the last bound
      assert.deepEqual(await enrich.enrichLatency(), { counts: expected, sumMs: 45_304 });
      for (const r of await enrich.enrichments('', 10)) assert.equal('tookMs' in r, false, r.urlId);
    }));

  test(`${name}: shows a hit with its record, indexed text and the anchors other pages link to it with`, () =>
    using(adapter, async ({ store, enrich, rank }) => {
      const run = await store.createRun([], {}, 1);
      await stored(store, run.id, 'a1', 'compost heaps');
      const link = (from: string, anchor: string, section: EdgeRecord['section'] = 'body') => ({ ...edge(from, `h-${from}`, 'a1'), anchor, section });
      // A page links to a target once (its first link); a menu's anchor says nothing about the page.
      await stored(store, run.id, 'f6', 'one', { edges: [link('f6', 'compost guide')] });
      await stored(store, run.id, 'f7', 'two', { edges: [link('f7', 'compost guide')] });
      await stored(store, run.id, 'f8', 'three', { edges: [link('f8', 'Home', 'nav')] });
      await stored(store, run.id, 'f9', 'four', { edges: [link('f9', 'heaps', 'sidebar')] });
      const failed = {
        error: 'the answer did not match the schema after 2 attempts: /price must be number',
        attempts: 2,
        provider: 'openai',
        model: 'm',
        inputTokens: 0,
        outputTokens: 0,
        spec: 's',
      };
      await enrich.putEnrichment(
        enrichmentRecord('a1', 'Compost heaps', ['#compost'], { ...everyPageField('a1'), listing: 0.25, extracted: failed }),
        'Turn the heap weekly.',
      );
      await rank?.(run.id);
      const [hit, ...rest] = await enrich.hitDetails(['a1', 'zz'], ['heap', 'turning', 'weekly', 'monthly', 'compost']);
      assert.equal(rest.length, 0, 'an id without a record is left out');
      assert.deepEqual(hit, {
        urlId: 'a1',
        url: 'http://a.test/a1',
        host: 'a.test',
        title: 'Compost heaps',
        summary: 'About Compost heaps.',
        tags: ['#compost'],
        // Every field a hit shows from its page.
        ...everyPageField('a1'),
        // By stem, over the title, tags, summary and body the index holds, in the query's order.
        matched: ['heap', 'turning', 'weekly', 'compost'],
        inlinks: [
          { anchor: 'compost guide', count: 2 },
          { anchor: 'heaps', count: 1 },
        ],
        listing: 0.25,
        // The pages linking to it from their body or sidebar, for search's listing rule (its menu links are not).
        linkedFrom: hit!.linkedFrom,
        // Its values for the crawl's extract schema, or why there are none.
        extracted: { data: undefined, sources: undefined, error: failed.error },
      });
      assert.deepEqual([...hit!.linkedFrom!].sort(), ['f6', 'f7', 'f9']);
    }));
}
