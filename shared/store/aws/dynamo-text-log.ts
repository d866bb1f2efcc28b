import { PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { Item } from './dynamo-items.js';
import { DynamoTable } from './dynamo-table.js';
import { pad, shardOf } from './table.js';

/** Partitions of the text-change log: `TEXTLOG` (the one partition it had, still read) and `TEXTLOG#1`…`TEXTLOG#7`. */
export const TEXT_LOG_SHARDS = 8;
const partitions = Array.from({ length: TEXT_LOG_SHARDS }, (_, k) => (k === 0 ? 'TEXTLOG' : `TEXTLOG#${k}`));

/** A change's key: its partition by the url id (one partition took a write a page), its time first in the sort key. */
export const textLogKey = (at: number, urlId: string) => ({ PK: partitions[shardOf(urlId, TEXT_LOG_SHARDS)]!, SK: `${pad(at, 15)}#${urlId}` });

/**
 * The delta of the full-text index: the pages whose enrichment was written or deleted since the
 * last build, in TEXT_LOG_SHARDS partitions read together and merged oldest first.
 */
export class DynamoTextLog extends DynamoTable {
  /** Logs a change at wall-clock time (not the pipeline's clock: builds compare with it). */
  async log(urlId: string): Promise<void> {
    await this.doc.send(new PutCommand({ TableName: this.table, Item: { ...textLogKey(Date.now(), urlId), type: 'TEXTLOG', urlId } }));
  }

  /** Url ids logged since `since` (ms), oldest first, each once. */
  async changedSince(since: number): Promise<string[]> {
    const items = (await this.each((pk) => this.queryAll(range(pk, '>=', since, 'SK, urlId', true)))).sort((a, b) =>
      String(a.SK) < String(b.SK) ? -1 : String(a.SK) > String(b.SK) ? 1 : 0,
    );
    return [...new Set(items.map((i) => String(i.urlId)))];
  }

  /** How many changes were logged since `since`, counted up to `limit` (one COUNT query a partition). */
  async countSince(since: number, limit: number): Promise<number> {
    const counts = await this.each(async (pk) => [
      { n: (await this.doc.send(new QueryCommand({ TableName: this.table, ...range(pk, '>=', since), Select: 'COUNT', Limit: limit }))).Count ?? 0 },
    ]);
    return Math.min(
      limit,
      counts.reduce((sum, c) => sum + Number(c.n), 0),
    );
  }

  /** Drops the changes logged before `before` (a build folded them in). */
  async dropBefore(before: number): Promise<void> {
    await this.batchWrite([], await this.each((pk) => this.queryAll(range(pk, '<', before, 'PK, SK'))));
  }

  private async each(read: (pk: string) => Promise<Item[]>): Promise<Item[]> {
    return (await Promise.all(partitions.map(read))).flat();
  }
}

function range(pk: string, op: '>=' | '<', at: number, projection?: string, consistent = false) {
  return {
    KeyConditionExpression: `PK = :pk AND SK ${op} :at`,
    ExpressionAttributeValues: { ':pk': pk, ':at': pad(at, 15) },
    ...(projection ? { ProjectionExpression: projection } : {}),
    ...(consistent ? { ConsistentRead: true } : {}),
  };
}
