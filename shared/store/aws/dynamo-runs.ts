import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { RunRecord, RunStatus } from '../../ports/index.js';
import { scopeOf } from './dynamo-items.js';
import { DynamoReports } from './dynamo-reports.js';
import { inBatches, isConditionFailure } from './dynamo-table.js';
import { QUEUE_PARTS, runShardsFor, TTL_ATTRIBUTE, keys } from './table-layout.js';

/** Runs: the run counter, each run's RUN and COUNTERS items, its status and scope (the `RunStore` half of the cloud store). */
export abstract class DynamoRuns extends DynamoReports {
  async createRun(seeds: string[], config: Record<string, unknown>, now: number): Promise<RunRecord> {
    const res = await this.doc.send(
      new UpdateCommand({
        TableName: this.table,
        Key: keys.runCounter(),
        UpdateExpression: 'ADD #last :one',
        ExpressionAttributeNames: { '#last': 'last' },
        ExpressionAttributeValues: { ':one': 1 },
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    const id = Number(res.Attributes?.last);
    const run: RunRecord = { id, startedAt: now, status: 'running', seeds, config };
    const shards = runShardsFor(Number(config.maxPages) || undefined);
    // The counter shards exist before the RUN item names them: a worker that reads `shards` finds them.
    await inBatches(
      Array.from({ length: shards }, (_, k) => k),
      16,
      (k) =>
        this.doc.send(
          new PutCommand({
            TableName: this.table,
            Item: {
              ...keys.runCounters(id, shards, k),
              type: 'COUNTERS',
              runId: id,
              enqueued: 0,
              settled: 0,
              pages: 0,
              requests: 0,
              bytes: 0,
              unchanged: 0,
              pagesStored: 0,
              duplicates: 0,
              fetches: {},
            },
          }),
        ),
    );
    await this.doc.send(new PutCommand({ TableName: this.table, Item: { ...keys.run(id), type: 'RUN', ...run, shards, queueParts: QUEUE_PARTS } }));
    this.rememberLayout(id, { shards, queueParts: QUEUE_PARTS });
    await this.doc.send(new PutCommand({ TableName: this.table, Item: { ...keys.runningRun(id), type: 'RUNNING', runId: id } }));
    if (typeof config.crawl === 'string') await this.pointCrawlAt(config.crawl, id);
    return run;
  }

  async latestRun(): Promise<RunRecord | undefined> {
    const counter = await this.get(keys.runCounter());
    return counter ? this.getRun(Number(counter.last)) : undefined;
  }

  async widenRunScope(runId: number, origins: string[]): Promise<void> {
    if (origins.length === 0) return;
    // A string set: ADD keeps each origin once, whoever adds it and however often.
    await this.doc.send(
      new UpdateCommand({
        TableName: this.table,
        Key: keys.run(runId),
        UpdateExpression: 'ADD #scope :o',
        ConditionExpression: 'attribute_exists(PK)',
        ExpressionAttributeNames: { '#scope': 'scope' },
        ExpressionAttributeValues: { ':o': new Set(origins) },
      }),
    );
  }

  /** The crawl's latest run becomes this one (never an older one: a slow writer does not move it back). */
  private async pointCrawlAt(crawl: string, runId: number): Promise<void> {
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.table,
          Key: keys.crawlLatest(crawl),
          UpdateExpression: 'SET #type = :t, crawl = :c, runId = :id',
          ConditionExpression: 'attribute_not_exists(runId) OR runId < :id',
          ExpressionAttributeNames: { '#type': 'type' },
          ExpressionAttributeValues: { ':t': 'CRAWL', ':c': crawl, ':id': runId },
        }),
      );
    } catch (err) {
      if (!isConditionFailure(err)) throw err;
    }
  }

  async runningRuns(): Promise<RunRecord[]> {
    const running = await this.partition('RUNS', 'RUNNING#', { expr: 'attribute_not_exists(endedAt)' });
    const runs = (await this.batchGet(running.map((r) => keys.run(Number(r.runId))))).map(runOf);
    return runs.filter((r) => r.status === 'running').sort((a, b) => a.id - b.id);
  }

  async latestRunOf(crawl: string): Promise<RunRecord | undefined> {
    const pointer = await this.get(keys.crawlLatest(crawl));
    return pointer ? this.getRun(Number(pointer.runId)) : undefined;
  }

  async setRunStatus(runId: number, status: RunStatus, now: number): Promise<void> {
    await this.doc.send(
      new UpdateCommand({
        TableName: this.table,
        Key: keys.run(runId),
        UpdateExpression: status === 'running' ? 'SET #st = :s REMOVE finishedAt' : 'SET #st = :s, finishedAt = :now',
        ExpressionAttributeNames: { '#st': 'status' },
        ExpressionAttributeValues: status === 'running' ? { ':s': status } : { ':s': status, ':now': now },
      }),
    );
    // An ended run's RUNNING item is marked and left to the table's TTL (a day): the stages that end
    // runs update items and delete none.
    await this.doc.send(
      new UpdateCommand({
        TableName: this.table,
        Key: keys.runningRun(runId),
        UpdateExpression:
          status === 'running' ? 'SET #type = :t, runId = :id REMOVE endedAt, #exp' : 'SET #type = :t, runId = :id, endedAt = :now, #exp = :exp',
        ExpressionAttributeNames: { '#type': 'type', '#exp': TTL_ATTRIBUTE },
        ExpressionAttributeValues:
          status === 'running' ? { ':t': 'RUNNING', ':id': runId } : { ':t': 'RUNNING', ':id': runId, ':now': now, ':exp': Math.floor(now / 1000) + 86_400 },
      }),
    );
  }

  async recentRuns(limit: number, before?: number): Promise<RunRecord[]> {
    // Run ids are the run counter's values: the ids below `before`, newest first, read by key (an
    // id whose run was never written is passed over).
    let last = Math.min(Number((await this.get(keys.runCounter()))?.last ?? 0), (before ?? Infinity) - 1);
    const out: RunRecord[] = [];
    while (out.length < limit && last >= 1) {
      const ids = Array.from({ length: Math.min(limit - out.length, last) }, (_, i) => last - i);
      out.push(...(await this.batchGet(ids.map((id) => keys.run(id)))).map(runOf).sort((a, b) => b.id - a.id));
      last -= ids.length;
    }
    return out;
  }

  async runs(): Promise<RunRecord[]> {
    const counter = await this.get(keys.runCounter());
    const last = Number(counter?.last ?? 0);
    const items = await this.batchGet(Array.from({ length: last }, (_, i) => keys.run(i + 1)));
    return items.map(runOf).sort((a, b) => a.id - b.id);
  }
}

function runOf(i: Record<string, unknown>): RunRecord {
  return {
    id: Number(i.id),
    startedAt: Number(i.startedAt),
    finishedAt: i.finishedAt as number | undefined,
    status: i.status as RunStatus,
    seeds: i.seeds as string[],
    config: i.config as Record<string, unknown>,
    ...scopeOf(i),
  };
}
