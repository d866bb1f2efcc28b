// A run's COUNTERS items: the additions a commit makes, gathered into one update, and the state
// moves of claims that wait to ride the run's next page slot.
import { AsyncLocalStorage } from 'node:async_hooks';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { DynamoTable } from './dynamo-table.js';
import { keys } from './table-layout.js';

/** States whose URLs are counted by reason in a run's summary (`skipsByReason`). */
const COUNTED_BY_REASON: ReadonlySet<unknown> = new Set(['skipped', 'blocked', 'failed', 'duplicate']);
/** COUNTERS attributes: URLs in a state (`u:<state>`) and URLs of a skip-like state by reason (`r:<reason>`). */
export const STATE_COUNTER = 'u:';
export const REASON_COUNTER = 'r:';

/**
 * What a URL's move from one state (and reason) to another does to the run's state counters: the
 * summary reads them from COUNTERS instead of reading every URL of the run.
 */
export function stateMoves(from: { state?: unknown; reason?: unknown } | undefined, to: { state: unknown; reason?: unknown }): Record<string, number> {
  const moves: Record<string, number> = {};
  const add = (key: string, n: number) => (moves[key] = (moves[key] ?? 0) + n);
  for (const [side, n] of [
    [from, -1],
    [to, 1],
  ] as const) {
    if (side?.state === undefined) continue;
    add(`${STATE_COUNTER}${String(side.state)}`, n);
    if (COUNTED_BY_REASON.has(side.state)) add(`${REASON_COUNTER}${String(side.reason ?? 'none')}`, n);
  }
  return moves;
}

/** A random one of a run's `shards` counter shards. */
export function randomShard(shards: number): number {
  return Math.floor(Math.random() * shards);
}

type CounterBatch = Map<number, { counters: Record<string, number>; statuses: Record<string, number> }>;
/** The counter additions of the commit running here, sent as one update when it ends. */
const gathering = new AsyncLocalStorage<CounterBatch>();

/** The run's counters, sharded over its COUNTERS items; the ledger and the stores build on it. */
export abstract class DynamoRunCounters extends DynamoTable {
  /**
   * State moves of URLs claimed with `deferCounts`, by run, not yet written: the next page slot
   * claimed for the run carries them in its own update (a claim's moves cost a write unit of their
   * own otherwise), else the run's next counter update or {@link flushCounters} does.
   */
  private readonly pendingMoves = new Map<number, Record<string, number>>();

  protected deferMoves(runId: number, moves: Record<string, number>): void {
    const p = this.pendingMoves.get(runId) ?? {};
    for (const [k, n] of Object.entries(moves)) p[k] = (p[k] ?? 0) + n;
    this.pendingMoves.set(runId, p);
  }

  /** Takes the run's deferred moves (they are this caller's to write, or to give back). */
  protected takeMoves(runId: number): Record<string, number> {
    const p = this.pendingMoves.get(runId) ?? {};
    this.pendingMoves.delete(runId);
    return p;
  }

  /** Writes the state moves of claims not yet carried by a page slot's update. */
  async flushCounters(): Promise<void> {
    for (const runId of [...this.pendingMoves.keys()]) await this.sendCounters(runId, {}, {});
  }

  protected async addCounters(runId: number, counters: Record<string, number>, statusKey?: string): Promise<void> {
    const batch = gathering.getStore();
    if (!batch) return this.sendCounters(runId, counters, statusKey ? { [statusKey]: 1 } : {});
    const c = batch.get(runId) ?? { counters: {}, statuses: {} };
    for (const [k, n] of Object.entries(counters)) c.counters[k] = (c.counters[k] ?? 0) + n;
    if (statusKey) c.statuses[statusKey] = (c.statuses[statusKey] ?? 0) + 1;
    batch.set(runId, c);
  }

  /**
   * Runs `fn` with its counter additions gathered into one update a run, sent when it ends
   * (failed or not): a commit added to COUNTERS four or five times, a write unit each (the cloud bench's meter).
   */
  protected async countingOnce<T>(fn: () => Promise<T>): Promise<T> {
    if (gathering.getStore()) return fn();
    const batch: CounterBatch = new Map();
    try {
      return await gathering.run(batch, fn);
    } finally {
      for (const [runId, c] of batch) await this.sendCounters(runId, c.counters, c.statuses);
    }
  }

  private async sendCounters(runId: number, own: Record<string, number>, statuses: Record<string, number>): Promise<void> {
    const pending = this.takeMoves(runId);
    const counters = { ...own };
    for (const [k, n] of Object.entries(pending)) counters[k] = (counters[k] ?? 0) + n;
    const entries = Object.entries(counters).filter(([, n]) => n !== 0);
    const byStatus = Object.entries(statuses).filter(([, n]) => n !== 0);
    if (entries.length === 0 && byStatus.length === 0) return;
    try {
      await this.sendCounterUpdate(runId, entries, byStatus);
    } catch (err) {
      this.deferMoves(runId, pending);
      throw err;
    }
  }

  private async sendCounterUpdate(runId: number, entries: Array<[string, number]>, byStatus: Array<[string, number]>): Promise<void> {
    const names: Record<string, string> = {};
    const values: Record<string, unknown> = {};
    const adds = entries.map(([k, n], i) => {
      names[`#c${i}`] = k;
      values[`:c${i}`] = n;
      return `#c${i} :c${i}`;
    });
    if (byStatus.length) names['#f'] = 'fetches';
    byStatus.forEach(([status, n], i) => {
      names[`#s${i}`] = status;
      values[`:s${i}`] = n;
      adds.push(`#f.#s${i} :s${i}`);
    });
    // Any shard takes the moves: one commit's in one update, spread over the run's shards.
    const shards = await this.shardsOf(runId);
    await this.doc.send(
      new UpdateCommand({
        TableName: this.table,
        Key: keys.runCounters(runId, shards, randomShard(shards)),
        UpdateExpression: `ADD ${adds.join(', ')}`,
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      }),
    );
  }
}
