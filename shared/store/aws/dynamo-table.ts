import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  BatchWriteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  ScanCommand,
  UpdateCommand,
  type DynamoDBDocumentClient,
  type QueryCommandInput,
  type ScanCommandInput,
} from '@aws-sdk/lib-dynamodb';
import type { Item, RunLayout } from './dynamo-items.js';
import { doneShardKey, FRONTIER_INDEX, keys, runPartition } from './table-layout.js';

import { inBatches } from '../../util/batches.js';

export { inBatches };

/** Each run's layout by `table\nrunId`: fixed when the run is made, so read once a process. */
const layouts = new Map<string, RunLayout>();
const SHARD_CACHE_MAX = 10_000;

/** A run's counters from its shards: numbers summed, maps of numbers summed key by key. */
export function sumCounters(items: Item[]): Item | undefined {
  if (items.length === 0) return undefined;
  const out: Item = {};
  for (const item of items)
    for (const [k, v] of Object.entries(item)) {
      if (typeof v === 'number' && k !== 'runId') out[k] = Number(out[k] ?? 0) + v;
      else if (v && typeof v === 'object' && !(v instanceof Set) && !Array.isArray(v)) {
        const into = (out[k] ??= {}) as Record<string, number>;
        for (const [kk, n] of Object.entries(v as Record<string, unknown>)) if (typeof n === 'number') into[kk] = (into[kk] ?? 0) + n;
      } else if (!(k in out)) out[k] = v;
    }
  return out;
}

const BATCH = 25;

export function isConditionFailure(err: unknown): boolean {
  return err instanceof ConditionalCheckFailedException || (err as { name?: string } | undefined)?.name === 'ConditionalCheckFailedException';
}

/** The single table and the operations the adapters build on: reads, pagination, batches, conditional writes. */
export class DynamoTable {
  constructor(
    protected readonly doc: DynamoDBDocumentClient,
    readonly table: string,
  ) {}

  /**
   * Where a run's items go: the partitions it is spread over (`runShardsFor` its budget for new
   * runs, 1 for a run made before shards) and the parts of each host's queue (1 for a run made before parts).
   */
  protected async layoutOf(runId: number): Promise<RunLayout> {
    const cacheKey = `${this.table}\n${runId}`;
    const known = layouts.get(cacheKey);
    if (known !== undefined) return known;
    const run = await this.get(keys.run(runId));
    const layout = { shards: Math.max(1, Number(run?.shards ?? 1)), queueParts: Math.max(1, Number(run?.queueParts ?? 1)) };
    if (run) this.rememberLayout(runId, layout);
    return layout;
  }

  /** The number of partitions a run is spread over. */
  protected async shardsOf(runId: number): Promise<number> {
    return (await this.layoutOf(runId)).shards;
  }

  protected rememberLayout(runId: number, layout: RunLayout): void {
    if (layouts.size > SHARD_CACHE_MAX) layouts.clear();
    layouts.set(`${this.table}\n${runId}`, layout);
  }

  /** The items of a run whose sort key starts with `skPrefix`, from every shard (read in parallel). */
  protected async runItems(
    runId: number,
    skPrefix: string,
    filter?: { expr: string; names?: Record<string, string>; values?: Record<string, unknown> },
  ): Promise<Item[]> {
    const shards = await this.shardsOf(runId);
    const parts = await inBatches(
      Array.from({ length: shards }, (_, k) => k),
      16,
      (k) => this.partition(runPartition(runId, shards, k), skPrefix, filter),
    );
    return parts.flat();
  }

  /** Up to `limit` entries of one partition of the frontier index (a host's queue part, a shard's pages), in its order, from `start`. */
  protected frontierPartition(qpk: string, limit: number, start?: Record<string, unknown>) {
    return this.doc.send(
      new QueryCommand({
        TableName: this.table,
        IndexName: FRONTIER_INDEX.name,
        KeyConditionExpression: '#qpk = :q',
        ExpressionAttributeNames: { '#qpk': FRONTIER_INDEX.pk },
        ExpressionAttributeValues: { ':q': qpk },
        ExclusiveStartKey: start,
        Limit: limit,
      }),
    );
  }

  /**
   * One page of a shard's fetched pages (their URL ids, at most `limit`) from `cursor`, and the
   * cursor after them: the frontier index's `D#<run>#<shard>` partition, which holds only the URLs
   * whose fetch stored a page (done or duplicate), so a run's end reads its pages and never the URLs it left unfetched.
   */
  async donePages(runId: number, shard: number, limit: number, cursor?: string): Promise<{ ids: string[]; cursor?: string }> {
    const shards = await this.shardsOf(runId);
    const qpk = doneShardKey(runId, shard);
    const ids: string[] = [];
    let start: Record<string, unknown> | undefined =
      cursor === undefined ? undefined : { [FRONTIER_INDEX.pk]: qpk, [FRONTIER_INDEX.sk]: cursor, PK: runPartition(runId, shards, shard), SK: `URL#${cursor}` };
    do {
      const res = await this.frontierPartition(qpk, limit - ids.length, start);
      for (const i of res.Items ?? []) ids.push(String(i[FRONTIER_INDEX.sk]));
      start = res.LastEvaluatedKey;
    } while (start && ids.length < limit);
    return { ids, ...(start ? { cursor: String(start[FRONTIER_INDEX.sk]) } : {}) };
  }

  /** A run's fetched pages a slice at a time (the `CrawlStore` port's `runPages`). */
  async runPages(runId: number, limit: number, cursor?: string): Promise<{ urlIds: string[]; cursor?: string }> {
    // Shard by shard through the frontier index's `D#<run>#<shard>` partitions (the run's stored
    // pages); the cursor is `<shard>` or `<shard>:<the last url id given>`. Duplicates are left out.
    const shards = await this.shardsOf(runId);
    const [first, after] = (cursor ?? '0').split(':') as [string, string | undefined];
    const urlIds: string[] = [];
    let inner = after;
    for (let shard = Number(first); shard < shards; shard++, inner = undefined) {
      while (urlIds.length < limit) {
        const page = await this.donePages(runId, shard, limit - urlIds.length, inner);
        const states = await this.batchGet(
          page.ids.map((id) => keys.frontier(runId, id, shards)),
          ['urlId', 'state', 'kind'],
        );
        const done = new Set(states.filter((i) => i.state === 'done' && i.kind === 'page').map((i) => String(i.urlId)));
        urlIds.push(...page.ids.filter((id) => done.has(id)));
        inner = page.cursor;
        if (inner === undefined) break;
        if (urlIds.length >= limit) return { urlIds, cursor: `${shard}:${inner}` };
      }
      if (urlIds.length >= limit) return { urlIds, ...(shard + 1 < shards ? { cursor: String(shard + 1) } : {}) };
    }
    return { urlIds };
  }

  /** The run's counters, summed over its shards (consistent reads); undefined when the run has none. */
  protected async runCounters(runId: number): Promise<Item | undefined> {
    const shards = await this.shardsOf(runId);
    const items = await this.batchGet(
      Array.from({ length: shards }, (_, k) => keys.runCounters(runId, shards, k)),
      undefined,
      true,
    );
    return sumCounters(items);
  }

  protected async get(key: Item): Promise<Item | undefined> {
    return (await this.doc.send(new GetCommand({ TableName: this.table, Key: key, ConsistentRead: true }))).Item;
  }

  protected queryAll(input: Omit<QueryCommandInput, 'TableName'>): Promise<Item[]> {
    return allPages((start) => this.doc.send(new QueryCommand({ TableName: this.table, ...input, ExclusiveStartKey: start })));
  }

  protected scanAll(input: Omit<ScanCommandInput, 'TableName'>): Promise<Item[]> {
    return allPages((start) => this.doc.send(new ScanCommand({ TableName: this.table, ...input, ExclusiveStartKey: start })));
  }

  protected partition(
    pk: string,
    skPrefix: string,
    filter?: { expr: string; names?: Record<string, string>; values?: Record<string, unknown> },
  ): Promise<Item[]> {
    return this.queryAll({
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :sk)',
      FilterExpression: filter?.expr,
      ExpressionAttributeNames: filter?.names,
      ExpressionAttributeValues: { ':pk': pk, ':sk': skPrefix, ...filter?.values },
      ConsistentRead: true,
    });
  }

  /** Puts and deletes in batches of 25, resending what DynamoDB did not process. */
  protected async batchWrite(puts: Item[], deletes: Item[] = []): Promise<void> {
    const requests = [...puts.map((Item) => ({ PutRequest: { Item } })), ...deletes.map((Key) => ({ DeleteRequest: { Key } }))];
    for (let i = 0; i < requests.length; i += BATCH) {
      let pending: unknown[] = requests.slice(i, i + BATCH);
      for (let attempt = 0; pending.length > 0; attempt++) {
        if (attempt > 0) await new Promise((r) => setTimeout(r, Math.min(1000, 50 * 2 ** attempt)));
        const res = await this.doc.send(new BatchWriteCommand({ RequestItems: { [this.table]: pending as never } }));
        pending = res.UnprocessedItems?.[this.table] ?? [];
      }
    }
  }

  /**
   * The items of these keys (duplicates asked once). `projection` names the attributes wanted and
   * makes the reads eventually consistent (half the read units): for lookups a conditional write
   * settles anyway. `consistent` asks for strongly consistent reads of whole items.
   */
  protected async batchGet(keyList: Item[], projection?: string[], consistent = false): Promise<Item[]> {
    const out: Item[] = [];
    const unique = [...new Map(keyList.map((k) => [`${String(k.PK)}\n${String(k.SK)}`, k])).values()];
    const names = projection ? Object.fromEntries(projection.map((n, i) => [`#p${i}`, n])) : undefined;
    const shape = names
      ? { ProjectionExpression: Object.keys(names).join(', '), ExpressionAttributeNames: names, ConsistentRead: false }
      : consistent
        ? { ConsistentRead: true }
        : {};
    for (let i = 0; i < unique.length; i += 100) {
      let pending: { Keys: Item[] } | undefined = { Keys: unique.slice(i, i + 100) };
      for (let attempt = 0; pending && pending.Keys.length > 0; attempt++) {
        if (attempt > 0) await new Promise((r) => setTimeout(r, Math.min(1000, 50 * 2 ** attempt)));
        const res = await this.doc.send(new BatchGetCommand({ RequestItems: { [this.table]: { ...pending, ...shape } } }));
        out.push(...(res.Responses?.[this.table] ?? []));
        pending = res.UnprocessedKeys?.[this.table] as { Keys: Item[] } | undefined;
      }
    }
    return out;
  }

  /** Puts an item unless one with its key exists; true when this call wrote it. */
  protected async putIfAbsent(
    item: Item,
    extraCondition?: { expr: string; names?: Record<string, string>; values?: Record<string, unknown> },
  ): Promise<boolean> {
    try {
      await this.doc.send(
        new PutCommand({
          TableName: this.table,
          Item: item,
          ConditionExpression: `attribute_not_exists(PK)${extraCondition ? ` OR (${extraCondition.expr})` : ''}`,
          ExpressionAttributeNames: extraCondition?.names,
          ExpressionAttributeValues: extraCondition?.values,
        }),
      );
      return true;
    } catch (err) {
      if (isConditionFailure(err)) return false;
      throw err;
    }
  }

  protected async conditionalAdd(key: Item, field: string, by: number, below?: number, alsoAdd: Record<string, number> = {}): Promise<boolean> {
    const also = Object.entries(alsoAdd).filter(([, n]) => n !== 0);
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.table,
          Key: key,
          UpdateExpression: `ADD #f :by${also.map((_, i) => `, #a${i} :a${i}`).join('')}`,
          ConditionExpression: below === undefined ? undefined : 'attribute_not_exists(#f) OR #f < :max',
          ExpressionAttributeNames: { '#f': field, ...Object.fromEntries(also.map(([k], i) => [`#a${i}`, k])) },
          ExpressionAttributeValues: {
            ':by': by,
            ...(below === undefined ? {} : { ':max': below }),
            ...Object.fromEntries(also.map(([, n], i) => [`:a${i}`, n])),
          },
        }),
      );
      return true;
    } catch (err) {
      if (isConditionFailure(err)) return false;
      throw err;
    }
  }
}

/** Every item of a paginated Query or Scan. */
async function allPages(
  page: (start: Record<string, unknown> | undefined) => Promise<{ Items?: Item[]; LastEvaluatedKey?: Record<string, unknown> }>,
): Promise<Item[]> {
  const items: Item[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const res = await page(start);
    items.push(...(res.Items ?? []));
    start = res.LastEvaluatedKey;
  } while (start);
  return items;
}
