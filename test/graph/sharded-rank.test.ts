import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { CompactGraph } from '../../shared/graph/compact-graph.js';
import { ShardedRank, type RankChunk, type RankPage } from '../../shared/graph/sharded-rank.js';
import { memoryScratch, rankAllShards } from '../../shared/graph/rank-in-process.js';

const idOf = (url: string) => createHash('sha256').update(url).digest('hex').slice(0, 32);
const shardOf = (shards: number) => (id: string) => parseInt(id.slice(0, 8), 16) % shards;

/** A seeded web: pages on a few hosts, links (some repeated, some to themselves, some to URLs never stored), redirects. */
function web(seed: number, pages: number) {
  let x = seed;
  const rand = () => (x = (Math.imul(x, 1103515245) + 12345) >>> 0) / 2 ** 32;
  const stored: RankPage[] = Array.from({ length: pages }, (_, i) => {
    const url = `https://h${i % 5}.test/p${i}`;
    return { id: idOf(url), url, host: `h${i % 5}.test`, ...(i % 3 ? { title: `Page ${i}` } : {}) };
  });
  // Redirected URLs: an alias id and the page it reached (one reaches a page that was never stored).
  const aliases: Array<[string, string]> = Array.from({ length: Math.ceil(pages / 8) }, (_, i) => [
    idOf(`https://old.test/r${i}`),
    i === 0 ? idOf('https://gone.test/') : stored[Math.floor(rand() * pages)]!.id,
  ]);
  const links = stored.map((p, i) => {
    if (i % 11 === 0) return []; // dangling
    const out: string[] = [];
    const n = 1 + Math.floor(rand() * 12);
    for (let k = 0; k < n; k++) {
      const r = rand();
      if (r < 0.1) out.push(p.id);
      else if (r < 0.2) out.push(idOf(`https://elsewhere.test/${k}`));
      else if (r < 0.35) out.push(aliases[Math.floor(rand() * aliases.length)]![0]);
      else out.push(stored[Math.floor(rand() * pages)]!.id);
    }
    if (out.length > 1) out.push(out[0]!); // a repeated link
    return out;
  });
  return { stored, aliases, links };
}

/** The one-process ranking the cloud's FinalizeRun did before it was spread over shards. */
function compactRanks(w: ReturnType<typeof web>) {
  const graph = new CompactGraph();
  const hosts = new Map<string, number>();
  const hostOf: number[] = [];
  for (const p of w.stored) {
    if (!hosts.has(p.host)) hosts.set(p.host, hosts.size);
    hostOf[graph.node(p.id)] = hosts.get(p.host)!;
  }
  const alias = new Map(w.aliases);
  for (const [i, targets] of w.links.entries())
    for (const to of targets) {
      const id = graph.has(to) ? to : alias.get(to);
      if (id !== undefined && graph.has(id)) graph.link(i, graph.node(id));
    }
  graph.dedupe();
  const ranks = graph.pageRank();
  const { inlinks, hosts: linking } = graph.inlinks(hostOf, hosts.size);
  const sources = new Map<string, Set<string>>();
  graph.forEach((f, t) => sources.set(graph.ids[t]!, (sources.get(graph.ids[t]!) ?? new Set()).add(graph.ids[f]!)));
  return new Map(
    w.stored.map((p, n) => [p.id, { pagerank: ranks[n]!, inlinks: inlinks[n]!, hosts: linking[n]!, sources: sources.get(p.id) ?? new Set<string>() }]),
  );
}

async function sharded(w: ReturnType<typeof web>, shards: number, chunkPages: number) {
  const scratch = memoryScratch();
  const rank = new ShardedRank(scratch, shards, shardOf(shards));
  const index = new Map(w.stored.map((p, i) => [p.id, i]));
  async function* chunks(s: number): AsyncGenerator<RankChunk> {
    const mine = w.stored.filter((p) => shardOf(shards)(p.id) === s);
    const aliases = w.aliases.filter(([a]) => shardOf(shards)(a) === s);
    for (let i = 0; i < Math.max(1, mine.length); i += chunkPages) {
      const pages = mine.slice(i, i + chunkPages);
      yield { pages, links: pages.map((p) => w.links[index.get(p.id)!]!), aliases: i === 0 ? aliases : [] };
    }
  }
  const round = await rankAllShards(rank, chunks);
  const out = [];
  for (let s = 0; s < shards; s++) out.push(...(await rank.results(s, round, 1000)));
  return { pages: new Map(out.map((p) => [p.id, p])), round };
}

describe('ranking spread over shards', () => {
  for (const [shards, chunkPages] of [
    [1, 1000],
    [3, 7],
    [8, 5],
  ] as const) {
    it(`gives the one-process ranks, inlinks, linking hosts and sources over ${shards} shard(s) in chunks of ${chunkPages}`, async () => {
      const w = web(shards * 7 + 1, 120);
      const expected = compactRanks(w);
      const { pages, round } = await sharded(w, shards, chunkPages);
      assert.ok(round > 5 && round < 100, `rounds: ${round}`);
      assert.equal(pages.size, w.stored.length);
      let sum = 0;
      for (const [id, want] of expected) {
        const got = pages.get(id)!;
        assert.ok(Math.abs(got.pagerank - want.pagerank) < 1e-12, `${got.url}: ${got.pagerank} vs ${want.pagerank}`);
        assert.equal(got.inlinks, want.inlinks, got.url);
        assert.equal(got.hosts, want.hosts, got.url);
        assert.deepEqual(new Set(got.sources), want.sources, got.url);
        sum += got.pagerank;
      }
      assert.ok(Math.abs(sum - 1) < 1e-9, `ranks sum to ${sum}`);
      // Titles and URLs come back with the pages (the TOP item and rank-shift changes name them).
      const titled = w.stored.find((p) => p.title)!;
      assert.equal(pages.get(titled.id)!.title, titled.title);
    });
  }

  it('a round reads its own shard and one other shard’s shares at a time; a merge one number a shard', async () => {
    const shards = 8;
    const w = web(11, 400);
    const inner = memoryScratch();
    let phase = '';
    const reads: Array<{ phase: string; key: string; bytes: number }> = [];
    const scratch = {
      ...inner,
      async get(key: string) {
        const body = await inner.get(key);
        if (body) reads.push({ phase, key, bytes: body.length });
        return body;
      },
    };
    const rank = new ShardedRank(scratch, shards, shardOf(shards));
    const wrapped = Object.create(rank) as ShardedRank;
    wrapped.merge = async (round: number) => ((phase = 'merge'), rank.merge(round));
    wrapped.round = async (round: number, shard: number) => ((phase = 'round'), rank.round(round, shard));
    const index = new Map(w.stored.map((p, i) => [p.id, i]));
    const done = await rankAllShards(wrapped, async function* (s) {
      const pages = w.stored.filter((p) => shardOf(shards)(p.id) === s);
      yield { pages, links: pages.map((p) => w.links[index.get(p.id)!]!), aliases: w.aliases.filter(([a]) => shardOf(shards)(a) === s) };
    });
    assert.ok(done > 5);
    const largestShard = Math.max(...Array.from({ length: shards }, (_, s) => w.stored.filter((p) => shardOf(shards)(p.id) === s).length));
    // No object a round reads holds a number for every page of the run: shares and degrees are by shard.
    const shareReads = reads.filter((r) => r.phase === 'round' && !r.key.startsWith('in/'));
    assert.ok(shareReads.length > 0);
    assert.ok(
      shareReads.every((r) => r.bytes <= largestShard * 8),
      JSON.stringify(shareReads.filter((r) => r.bytes > largestShard * 8).slice(0, 3)),
    );
    assert.ok(reads.filter((r) => r.phase === 'merge').every((r) => r.bytes <= 32));
  });

  it('caps the sources a page names, and ranks a run without links evenly', async () => {
    const w = web(3, 40);
    const scratch = memoryScratch();
    const rank = new ShardedRank(scratch, 2, shardOf(2));
    const lonely = { pages: w.stored.slice(0, 4), links: [[], [], [], []], aliases: [] };
    const round = await rankAllShards(rank, async function* (s) {
      yield s === 0 ? lonely : { pages: [], links: [], aliases: [] };
    });
    const pages = await rank.results(0, round, 1);
    assert.deepEqual(
      pages.map((p) => Number(p.pagerank.toFixed(6))),
      [0.25, 0.25, 0.25, 0.25],
    );
    const { pages: capped } = await sharded(web(5, 60), 2, 10);
    assert.ok([...capped.values()].every((p) => p.sources.length <= 1000));
    const one = await (async () => {
      const r = new ShardedRank(memoryScratch(), 1, () => 0);
      const a = w.stored[0]!;
      const b = w.stored[1]!;
      const c = w.stored[2]!;
      const done = await rankAllShards(r, async function* () {
        yield { pages: [a, b, c], links: [[c.id], [c.id], []], aliases: [] };
      });
      return r.results(0, done, 1);
    })();
    assert.equal(one[2]!.inlinks, 2);
    assert.equal(one[2]!.sources.length, 1);
  });

  it('ranks pages whatever their ids (up to 32 ASCII characters), and names an id it cannot hold', async () => {
    const r = new ShardedRank(memoryScratch(), 2, (id) => id.length % 2);
    const page = (id: string): RankPage => ({ id, url: `http://a.test/${id}`, host: 'a.test' });
    const done = await rankAllShards(r, async function* (s) {
      yield s === 0 ? { pages: [page('ab'), page('zz')], links: [['z'], ['ab']], aliases: [] } : { pages: [page('z')], links: [['ab']], aliases: [] };
    });
    const ranked = [...(await r.results(0, done, 10)), ...(await r.results(1, done, 10))];
    assert.deepEqual(ranked.map((p) => [p.id, p.inlinks, p.sources.sort()]).sort(), [
      ['ab', 2, ['z', 'zz']],
      ['z', 1, ['ab']],
      ['zz', 0, []],
    ]);
    const long = new ShardedRank(memoryScratch(), 1, () => 0);
    await assert.rejects(
      long.collect(0, 0, 0, { pages: [page('a')], links: [['x'.repeat(40)]], aliases: [] }),
      /URL id "x{40}" is not up to 32 ASCII characters/,
    );
  });

  it('names the phase that was skipped when a scratch object is missing', async () => {
    const rank = new ShardedRank(memoryScratch(), 2, () => 0);
    await assert.rejects(rank.gather(0), /count\/00000 is missing from the scratch store/);
    await assert.rejects(rank.link(0), /missing from the scratch store; run the phases in order/);
  });
});
