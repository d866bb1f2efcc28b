import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { RunRecord, RunStatus } from '../ports/index.js';
import { scopeOf } from './dynamo-items.js';
import { DynamoReports } from './dynamo-reports.js';
import { keys } from './table.js';

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
    await this.doc.send(
      new PutCommand({
        TableName: this.table,
        Item: {
          ...keys.runCounters(id),
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
    );
    await this.doc.send(new PutCommand({ TableName: this.table, Item: { ...keys.run(id), type: 'RUN', ...run } }));
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
  }

  async runs(): Promise<RunRecord[]> {
    const counter = await this.get(keys.runCounter());
    const last = Number(counter?.last ?? 0);
    const items = await this.batchGet(Array.from({ length: last }, (_, i) => keys.run(i + 1)));
    return items
      .map((i) => ({
        id: Number(i.id),
        startedAt: Number(i.startedAt),
        finishedAt: i.finishedAt as number | undefined,
        status: i.status as RunStatus,
        seeds: i.seeds as string[],
        config: i.config as Record<string, unknown>,
        ...scopeOf(i),
      }))
      .sort((a, b) => a.id - b.id);
  }
}
