import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
export { MAX_INLINK_SOURCES } from '../../graph/sharded-rank.js';
import { memoryScratch, rankAllShards } from '../../graph/rank-in-process.js';
import { MAX_INLINK_SOURCES, ShardedRank, type RankChunk, type RankedShardPage, type RankPage } from '../../graph/sharded-rank.js';
import { urlId } from '../../url/canonical.js';
import { rankShift } from '../../changes/page-change.js';
import type { ChangeRecord, RankedPage } from '../../ports/index.js';
import { changeKey } from './dynamo-changes.js';
import { edgesOf, type Item } from './dynamo-items.js';
import { DynamoTable, inBatches } from './dynamo-table.js';
import { keys, shardOf } from './table-layout.js';

/** Pages kept in the TOP item, the most `/graph/top` (and the web UI's home page) asks for. */
export const TOP_PAGES = 200;
/** Where FinalizeRun leaves the ranked top pages, so a read of the top is one GetItem, never a table scan. */
export const TOP_KEY = { PK: 'GRAPH', SK: 'TOP' };
/** Requests in flight at once while reading edges and writing ranks. */
const WIDTH = 16;

/** The TOP_PAGES best pages: by rank, then inlinks, then URL. */
export function topOf(pages: ReadonlyArray<RankedPage | (RankPage & { pagerank: number; inlinks: number; hosts: number })>): RankedPage[] {
  return [...pages]
    .sort((a, b) => b.pagerank - a.pagerank || b.inlinks - a.inlinks || a.url.localeCompare(b.url))
    .slice(0, TOP_PAGES)
    .map((p) => ({
      urlId: 'urlId' in p ? p.urlId : p.id,
      url: p.url,
      title: p.title,
      inlinks: p.inlinks,
      hosts: p.hosts,
      pagerank: p.pagerank,
    }));
}

/** The TOP item stays well inside DynamoDB's 400 KB whatever the URLs' and titles' lengths. */
const TOP_ITEM_BYTES = 300_000;

/** The TOP item: the ranked pages, as many of TOP_PAGES as fit in TOP_ITEM_BYTES. */
export function topItem(runId: number, pages: RankedPage[]): Record<string, unknown> {
  let bytes = 200;
  const kept: RankedPage[] = [];
  for (const p of pages) {
    bytes += Buffer.byteLength(JSON.stringify(p));
    if (bytes > TOP_ITEM_BYTES) break;
    kept.push(p);
  }
  return { ...TOP_KEY, type: 'TOP', runId, pages: kept };
}

/**
 * Inlinks, linking hosts and PageRank over the pages a run stored, read from the run's own items
 * only (its URL partitions, then each page's PAGE item, alias and current-snapshot links), ranked
 * shard by shard (ShardedRank): FinalizeRun's steps run the phases one shard at a time in their
 * own Lambdas with the scratch in S3; `compute` runs them all here over a scratch in memory.
 * Ranks go onto the PAGE items (`pagerank`, `inlinks`, `inlinkHosts`), the top pages into one
 * TOP item, and each linked page gets an INLINKS item naming its sources. A page whose ranks moved
 * beyond the threshold since the run that ranked it last gets a `rank-shift` change.
 */
export class DynamoRanks extends DynamoTable {
  /** The run's shards and the shard of a URL id in it. */
  async sharding(runId: number): Promise<{ shards: number; shardOf: (id: string) => number }> {
    const shards = await this.shardsOf(runId);
    return { shards, shardOf: (id) => shardOf(id, shards) };
  }

  async compute(runId: number): Promise<number> {
    const { shards, shardOf: of } = await this.sharding(runId);
    const rank = new ShardedRank(memoryScratch(), shards, of);
    const round = await rankAllShards(rank, (shard) => this.chunks(runId, shard));
    const top: RankedPage[] = [];
    let size = 0;
    for (let shard = 0; shard < shards; shard++) {
      const pages = await rank.results(shard, round, MAX_INLINK_SOURCES);
      size += pages.length;
      top.push(...(await this.writeShard(runId, pages)));
    }
    await this.writeTop(runId, top);
    return size;
  }

  /** A shard's fetched pages, a thousand at a time. */
  private async *chunks(runId: number, shard: number): AsyncGenerator<RankChunk> {
    let cursor: string | undefined;
    do {
      const page = await this.donePages(runId, shard, 1000, cursor);
      yield this.chunkOf(page.ids);
      cursor = page.cursor;
    } while (cursor);
  }

  /** The pages among `ids` (those that stored a page), their aliases and their current snapshots' link targets. */
  async chunkOf(ids: string[]): Promise<RankChunk> {
    const pages: Array<RankPage & { hash: string }> = [];
    const aliases: Array<[string, string]> = [];
    for (let i = 0; i < ids.length; i += 50) {
      for (const item of await this.batchGet(ids.slice(i, i + 50).flatMap((id) => [keys.page(id), keys.alias(id)]))) {
        if (item.SK === 'ALIAS') aliases.push([String(item.urlId), urlId(String(item.targetUrl))]);
        else if (item.SK === 'PAGE' && item.contentHash)
          pages.push({
            id: String(item.urlId),
            url: String(item.url),
            host: String(item.host),
            ...(item.title === undefined ? {} : { title: String(item.title) }),
            hash: String(item.contentHash),
          });
      }
    }
    const links = await inBatches(pages, WIDTH, async (p) => edgesOf(await this.get(keys.links(p.id, p.hash))).map((e) => e.toId));
    return { pages: pages.map(({ hash: _hash, ...p }) => p), links, aliases };
  }

  /**
   * A shard's ranked pages onto their PAGE items, a `rank-shift` change for each that moved, an
   * INLINKS item for each with inlinks; returns the shard's top pages.
   */
  async writeShard(runId: number, ranked: RankedShardPage[]): Promise<RankedPage[]> {
    const shifts: Item[] = [];
    await inBatches(ranked, WIDTH, async (p) => {
      const after = { inlinks: p.inlinks, pagerank: p.pagerank };
      const res = await this.doc.send(
        new UpdateCommand({
          TableName: this.table,
          Key: keys.page(p.id),
          UpdateExpression: 'SET pagerank = :r, inlinks = :n, inlinkHosts = :h, rankedInRun = :run',
          ExpressionAttributeValues: { ':r': after.pagerank, ':n': after.inlinks, ':h': p.hosts, ':run': runId },
          // The ranks this replaces: a shift beyond the threshold is a change between runs.
          ReturnValues: 'UPDATED_OLD',
        }),
      );
      const old = res.Attributes;
      const before = { inlinks: Number(old?.inlinks ?? 0), pagerank: Number(old?.pagerank ?? 0) };
      if (old?.rankedInRun === undefined || Number(old.rankedInRun) >= runId || !rankShift(before, after)) return;
      const rank = { inlinksBefore: before.inlinks, inlinksAfter: after.inlinks, pagerankBefore: before.pagerank, pagerankAfter: after.pagerank };
      const change: ChangeRecord = {
        runId,
        urlId: p.id,
        url: p.url,
        kind: 'rank-shift',
        at: Date.now(),
        previousRunId: Number(old.rankedInRun),
        ...(p.title ? { title: p.title } : {}),
        rank,
      };
      shifts.push({ ...changeKey(runId, p.id, 'rank-shift'), type: 'CHANGE', ...change });
    });
    await this.batchWrite(shifts);
    await this.batchWrite(
      ranked.filter((p) => p.inlinks > 0).map((p) => ({ ...keys.inlinks(p.id), type: 'INLINKS', urlId: p.id, runId, count: p.inlinks, sources: p.sources })),
    );
    return topOf(ranked);
  }

  /** The TOP item from the shards' top pages. */
  async writeTop(runId: number, pages: RankedPage[]): Promise<void> {
    await this.batchWrite([topItem(runId, topOf(pages))]);
  }

  /** The top pages the last finalized run ranked; empty before any run was finalized. */
  async top(limit: number): Promise<RankedPage[]> {
    const item = await this.get(TOP_KEY);
    return ((item?.pages as RankedPage[] | undefined) ?? []).slice(0, limit);
  }
}
