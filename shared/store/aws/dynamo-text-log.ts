import { GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { Item } from './dynamo-items.js';
import { DynamoTable } from './dynamo-table.js';
import { pad, shardOf } from './table-layout.js';

/** Partitions of the text-change log: `TEXTLOG` (the one partition it had, still read) and `TEXTLOG#1`…`TEXTLOG#7`. */
export const TEXT_LOG_SHARDS = 8;
const partitions = Array.from({ length: TEXT_LOG_SHARDS }, (_, k) => (k === 0 ? 'TEXTLOG' : `TEXTLOG#${k}`));

/** A change's key: its partition by the url id (one partition took a write a page), its time first in the sort key. */
export const textLogKey = (at: number, urlId: string) => ({ PK: partitions[shardOf(urlId, TEXT_LOG_SHARDS)]!, SK: `${pad(at, 15)}#${urlId}` });

/** A logged change as a fold takes it. */
export interface LoggedChange {
  PK: string;
  SK: string;
  urlId: string;
  /** Wall-clock ms of the change. */
  at: number;
  /** How long the enrichment that wrote the page took (ms), when it was timed: the latency histogram's share the log holds. */
  tookMs?: number;
}

/**
 * The delta of the full-text index: the pages whose enrichment was written or deleted and not yet
 * folded into the index, in TEXT_LOG_SHARDS partitions read together and merged oldest first. A
 * fold deletes exactly the entries it took, so what is in the log is what no fold holds.
 */
export class DynamoTextLog extends DynamoTable {
  /**
   * Logs a change at wall-clock time (not the pipeline's clock: builds compare with it), with the
   * time its enrichment took: the histogram counts it from the log until a fold adds it there.
   */
  async log(urlId: string, tookMs?: number): Promise<void> {
    const took = tookMs === undefined ? {} : { tookMs: Math.round(tookMs) };
    await this.doc.send(new PutCommand({ TableName: this.table, Item: { ...textLogKey(Date.now(), urlId), type: 'TEXTLOG', urlId, ...took } }));
  }

  /** The enrichment times logged since `since` (ms), of the changes that were timed. */
  async timedSince(since: number): Promise<number[]> {
    const items = await this.each((pk) => this.queryAll(range(pk, '>=', since, 'tookMs', true)));
    return items.flatMap((i) => (i.tookMs === undefined ? [] : [Number(i.tookMs)]));
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

  /** The oldest `limit` changes logged before `before` (ms), oldest first. */
  async before(before: number, limit: number): Promise<LoggedChange[]> {
    const items = await this.each((pk) =>
      this.doc
        .send(new QueryCommand({ TableName: this.table, ...range(pk, '<', before, 'PK, SK, urlId, tookMs', true), Limit: limit }))
        .then((res) => res.Items ?? []),
    );
    return items
      .map((i) => ({
        PK: String(i.PK),
        SK: String(i.SK),
        urlId: String(i.urlId),
        at: Number(String(i.SK).split('#')[0]),
        ...(i.tookMs === undefined ? {} : { tookMs: Number(i.tookMs) }),
      }))
      .sort((a, b) => (a.SK < b.SK ? -1 : a.SK > b.SK ? 1 : 0))
      .slice(0, limit);
  }

  /** Deletes the changes a fold took (by key: a change that landed meanwhile stays for the next fold). */
  async remove(changes: LoggedChange[]): Promise<void> {
    await this.batchWrite(
      [],
      changes.map((c) => ({ PK: c.PK, SK: c.SK })),
    );
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

/** The full-text index's manifest: one item, replaced only by a writer that read the version it replaces. */
export const TEXT_MANIFEST_KEY = { PK: 'TEXTINDEX', SK: 'MANIFEST' };

export class DynamoTextManifest extends DynamoTable {
  /** The stored manifest and its version (strongly consistent: a writer reads before it swaps). */
  async read(): Promise<{ version: number; manifest: string } | undefined> {
    const res = await this.doc.send(new GetCommand({ TableName: this.table, Key: TEXT_MANIFEST_KEY, ConsistentRead: true }));
    return res.Item ? { version: Number(res.Item.version), manifest: String(res.Item.manifest) } : undefined;
  }

  /** Stores `manifest` as version `expected + 1` if the stored version is still `expected` (0: none stored); false if another writer came first. */
  async swap(manifest: string, expected: number): Promise<boolean> {
    try {
      await this.doc.send(
        new PutCommand({
          TableName: this.table,
          Item: { ...TEXT_MANIFEST_KEY, type: 'TEXTINDEX', version: expected + 1, manifest },
          ConditionExpression: expected === 0 ? 'attribute_not_exists(PK)' : 'version = :v',
          ...(expected === 0 ? {} : { ExpressionAttributeValues: { ':v': expected } }),
        }),
      );
      return true;
    } catch (err) {
      if ((err as Error).name === 'ConditionalCheckFailedException') return false;
      throw err;
    }
  }
}
