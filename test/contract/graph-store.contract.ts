import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { CrawlStore, EdgeRecord, FrontierRow, GraphStore, PageRecord } from '../../shared/ports/index.js';
import { urlId } from '../../shared/url/canonical.js';
import { using, type Adapter } from './adapter.js';
import { frontierRow } from '../../support/helpers.js';

/** A graph store reads what the crawl store of the same adapter wrote. */
export interface GraphPair {
  store: CrawlStore;
  graph: GraphStore;
}

const url = (name: string, host = 'a.test') => `http://${host}/${name}`;
const id = (name: string, host = 'a.test') => urlId(url(name, host));
const row = (runId: number, name: string, host = 'a.test'): FrontierRow => frontierRow({ runId, urlId: id(name, host), url: url(name, host) });
const page = (runId: number, name: string, host = 'a.test'): PageRecord => ({
  urlId: id(name, host),
  url: url(name, host),
  host,
  runId,
  status: 200,
  mime: 'text/html',
  bytes: 1,
  truncated: false,
  fetchedAt: 1,
  indexable: true,
  nofollow: false,
  contentHash: `h-${host}-${name}`,
  title: `Page ${name}`,
});
const edge = (from: string, to: string, opts: { fromHost?: string; toHost?: string; anchor?: string; section?: EdgeRecord['section'] } = {}): EdgeRecord => ({
  fromId: id(from, opts.fromHost),
  snapshot: `h-${opts.fromHost ?? 'a.test'}-${from}`,
  toId: id(to, opts.toHost),
  toUrl: url(to, opts.toHost),
  anchor: opts.anchor ?? `to ${to}`,
  context: `read about ${to} here`,
  section: opts.section ?? 'body',
  rel: '',
  internal: opts.toHost === undefined,
  nofollow: false,
});

/** The behaviour every GraphStore adapter must have: links with context both ways, ranks, unfetched URLs. */
export function graphStoreContract(name: string, adapter: Adapter<GraphPair>): void {
  /** x → y, x → z, y → z, y → gone (never fetched), b.test/w → z (another host); old → z is an alias of z. */
  async function seed({ store }: GraphPair): Promise<number> {
    const run = await store.createRun([], {}, 1);
    await store.addUrls([row(run.id, 'x'), row(run.id, 'y'), row(run.id, 'z'), row(run.id, 'w', 'b.test'), row(run.id, 'old')]);
    await store.commitFetch({
      runId: run.id,
      urlId: id('x'),
      state: 'done',
      attempts: 1,
      page: page(run.id, 'x'),
      edges: [edge('x', 'y', { section: 'nav', anchor: 'Why' }), edge('x', 'z', { anchor: 'Zed' })],
    });
    await store.commitFetch({
      runId: run.id,
      urlId: id('y'),
      state: 'done',
      attempts: 1,
      page: page(run.id, 'y'),
      edges: [edge('y', 'z'), edge('y', 'gone'), edge('y', 'old', { anchor: 'the old address' })],
    });
    await store.commitFetch({
      runId: run.id,
      urlId: id('old'),
      state: 'done',
      reason: 'redirect',
      attempts: 1,
      aliases: [{ urlId: id('old'), url: url('old'), targetUrl: url('z'), reason: 'redirect' }],
    });
    await store.commitFetch({ runId: run.id, urlId: id('z'), state: 'done', attempts: 1, page: page(run.id, 'z'), edges: [] });
    await store.commitFetch({
      runId: run.id,
      urlId: id('w', 'b.test'),
      state: 'done',
      attempts: 1,
      page: page(run.id, 'w', 'b.test'),
      edges: [edge('w', 'z', { fromHost: 'b.test', toHost: 'a.test' })],
    });
    return run.id;
  }

  test(`${name}: outlinks of the current snapshot with anchor, context and section`, () =>
    using(adapter, async (pair) => {
      await seed(pair);
      const out = await pair.graph.outlinks(id('x'));
      assert.deepEqual(out.map((l) => [l.toUrl, l.anchor, l.section, l.fromUrl]).sort(), [
        [url('y'), 'Why', 'nav', url('x')],
        [url('z'), 'Zed', 'body', url('x')],
      ]);
      assert.equal(out[0]!.context.length > 0, true);
    }));

  test(`${name}: inlinks of a page, directly and through a redirect alias, from every host`, () =>
    using(adapter, async (pair) => {
      // Inlinks are as of the last ranking in the cloud store (FinalizeRun names each page's sources), live in SQLite.
      await pair.graph.computeRanks(await seed(pair));
      const inlinks = await pair.graph.inlinks(id('z'));
      const expected = [
        [url('w', 'b.test'), 'to z'],
        [url('x'), 'Zed'],
        [url('y'), 'the old address'],
        [url('y'), 'to z'],
      ];
      assert.deepEqual(inlinks.map((l) => [l.fromUrl, l.anchor]).sort(), expected.sort());
    }));

  test(`${name}: ranks pages by PageRank with inlinks and linking hosts; lists URLs linked but never fetched`, () =>
    using(adapter, async (pair) => {
      const runId = await seed(pair);
      assert.equal(await pair.graph.computeRanks(runId), 4);
      const top = await pair.graph.top(2);
      assert.equal(top[0]!.urlId, id('z'));
      assert.equal(top[0]!.hosts, 2);
      assert.equal(top[0]!.title, 'Page z');
      assert.ok(top[0]!.pagerank > top[1]!.pagerank);
      assert.deepEqual(await pair.graph.unfetched(5), [{ url: url('gone'), inlinks: 1, hosts: 1 }]);
    }));

  // A near-duplicate's copy is a stored page like any other: it is ranked and has its inlinks.
  test(`${name}: a near-duplicate page is ranked with its inlinks`, () =>
    using(adapter, async ({ store, graph }) => {
      const run = await store.createRun([], {}, 1);
      await store.addUrls([row(run.id, 'a'), row(run.id, 'copy')]);
      await store.commitFetch({ runId: run.id, urlId: id('a'), state: 'done', attempts: 1, page: page(run.id, 'a'), edges: [edge('a', 'copy')] });
      await store.commitFetch({
        runId: run.id,
        urlId: id('copy'),
        state: 'duplicate',
        reason: 'duplicate-body',
        attempts: 1,
        page: { ...page(run.id, 'copy'), duplicateOf: id('a') },
        edges: [],
      });
      assert.equal(await graph.computeRanks(run.id), 2);
      const copy = (await graph.top(5)).find((p) => p.urlId === id('copy'));
      assert.ok(copy, 'the copy is among the ranked pages');
      assert.equal(copy.inlinks, 1);
    }));
}
