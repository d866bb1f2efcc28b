import type { AliasRecord, EdgeRecord, GraphStore, LinkView, PageRecord, RankedPage, SelectionRecord, UnfetchedUrl } from '../../ports/index.js';
import { urlId } from '../../url/canonical.js';
import { edgesOf, recordOf } from './dynamo-items.js';
import { DynamoRanks } from './dynamo-ranks.js';
import type { RankChunk, RankedShardPage } from '../../graph/sharded-rank.js';
import { DynamoTable } from './dynamo-table.js';
import { INLINKS_INDEX, keys } from './table-layout.js';

interface Snapshot {
  pages: Map<string, PageRecord & { pagerank?: number; inlinks?: number; inlinkHosts?: number }>;
  aliases: Map<string, string>;
  edges: EdgeRecord[];
  fetched: Set<string>;
}

/**
 * Link graph queries on the single table. A page snapshot's outlinks are one LINKS item; inlinks
 * are as of the last finalized run: FinalizeRun leaves each ranked page an INLINKS item naming the
 * pages that link to it, and the edges themselves are read from those pages' LINKS items. The
 * ranks go onto the PAGE items (`pagerank`, `inlinks`, `inlinkHosts`).
 */
export class DynamoGraph extends DynamoTable implements GraphStore {
  private async snapshot(): Promise<Snapshot> {
    const out: Snapshot = { pages: new Map(), aliases: new Map(), edges: [], fetched: new Set() };
    const edges: EdgeRecord[] = [];
    const items = await this.scanAll({
      FilterExpression: '#t IN (:p, :a, :e, :f)',
      ExpressionAttributeNames: { '#t': 'type' },
      ExpressionAttributeValues: { ':p': 'PAGE', ':a': 'ALIAS', ':e': 'LINKS', ':f': 'FETCH' },
    });
    for (const item of items) {
      if (item.type === 'PAGE') out.pages.set(String(item.urlId), recordOf(item)!);
      else if (item.type === 'ALIAS') {
        const a = recordOf<AliasRecord>(item)!;
        out.aliases.set(a.urlId, String(a.targetUrl));
      } else if (item.type === 'LINKS') edges.push(...edgesOf(item));
      else out.fetched.add(String(item.urlId));
    }
    const byUrl = new Map([...out.pages.values()].map((p) => [p.url, p.urlId]));
    const resolve = (toId: string): string | undefined => {
      if (out.pages.has(toId)) return toId;
      const target = out.aliases.get(toId);
      return target ? byUrl.get(target) : undefined;
    };
    out.edges = edges.filter((e) => out.pages.get(e.fromId)?.contentHash === e.snapshot).map((e) => ({ ...e, toPageId: resolve(e.toId) }));
    return out;
  }

  async outlinks(urlId: string): Promise<LinkView[]> {
    const page = await this.page(urlId);
    if (!page?.contentHash) return [];
    return edgesOf(await this.get(keys.links(urlId, page.contentHash))).map((e) => ({ ...e, fromUrl: page.url }));
  }

  /**
   * Links to the page and to its aliases (redirects and rel=canonical that lead to it), from the
   * pages FinalizeRun found linking to it (at most MAX_INLINK_SOURCES), in their current snapshots.
   */
  async inlinks(urlId: string): Promise<LinkView[]> {
    const aliases = await this.queryAll({
      IndexName: INLINKS_INDEX.name,
      KeyConditionExpression: '#pk = :pk',
      ExpressionAttributeNames: { '#pk': INLINKS_INDEX.pk },
      ExpressionAttributeValues: { ':pk': `ALIAS#${urlId}` },
    });
    const targets = new Set([urlId, ...aliases.map((a) => String(a.urlId))]);
    const sources = ((await this.get(keys.inlinks(urlId)))?.sources as string[] | undefined) ?? [];
    const pages = new Map((await this.batchGet(sources.map((id) => keys.page(id)))).map((i) => recordOf<PageRecord>(i)!).map((p) => [p.urlId, p] as const));
    const current = [...pages.values()].filter((p) => p.contentHash).map((p) => keys.links(p.urlId, p.contentHash!));
    const out: LinkView[] = [];
    for (const item of await this.batchGet(current)) {
      for (const e of edgesOf(item)) {
        if (targets.has(e.toId) && e.fromId !== urlId) out.push({ ...e, fromUrl: pages.get(e.fromId)!.url, toPageId: urlId });
      }
    }
    return out;
  }

  private async page(urlId: string): Promise<PageRecord | undefined> {
    return recordOf<PageRecord>(await this.get(keys.page(urlId)));
  }

  /** Ranks over the run's own pages, in bounded memory (see DynamoRanks); the top pages go to one item. */
  async computeRanks(runId: number): Promise<number> {
    return new DynamoRanks(this.doc, this.table).compute(runId);
  }

  /** FinalizeRun's ranking steps, shard by shard (see DynamoRanks and run-finalize). */
  sharding(runId: number): Promise<{ shards: number; shardOf: (id: string) => number }> {
    return new DynamoRanks(this.doc, this.table).sharding(runId);
  }

  chunkOf(ids: string[]): Promise<RankChunk> {
    return new DynamoRanks(this.doc, this.table).chunkOf(ids);
  }

  writeShard(runId: number, ranked: RankedShardPage[]): Promise<RankedPage[]> {
    return new DynamoRanks(this.doc, this.table).writeShard(runId, ranked);
  }

  writeTop(runId: number, pages: RankedPage[]): Promise<void> {
    return new DynamoRanks(this.doc, this.table).writeTop(runId, pages);
  }

  /** The top pages of the last finalized run: one GetItem (the web UI's home page asks on every visit). */
  async top(limit: number): Promise<RankedPage[]> {
    return new DynamoRanks(this.doc, this.table).top(limit);
  }

  async unfetched(limit: number): Promise<UnfetchedUrl[]> {
    const snap = await this.snapshot();
    const targets = new Map<string, { url: string; from: Set<string>; hosts: Set<string> }>();
    for (const e of snap.edges) {
      if (e.toPageId || snap.fetched.has(e.toId)) continue;
      const t = targets.get(e.toId) ?? { url: e.toUrl, from: new Set<string>(), hosts: new Set<string>() };
      t.from.add(e.fromId);
      t.hosts.add(snap.pages.get(e.fromId)!.host);
      targets.set(e.toId, t);
    }
    return [...targets.values()]
      .map((t) => ({ url: t.url, inlinks: t.from.size, hosts: t.hosts.size }))
      .sort((a, b) => b.hosts - a.hosts || b.inlinks - a.inlinks || a.url.localeCompare(b.url))
      .slice(0, limit);
  }

  async saveSelections(selections: SelectionRecord[]): Promise<void> {
    await this.batchWrite(selections.map((s) => ({ ...keys.selection(s.runId, urlId(s.home)), type: 'SELECTION', ...s })));
  }

  async selections(runId: number): Promise<SelectionRecord[]> {
    const items = await this.partition(`RUN#${runId}`, 'SELECTION#');
    return items.map((i) => recordOf<SelectionRecord>(i)!).sort((a, b) => (a.home < b.home ? -1 : a.home > b.home ? 1 : 0));
  }
}
