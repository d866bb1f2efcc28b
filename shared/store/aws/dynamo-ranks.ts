import { QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { CompactGraph } from '../../graph/compact-graph.js';
import { rankShift } from '../../changes/page-change.js';
import type { ChangeRecord, RankedPage } from '../ports/index.js';
import { changeKey } from './dynamo-changes.js';
import { edgesOf, type Item } from './dynamo-items.js';
import { DynamoTable, inBatches } from './dynamo-table.js';
import { keys, runPartition } from './table.js';

/** Pages kept in the TOP item, the most `/graph/top` (and the web UI's home page) asks for. */
export const TOP_PAGES = 200;
/** Where FinalizeRun leaves the ranked top pages, so a read of the top is one GetItem, never a table scan. */
export const TOP_KEY = { PK: 'GRAPH', SK: 'TOP' };
/** Requests in flight at once while reading edges and writing ranks. */
const WIDTH = 16;
/** Sources an INLINKS item names at most (`/graph/inlinks` and a search hit's anchors read their links). */
export const MAX_INLINK_SOURCES = 1000;

interface PageMeta {
  url: string;
  host: number;
  title?: string;
  hash: string;
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
 * only (its URL partition, then each page's PAGE item and current-snapshot edges), held as a
 * compact graph: memory grows with 8 bytes a link and ~150 bytes a page, never with the table.
 * Ranks go onto the PAGE items (`pagerank`, `inlinks`, `inlinkHosts`), the top pages into one
 * TOP item, and each linked page gets an INLINKS item naming its sources. A page whose ranks moved
 * beyond the threshold since the run that ranked it last gets a `rank-shift` change.
 */
export class DynamoRanks extends DynamoTable {
  async compute(runId: number): Promise<number> {
    const graph = new CompactGraph();
    const meta: PageMeta[] = [];
    const hosts = new Map<string, number>();
    const aliases = new Map<string, string>();
    const byUrl = new Map<string, string>();
    for await (const ids of this.doneUrls(runId)) {
      for (const item of await this.batchGet(ids.flatMap((id) => [keys.page(id), keys.alias(id)]))) {
        if (item.SK === 'ALIAS') aliases.set(String(item.urlId), String(item.targetUrl));
        else if (item.SK === 'PAGE' && item.contentHash) {
          const n = graph.node(String(item.urlId));
          const host = String(item.host);
          if (!hosts.has(host)) hosts.set(host, hosts.size);
          meta[n] = {
            url: String(item.url),
            host: hosts.get(host)!,
            title: item.title === undefined ? undefined : String(item.title),
            hash: String(item.contentHash),
          };
          byUrl.set(String(item.url), String(item.urlId));
        }
      }
    }
    const resolve = (toId: string): string | undefined => {
      if (graph.has(toId)) return toId;
      const target = aliases.get(toId);
      const id = target === undefined ? undefined : byUrl.get(target);
      return id !== undefined && graph.has(id) ? id : undefined;
    };
    const sources = Array.from({ length: graph.size }, (_, i) => i);
    await inBatches(sources, WIDTH, async (from) => {
      for (const toId of await this.edgeTargets(graph.ids[from]!, meta[from]!.hash)) {
        const to = resolve(toId);
        if (to !== undefined) graph.link(from, graph.node(to));
      }
    });
    graph.dedupe();
    const ranks = graph.pageRank();
    const { inlinks, hosts: linkingHosts } = graph.inlinks(
      meta.map((m) => m.host),
      hosts.size,
    );
    const shifts: Item[] = [];
    await inBatches(sources, WIDTH, async (n) => {
      const after = { inlinks: inlinks[n]!, pagerank: ranks[n] ?? 0 };
      const res = await this.doc.send(
        new UpdateCommand({
          TableName: this.table,
          Key: keys.page(graph.ids[n]!),
          UpdateExpression: 'SET pagerank = :r, inlinks = :n, inlinkHosts = :h, rankedInRun = :run',
          ExpressionAttributeValues: { ':r': after.pagerank, ':n': after.inlinks, ':h': linkingHosts[n]!, ':run': runId },
          // The ranks this replaces: a shift beyond the threshold is a change between runs.
          ReturnValues: 'UPDATED_OLD',
        }),
      );
      const old = res.Attributes;
      const before = { inlinks: Number(old?.inlinks ?? 0), pagerank: Number(old?.pagerank ?? 0) };
      if (old?.rankedInRun === undefined || Number(old.rankedInRun) >= runId || !rankShift(before, after)) return;
      const urlId = graph.ids[n]!;
      const rank = { inlinksBefore: before.inlinks, inlinksAfter: after.inlinks, pagerankBefore: before.pagerank, pagerankAfter: after.pagerank };
      const change: ChangeRecord = {
        runId,
        urlId,
        url: meta[n]!.url,
        kind: 'rank-shift',
        at: Date.now(),
        previousRunId: Number(old.rankedInRun),
        ...(meta[n]!.title ? { title: meta[n]!.title } : {}),
        rank,
      };
      shifts.push({ ...changeKey(runId, urlId, 'rank-shift'), type: 'CHANGE', ...change });
    });
    await this.batchWrite(shifts);
    await this.writeInlinks(graph, runId);
    const top: RankedPage[] = sources
      .sort((a, b) => ranks[b]! - ranks[a]! || inlinks[b]! - inlinks[a]! || meta[a]!.url.localeCompare(meta[b]!.url))
      .slice(0, TOP_PAGES)
      .map((n) => ({
        urlId: graph.ids[n]!,
        url: meta[n]!.url,
        title: meta[n]!.title,
        inlinks: inlinks[n]!,
        hosts: linkingHosts[n]!,
        pagerank: ranks[n]!,
      }));
    await this.batchWrite([topItem(runId, top)]);
    return graph.size;
  }

  /** The ids of the run's settled-as-done URLs, one page of one shard's partition at a time. */
  private async *doneUrls(runId: number): AsyncGenerator<string[]> {
    const shards = await this.shardsOf(runId);
    for (let k = 0; k < shards; k++) {
      let start: Record<string, unknown> | undefined;
      do {
        const res = await this.doc.send(
          new QueryCommand({
            TableName: this.table,
            KeyConditionExpression: 'PK = :pk AND begins_with(SK, :sk)',
            FilterExpression: '#st = :done',
            ProjectionExpression: 'urlId',
            ExpressionAttributeNames: { '#st': 'state' },
            ExpressionAttributeValues: { ':pk': runPartition(runId, shards, k), ':sk': 'URL#', ':done': 'done' },
            ExclusiveStartKey: start,
          }),
        );
        yield (res.Items ?? []).map((i) => String(i.urlId));
        start = res.LastEvaluatedKey;
      } while (start);
    }
  }

  /** The targets of a page's links in its current snapshot. */
  private async edgeTargets(urlId: string, snapshot: string): Promise<string[]> {
    return edgesOf(await this.get(keys.links(urlId, snapshot))).map((e) => e.toId);
  }

  /** An INLINKS item for every page with inlinks: its sources, by target, in one pass over a compact index (4 bytes a link). */
  private async writeInlinks(graph: CompactGraph, runId: number): Promise<void> {
    const offsets = new Int32Array(graph.size + 1);
    graph.forEach((_, t) => offsets[t + 1]!++);
    for (let n = 0; n < graph.size; n++) offsets[n + 1]! += offsets[n]!;
    const fill = offsets.slice(0, graph.size);
    const from = new Int32Array(graph.edgeCount);
    graph.forEach((f, t) => (from[fill[t]!++] = f));
    const targets = Array.from({ length: graph.size }, (_, n) => n).filter((n) => offsets[n + 1]! > offsets[n]!);
    for (let i = 0; i < targets.length; i += 25) {
      await this.batchWrite(
        targets.slice(i, i + 25).map((n) => {
          const list = from.subarray(offsets[n]!, Math.min(offsets[n + 1]!, offsets[n]! + MAX_INLINK_SOURCES));
          return {
            ...keys.inlinks(graph.ids[n]!),
            type: 'INLINKS',
            urlId: graph.ids[n]!,
            runId,
            count: offsets[n + 1]! - offsets[n]!,
            sources: [...list].map((f) => graph.ids[f]!),
          };
        }),
      );
    }
  }

  /** The top pages the last finalized run ranked; empty before any run was finalized. */
  async top(limit: number): Promise<RankedPage[]> {
    const item = await this.get(TOP_KEY);
    return ((item?.pages as RankedPage[] | undefined) ?? []).slice(0, limit);
  }
}
