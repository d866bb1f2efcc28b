/**
 * PageRank, inlinks and linking hosts of a run spread over shards, each phase a job one bounded
 * worker does for one shard, every intermediate in a scratch store (S3 in the cloud): no worker
 * holds the run's links. A page belongs to the shard of its URL id; its links are routed to their
 * targets' shards, so each shard ends up with the links into its own pages. The phases, each over
 * every shard before the next starts:
 *
 * 1. `collect` (a chunk of a shard's pages at a time): the pages, their aliases (a redirected URL
 *    and the page it reached) and their links, routed to the targets' shards;
 * 2. `gather`: the links into the shard resolved to its pages; links to one of its aliases
 *    forwarded to the shard of the page the alias reached;
 * 3. `link`: the links into the shard, forwarded ones resolved too, repeated ones removed: the
 *    shard's in-links (by target) and linking hosts, and each source shard's share of out-degrees;
 * 4. `degrees`: a shard's pages' out-degrees, summed from every target shard's share;
 * 5. `merge` then `round`, repeated: `merge` (one worker) sums the rank of the pages without
 *    links from one number a shard; `round` (a worker a shard) gives the shard's pages their next
 *    ranks from the shares (rank over out-degree) of the pages linking in, read one source shard at
 *    a time, and writes its own pages' shares for the next round; the rounds stop when the summed
 *    L1 change is below the tolerance (`converged`);
 * 6. `results`: the shard's pages with their ranks, inlinks, linking hosts and first sources.
 *
 * The same ranks as CompactGraph.pageRank on the same pages and links (damping 0.85, dangling
 * rank spread evenly, L1 change below 1e-6 or 100 rounds), up to the order of floating-point sums.
 * A worker's memory: its shard's pages and in-links (16 bytes a link, 28 in a round), plus 8 bytes
 * a page of one other shard in a round, and 32 a page of the run in `results` (the sources' ids).
 */

import { float64s, fnv1a, ID_BYTES, idAt, idBytes, int32s, LINK_BYTES, pad } from './rank-records.js';

/** Where the phases keep what they hand to the next: a key-value store of immutable objects. */
export interface RankScratch {
  put(key: string, body: Buffer): Promise<void>;
  get(key: string): Promise<Buffer | undefined>;
  /** The keys under a prefix, in key order. */
  list(prefix: string): Promise<string[]>;
}

export interface RankPage {
  id: string;
  url: string;
  host: string;
  title?: string;
}

/** A chunk of a shard's pages as read from the store: the pages, their links' targets (by position), and aliases. */
export interface RankChunk {
  pages: RankPage[];
  /** The URL ids each page links to, in its current snapshot. */
  links: string[][];
  /** A redirected URL's id and the id of the page it reached. */
  aliases: Array<[string, string]>;
}

export interface RankedShardPage extends RankPage {
  pagerank: number;
  inlinks: number;
  /** Distinct hosts linking in. */
  hosts: number;
  /** The first linking pages' ids (at most `maxSources`). */
  sources: string[];
}

export const DAMPING = 0.85;
/** Sources an INLINKS item names at most (`/graph/inlinks` and a search hit's anchors read their links). */
export const MAX_INLINK_SOURCES = 1000;
export const RANK_ROUNDS_MAX = 100;
export const RANK_TOLERANCE = 1e-6;

export class ShardedRank {
  constructor(
    private readonly scratch: RankScratch,
    /** The shards of the run's pages. */
    readonly shards: number,
    /** The shard of a URL id: the store's own (a page's shard is its frontier item's). */
    private readonly shardOf: (id: string) => number,
    /** Each shard's pages, once collected, when the caller has them (else read from the scratch, an object a shard). */
    private known?: number[],
  ) {}

  private async must(key: string): Promise<Buffer> {
    const body = await this.scratch.get(key);
    if (!body) throw new Error(`ranking: ${key} is missing from the scratch store; run the phases in order (collect, gather, link, degrees, rounds)`);
    return body;
  }

  /**
   * Phase 1, one chunk of a shard: `base` is the number of the chunk's first page in its shard
   * (the pages the shard's chunks before it held). Call `collected` once the shard's last chunk is in.
   */
  async collect(shard: number, chunk: number, base: number, input: RankChunk): Promise<void> {
    const routed = Array.from({ length: this.shards }, () => [] as Buffer[]);
    for (const [i, page] of input.pages.entries()) {
      const host = fnv1a(page.host);
      for (const to of input.links[i] ?? []) {
        const rec = Buffer.alloc(LINK_BYTES);
        rec.writeUInt32LE(shard, 0);
        rec.writeUInt32LE(base + i, 4);
        rec.writeUInt32LE(host, 8);
        idBytes(to).copy(rec, 12);
        routed[this.shardOf(to)]!.push(rec);
      }
    }
    const name = `${pad(shard)}-${pad(chunk)}`;
    await Promise.all([
      this.scratch.put(`pages/${pad(shard)}/${pad(chunk)}`, Buffer.from(input.pages.map((p) => JSON.stringify(p)).join('\n'))),
      this.scratch.put(`aliases/${pad(shard)}/${pad(chunk)}`, Buffer.from(JSON.stringify(input.aliases))),
      ...routed.map((recs, t) => (recs.length ? this.scratch.put(`links/${pad(t)}/${name}`, Buffer.concat(recs)) : undefined)),
    ]);
  }

  /** Phase 1's end for a shard: how many pages it holds. */
  async collected(shard: number, pages: number): Promise<void> {
    await this.scratch.put(`count/${pad(shard)}`, Buffer.from(JSON.stringify({ pages })));
  }

  private async pagesOf(shard: number): Promise<RankPage[]> {
    const out: RankPage[] = [];
    for (const key of await this.scratch.list(`pages/${pad(shard)}/`)) {
      const text = (await this.must(key)).toString('utf8');
      if (text) for (const line of text.split('\n')) out.push(JSON.parse(line) as RankPage);
    }
    return out;
  }

  private async counts(): Promise<number[]> {
    if (this.known?.length === this.shards) return this.known;
    return (this.known = await Promise.all(
      Array.from({ length: this.shards }, async (_, s) => (JSON.parse((await this.must(`count/${pad(s)}`)).toString()) as { pages: number }).pages),
    ));
  }

  /** Phase 2: the links into a shard resolved to its pages' numbers; links to its aliases forwarded. */
  async gather(shard: number): Promise<void> {
    await this.must(`count/${pad(shard)}`);
    const pages = await this.pagesOf(shard);
    const local = new Map(pages.map((p, i) => [p.id, i]));
    const aliases = new Map<string, string>();
    for (const key of await this.scratch.list(`aliases/${pad(shard)}/`))
      for (const [a, t] of JSON.parse((await this.must(key)).toString()) as Array<[string, string]>) aliases.set(a, t);
    const direct: Buffer[] = [];
    const forward = Array.from({ length: this.shards }, () => [] as Buffer[]);
    for (const key of await this.scratch.list(`links/${pad(shard)}/`)) {
      const buf = await this.must(key);
      for (let o = 0; o + LINK_BYTES <= buf.length; o += LINK_BYTES) {
        const to = idAt(buf, o + 12);
        const n = local.get(to);
        if (n !== undefined) {
          const rec = Buffer.alloc(16);
          buf.copy(rec, 0, o, o + 12);
          rec.writeUInt32LE(n, 12);
          direct.push(rec);
          continue;
        }
        const reached = aliases.get(to);
        if (reached === undefined) continue;
        const rec = Buffer.from(buf.subarray(o, o + LINK_BYTES));
        idBytes(reached).copy(rec, 12);
        forward[this.shardOf(reached)]!.push(rec);
      }
    }
    await Promise.all([
      this.scratch.put(`ids/${pad(shard)}`, Buffer.concat(pages.map((p) => idBytes(p.id)))),
      this.scratch.put(`direct/${pad(shard)}`, Buffer.concat(direct)),
      ...forward.map((recs, t) => (recs.length ? this.scratch.put(`forward/${pad(t)}/${pad(shard)}`, Buffer.concat(recs)) : undefined)),
    ]);
  }

  /** Phase 3: the shard's in-links by target (repeated links once, self-links dropped), linking hosts, out-degree shares. */
  async link(shard: number): Promise<void> {
    const counts = await this.counts();
    const offsets = counts.map((_, s) => counts.slice(0, s).reduce((a, b) => a + b, 0));
    const total = offsets[this.shards - 1]! + counts[this.shards - 1]!;
    const size = counts[shard]!;
    const ids = await this.must(`ids/${pad(shard)}`);
    const local = new Map<string, number>();
    for (let i = 0; i < size; i++) local.set(idAt(ids, i * ID_BYTES), i);
    // (target, source) as one number each (exact while the shard's pages times the run's stay below 2^53), the source's host beside it.
    const keys: number[] = [];
    const hostOf = new Map<number, number>();
    const add = (srcShard: number, srcLocal: number, host: number, target: number) => {
      const src = offsets[srcShard]! + srcLocal;
      if (srcShard === shard && srcLocal === target) return;
      keys.push(target * total + src);
      hostOf.set(src, host);
    };
    const direct = await this.must(`direct/${pad(shard)}`);
    for (let o = 0; o + 16 <= direct.length; o += 16)
      add(direct.readUInt32LE(o), direct.readUInt32LE(o + 4), direct.readUInt32LE(o + 8), direct.readUInt32LE(o + 12));
    for (const key of await this.scratch.list(`forward/${pad(shard)}/`)) {
      const buf = await this.must(key);
      for (let o = 0; o + LINK_BYTES <= buf.length; o += LINK_BYTES) {
        const n = local.get(idAt(buf, o + 12));
        if (n !== undefined) add(buf.readUInt32LE(o), buf.readUInt32LE(o + 4), buf.readUInt32LE(o + 8), n);
      }
    }
    const sorted = Float64Array.from(keys).sort();
    const start = new Int32Array(size + 1);
    const sources: number[] = [];
    const shares = Array.from({ length: this.shards }, () => new Map<number, number>());
    const shardOfGlobal = (g: number) => {
      let s = 0;
      while (s + 1 < this.shards && offsets[s + 1]! <= g) s++;
      return s;
    };
    for (let i = 0; i < sorted.length; i++) {
      if (i > 0 && sorted[i] === sorted[i - 1]) continue;
      const target = Math.floor(sorted[i]! / total);
      const src = sorted[i]! - target * total;
      start[target + 1]!++;
      sources.push(src);
      const s = shardOfGlobal(src);
      const share = shares[s]!;
      const l = src - offsets[s]!;
      share.set(l, (share.get(l) ?? 0) + 1);
    }
    for (let n = 0; n < size; n++) start[n + 1]! += start[n]!;
    const linkingHosts = new Int32Array(size);
    for (let n = 0; n < size; n++) {
      const hosts = Uint32Array.from(sources.slice(start[n]!, start[n + 1]!), (src) => hostOf.get(src)!).sort();
      for (let i = 0; i < hosts.length; i++) if (i === 0 || hosts[i] !== hosts[i - 1]) linkingHosts[n]!++;
    }
    const head = Buffer.alloc(8);
    head.writeUInt32LE(size, 0);
    head.writeUInt32LE(sources.length, 4);
    await Promise.all([
      this.scratch.put(
        `in/${pad(shard)}`,
        Buffer.concat([head, Buffer.from(start.buffer), Buffer.from(Int32Array.from(sources).buffer), Buffer.from(linkingHosts.buffer)]),
      ),
      ...shares.map((share, s) => {
        const buf = Buffer.alloc(share.size * 8);
        let o = 0;
        for (const [l, c] of share) {
          buf.writeUInt32LE(l, o);
          buf.writeUInt32LE(c, o + 4);
          o += 8;
        }
        return this.scratch.put(`shares/${pad(s)}/${pad(shard)}`, buf);
      }),
    ]);
  }

  private async inLinks(shard: number): Promise<{ start: Int32Array; sources: Int32Array; hosts: Int32Array }> {
    const buf = await this.must(`in/${pad(shard)}`);
    const size = buf.readUInt32LE(0);
    const edges = buf.readUInt32LE(4);
    return {
      start: int32s(buf, 8, size + 1),
      sources: int32s(buf, 8 + (size + 1) * 4, edges),
      hosts: int32s(buf, 8 + (size + 1 + edges) * 4, size),
    };
  }

  /** Phase 4: a shard's pages' out-degrees (links that reached a ranked page, each once). */
  async degrees(shard: number): Promise<void> {
    const size = (await this.counts())[shard]!;
    const degree = new Int32Array(size);
    for (const key of await this.scratch.list(`shares/${pad(shard)}/`)) {
      const buf = await this.must(key);
      for (let o = 0; o + 8 <= buf.length; o += 8) degree[buf.readUInt32LE(o)]! += buf.readUInt32LE(o + 4);
    }
    const zero = Buffer.alloc(4);
    zero.writeUInt32LE(
      degree.reduce((n, d) => n + (d === 0 ? 1 : 0), 0),
      0,
    );
    await Promise.all([this.scratch.put(`degree/${pad(shard)}`, Buffer.from(degree.buffer)), this.scratch.put(`zero/${pad(shard)}`, zero)]);
  }

  private async everyShard<T>(read: (shard: number) => Promise<T>): Promise<T[]> {
    return Promise.all(Array.from({ length: this.shards }, (_, s) => read(s)));
  }

  /**
   * Between rounds (and before the first, `round` 0): the rank of the pages without links, summed
   * over the shards (each round wrote its shard's part; before the first, each shard's count of
   * such pages at 1/N each), in one number the next round's workers read. Reads one object a shard.
   */
  async merge(round: number): Promise<void> {
    const total = (await this.counts()).reduce((a, b) => a + b, 0);
    const parts = await this.everyShard((s) => this.must(round === 0 ? `zero/${pad(s)}` : `dangling/${pad(round)}/${pad(s)}`));
    const dangling =
      round === 0 ? parts.reduce((sum, b) => sum + b.readUInt32LE(0), 0) / Math.max(1, total) : parts.reduce((sum, b) => sum + b.readDoubleLE(0), 0);
    const out = Buffer.alloc(8);
    out.writeDoubleLE(dangling, 0);
    await this.scratch.put(`dangling/${pad(round)}`, out);
  }

  /**
   * Each page of source shard `s` gives, in round `round` (from 1), its rank of the round before
   * over its out-degree: written by that shard's round, or before the first round 1/N over it.
   */
  private async sharesOf(round: number, s: number, total: number): Promise<Float64Array> {
    if (round > 1) return float64s(await this.must(`share/${pad(round - 1)}/${pad(s)}`));
    const degree = int32s(await this.must(`degree/${pad(s)}`), 0, (await this.counts())[s]!);
    return Float64Array.from(degree, (d) => (d === 0 ? 0 : 1 / total / d));
  }

  /**
   * Phase 5, round `round` (from 1) for one shard, after `merge(round - 1)`: its pages' ranks from
   * the ranks of the round before (1/N each before the first), read one source shard at a time, and
   * its pages' shares and rank without links for the next round. Returns the L1 change of its
   * pages' ranks; the rounds go on while the sum over the shards is at least RANK_TOLERANCE and
   * fewer than RANK_ROUNDS_MAX ran.
   */
  async round(round: number, shard: number): Promise<number> {
    const counts = await this.counts();
    const offsets = counts.map((_, s) => counts.slice(0, s).reduce((a, b) => a + b, 0));
    const total = counts.reduce((a, b) => a + b, 0);
    const dangling = (await this.must(`dangling/${pad(round - 1)}`)).readDoubleLE(0);
    const size = counts[shard]!;
    const before = round > 1 ? float64s(await this.must(`rank/${pad(round - 1)}/${pad(shard)}`)) : new Float64Array(size).fill(1 / total);
    const { start, sources } = await this.inLinks(shard);
    // The in-links grouped by their source's shard (a counting sort), each with its target.
    const edges = sources.length;
    const firstOf = new Int32Array(this.shards + 1);
    const shardOfEdge = new Int32Array(edges);
    for (let e = 0; e < edges; e++) {
      let s = 0;
      while (s + 1 < this.shards && offsets[s + 1]! <= sources[e]!) s++;
      shardOfEdge[e] = s;
      firstOf[s + 1]!++;
    }
    for (let s = 0; s < this.shards; s++) firstOf[s + 1]! += firstOf[s]!;
    const fill = firstOf.slice(0, this.shards);
    const order = new Int32Array(edges);
    const targetOf = new Int32Array(edges);
    for (let n = 0; n < size; n++) for (let e = start[n]!; e < start[n + 1]!; e++) targetOf[e] = n;
    for (let e = 0; e < edges; e++) order[fill[shardOfEdge[e]!]!++] = e;
    const sum = new Float64Array(size);
    for (let s = 0; s < this.shards; s++) {
      if (firstOf[s] === firstOf[s + 1]) continue;
      const share = await this.sharesOf(round, s, total);
      const off = offsets[s]!;
      for (let i = firstOf[s]!; i < firstOf[s + 1]!; i++) {
        const e = order[i]!;
        sum[targetOf[e]!]! += share[sources[e]! - off]!;
      }
    }
    const degree = int32s(await this.must(`degree/${pad(shard)}`), 0, size);
    const next = new Float64Array(size);
    const shares = new Float64Array(size);
    let delta = 0;
    let unlinked = 0;
    for (let n = 0; n < size; n++) {
      next[n] = (1 - DAMPING) / total + DAMPING * (sum[n]! + dangling / total);
      delta += Math.abs(next[n]! - before[n]!);
      if (degree[n] === 0) unlinked += next[n]!;
      else shares[n] = next[n]! / degree[n]!;
    }
    const part = Buffer.alloc(8);
    part.writeDoubleLE(unlinked, 0);
    await Promise.all([
      this.scratch.put(`rank/${pad(round)}/${pad(shard)}`, Buffer.from(next.buffer)),
      this.scratch.put(`share/${pad(round)}/${pad(shard)}`, Buffer.from(shares.buffer)),
      this.scratch.put(`dangling/${pad(round)}/${pad(shard)}`, part),
    ]);
    return delta;
  }

  /** The pages of the run (after `collected` for every shard). */
  async pages(): Promise<number> {
    return (await this.counts()).reduce((a, b) => a + b, 0);
  }

  /** Whether the rounds are over after `round`, given each shard's change in it. */
  static converged(round: number, deltas: number[]): boolean {
    return deltas.reduce((a, b) => a + b, 0) < RANK_TOLERANCE || round >= RANK_ROUNDS_MAX;
  }

  /** Phase 6: the shard's pages with their final ranks (of `round`, the last), inlinks, hosts and first sources. */
  async results(shard: number, round: number, maxSources: number): Promise<RankedShardPage[]> {
    return (await this.resultSlice(shard, round, maxSources, 0, Infinity)).pages;
  }

  /** `results`, `count` pages from the `from`th: the slice's pages and the shard's page count. */
  async resultSlice(shard: number, round: number, maxSources: number, from: number, count: number): Promise<{ pages: RankedShardPage[]; total: number }> {
    const pages = await this.pagesOf(shard);
    const ranks = round > 0 ? float64s(await this.must(`rank/${pad(round)}/${pad(shard)}`)) : new Float64Array(pages.length);
    const { start, sources, hosts } = await this.inLinks(shard);
    const counts = await this.counts();
    const offsets = counts.map((_, s) => counts.slice(0, s).reduce((a, b) => a + b, 0));
    // Only the shards some source is in are read for the sources' ids.
    const named = new Map<number, Buffer>();
    const nameOf = async (g: number): Promise<string> => {
      let s = 0;
      while (s + 1 < this.shards && offsets[s + 1]! <= g) s++;
      if (!named.has(s)) named.set(s, await this.must(`ids/${pad(s)}`));
      const l = g - offsets[s]!;
      return idAt(named.get(s)!, l * ID_BYTES);
    };
    const out: RankedShardPage[] = [];
    for (let n = from; n < Math.min(pages.length, from + count); n++) {
      const first: string[] = [];
      for (let e = start[n]!; e < Math.min(start[n + 1]!, start[n]! + maxSources); e++) first.push(await nameOf(sources[e]!));
      out.push({ ...pages[n]!, pagerank: ranks[n] ?? 0, inlinks: start[n + 1]! - start[n]!, hosts: hosts[n]!, sources: first });
    }
    return { pages: out, total: pages.length };
  }
}
