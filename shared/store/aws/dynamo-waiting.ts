import { gunzipSync, gzipSync } from 'node:zlib';
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { FINAL_STATES, SOFT_SKIPS, type FrontierRow } from '../../ports/index.js';
import { frontierItem, type Item, type RunLayout } from './dynamo-items.js';
import { DynamoLedger } from './dynamo-ledger.js';
import { stateMoves } from './dynamo-run-counters.js';
import { inBatches, isConditionFailure } from './dynamo-table.js';
import { FRONTIER_INDEX, keys, queueOrder, urlQueueKey, WAITING_SK } from './table-layout.js';

/** A frontier row's place in its host's queue. */
const queueOrderOf = (r: FrontierRow) => queueOrder(r.priority, r.depth, r.urlId);
/** URLs one waiting item holds at most: a few tens of kilobytes gzipped, far inside DynamoDB's 400 KB. */
const WAITING_ROWS_MAX = 400;
/** A page's new URLs of a host wait in a batch from this many on. */
const WAITING_MIN = 3;
/** The fields every URL of a batch shares, kept once on the item. */
type Shared = 'runId' | 'host' | 'discoveredFrom' | 'state';

/** A waiting item's URLs as frontier rows (queued, found on `discoveredFrom`). */
export function waitingRows(item: Item): FrontierRow[] {
  const shared = { runId: Number(item.runId), host: String(item.host), discoveredFrom: String(item.from), state: 'queued' as const };
  const rows = JSON.parse(gunzipSync(item.rows as Uint8Array).toString()) as Array<Omit<FrontierRow, Shared>>;
  return rows.map((r) => ({ ...r, ...shared }));
}

/**
 * The URLs a table's items hold in the frontier: URL items, and the URLs of batches still waiting
 * (a URL found on two pages before its host's turn is in both: counted twice until admitted).
 */
export function frontierUrlCount(items: Iterable<Item>): number {
  let n = 0;
  for (const i of items) {
    if (i.type === 'URL') n++;
    else if (i.type === 'WAITING' && i.state === 'queued') n += Number(i.count ?? 0);
  }
  return n;
}

/**
 * The rows that wait in batches: those of a page's hosts with WAITING_MIN new URLs or more. A
 * host's one or two get URL items at once, as a batch of them would cost as much and its admission more.
 */
function waitingGroups(rows: FrontierRow[]): FrontierRow[] {
  const byHost = new Map<string, number>();
  for (const r of rows) byHost.set(`${r.runId}\n${r.host}`, (byHost.get(`${r.runId}\n${r.host}`) ?? 0) + 1);
  return rows.filter((r) => byHost.get(`${r.runId}\n${r.host}`)! >= WAITING_MIN);
}

/** URLs a run has in the frontier (neither absent nor skipped for a path-dependent reason), by table and run: what this process has seen. */
const seenByRun = new Map<string, Set<string>>();
/** A warm Lambda keeps its cache across pages; past this many URLs a run's set starts over. */
const SEEN_MAX = 200_000;

/** Drops what this process has seen, as a new Lambda instance starts without it (tests model a second worker so). */
export function forgetSeenUrls(): void {
  seenByRun.clear();
}

function seenUrls(table: string, runId: number): Set<string> {
  const key = `${table}\n${runId}`;
  let set = seenByRun.get(key);
  if (!set || set.size > SEEN_MAX) seenByRun.set(key, (set = new Set()));
  return set;
}

/**
 * URLs found on a page wait for their host's turn as one item a host (`WAIT#<host>#<page>#<part>`
 * in the run partition of the host's record), not as an item each: the item takes its place in the
 * host's queue (the frontier index) at its best URL's place. When a host's turn reaches it, its URLs
 * are admitted, each a URL item in the queue as any other, and the batch leaves the queue. A URL
 * found and never reached costs a share of one write, not two writes of its own. The run's and the
 * host's counts include waiting URLs; one found again before admission is taken off them then.
 */
export abstract class DynamoWaiting extends DynamoLedger {
  /**
   * Adds the rows the run has not seen; returns the ids of those added. With `wait`, queued URLs
   * found on a page (`discoveredFrom`) wait for their host's turn in batches, and become URL items
   * only when the turn reaches them; the rest (and every row without `wait`) are URL items at once.
   */
  protected async addFrontier(rows: FrontierRow[], wait: boolean, expiresAt: number): Promise<string[]> {
    const inserted: string[] = [];
    // Counted once, in one update: a progress check between a settled +1 and its enqueued +1 would see a drained run.
    const counts = new Map<number, Record<string, number>>();
    const count = (runId: number, moves: Record<string, number>) => {
      const c = counts.get(runId) ?? {};
      for (const [k, n] of Object.entries(moves)) c[k] = (c[k] ?? 0) + n;
      counts.set(runId, c);
    };
    // Most links of a page are known already: those this process has seen in the run are dropped,
    // one eventually consistent BatchGet (half a read unit each) finds the others, and only the
    // rest are written. A failed conditional put would cost a write unit each.
    const seen = (runId: number) => seenUrls(this.table, runId);
    const unseen = rows.filter((r) => !seen(r.runId).has(r.urlId));
    const layouts = new Map<number, RunLayout>();
    for (const runId of new Set(rows.map((r) => r.runId))) layouts.set(runId, await this.layoutOf(runId));
    const keyOf = (r: FrontierRow) => keys.frontier(r.runId, r.urlId, layouts.get(r.runId)!.shards);
    const keyString = (k: { PK: unknown; SK: unknown }) => `${String(k.PK)}\n${String(k.SK)}`;
    const known = new Map(
      (await this.batchGet(unseen.map(keyOf), ['PK', 'SK', 'state', 'reason'])).map((i) => [keyString(i as { PK: unknown; SK: unknown }), i]),
    );
    const candidates = unseen.filter((row) => {
      const current = known.get(keyString(keyOf(row)));
      const soft = current?.state === 'skipped' && (SOFT_SKIPS as readonly unknown[]).includes(current.reason);
      if (current && !soft) seen(row.runId).add(row.urlId);
      return !current || (row.state === 'queued' && soft);
    });
    const waits = wait
      ? waitingGroups(candidates.filter((r) => r.state === 'queued' && r.discoveredFrom !== undefined && !known.has(keyString(keyOf(r)))))
      : [];
    const waiting = new Set(waits);
    for (const runId of new Set(waits.map((r) => r.runId))) {
      const put = await this.putWaiting(
        waits.filter((r) => r.runId === runId),
        layouts.get(runId)!,
        expiresAt,
      );
      for (const row of put) {
        inserted.push(row.urlId);
        seen(row.runId).add(row.urlId);
        count(row.runId, { ...stateMoves(undefined, row), enqueued: 1 });
      }
    }
    await inBatches(
      candidates.filter((r) => !waiting.has(r)),
      16,
      async (row) => {
        // A URL skipped for a reason that depends on the path to it is queued when a better path appears.
        const soft = row.state === 'queued';
        try {
          const res = await this.doc.send(
            new PutCommand({
              TableName: this.table,
              Item: frontierItem(row, expiresAt, layouts.get(row.runId)!),
              ConditionExpression: soft ? 'attribute_not_exists(PK) OR (#st = :skipped AND #r IN (:soft0, :soft1))' : 'attribute_not_exists(PK)',
              ExpressionAttributeNames: soft ? { '#st': 'state', '#r': 'reason' } : undefined,
              ExpressionAttributeValues: soft ? { ':skipped': 'skipped', ':soft0': SOFT_SKIPS[0], ':soft1': SOFT_SKIPS[1] } : undefined,
              ReturnValues: 'ALL_OLD',
            }),
          );
          inserted.push(row.urlId);
          if (row.state !== 'skipped') seen(row.runId).add(row.urlId);
          count(row.runId, stateMoves(res.Attributes, row));
          if (row.state === 'queued') count(row.runId, { enqueued: 1 });
          else if (FINAL_STATES.has(row.state)) count(row.runId, { enqueued: 1, settled: 1 });
        } catch (err) {
          if (!isConditionFailure(err)) throw err;
        }
      },
    );
    for (const [runId, c] of counts) await this.addCounters(runId, c);
    return rows.filter((r) => inserted.includes(r.urlId)).map((r) => r.urlId);
  }

  /**
   * Puts the rows (queued, new to the run as far as the caller knows, all found on one page) as
   * waiting items, one a host (more past WAITING_ROWS_MAX). Returns the rows put: a redelivered
   * commit finds its items there and puts nothing again.
   */
  private async putWaiting(rows: FrontierRow[], layout: RunLayout, expiresAt: number): Promise<FrontierRow[]> {
    const byItem = new Map<string, FrontierRow[]>();
    for (const r of rows) {
      const id = `${r.runId}\n${r.host}\n${r.discoveredFrom ?? ''}`;
      const group = byItem.get(id) ?? [];
      group.push(r);
      byItem.set(id, group);
    }
    const parts: Array<{ rows: FrontierRow[]; part: number }> = [];
    for (const group of byItem.values())
      for (let i = 0; i < group.length; i += WAITING_ROWS_MAX) parts.push({ rows: group.slice(i, i + WAITING_ROWS_MAX), part: i / WAITING_ROWS_MAX });
    const put = await inBatches(parts, 16, async ({ rows: part, part: n }) => {
      const first = part[0]!;
      const from = first.discoveredFrom ?? '';
      const key = keys.waiting(first.runId, first.host, from, n, layout.shards);
      const best = part.reduce((a, b) => (queueOrderOf(b) < queueOrderOf(a) ? b : a));
      const stored = part.map(({ runId: _r, host: _h, discoveredFrom: _d, state: _s, ...rest }) => rest);
      try {
        await this.doc.send(
          new PutCommand({
            TableName: this.table,
            Item: {
              ...key,
              type: 'WAITING',
              state: 'queued',
              runId: first.runId,
              host: first.host,
              from,
              count: part.length,
              rows: gzipSync(JSON.stringify(stored)),
              expiresAt,
              [FRONTIER_INDEX.pk]: urlQueueKey(first.runId, first.host, String(key.SK), layout.queueParts),
              [FRONTIER_INDEX.sk]: queueOrder(best.priority, best.depth, `~${String(key.SK)}`),
            },
            ConditionExpression: 'attribute_not_exists(PK)',
          }),
        );
        return part;
      } catch (err) {
        if (isConditionFailure(err)) return [];
        throw err;
      }
    });
    return put.flat();
  }

  /**
   * Admits waiting items of a host's queue (their keys, as the frontier index gave them): each URL
   * is put as a URL item in the queue unless the run has it already (then it is taken off the run's
   * and the host's counts), and the item leaves the queue. Safe to repeat: a URL this item admitted
   * before is known by its `admittedBy`.
   */
  protected async admitWaiting(runId: number, hostKey: Item, waiting: Item[], layout: RunLayout): Promise<void> {
    const items = await this.batchGet(
      waiting.map((e) => ({ PK: e.PK, SK: e.SK })),
      undefined,
      true,
    );
    // The batches at once (a fetch worker is billed by the millisecond); each one's URLs 16 at a time.
    await Promise.all(items.filter((i) => i.state === 'queued').map((item) => this.admitOne(runId, hostKey, item, layout)));
  }

  private async admitOne(runId: number, hostKey: Item, item: Item, layout: RunLayout): Promise<void> {
    const key = { PK: item.PK, SK: item.SK };
    const expiresAt = Number(item.expiresAt);
    const moves: Record<string, number> = {};
    const add = (m: Record<string, number>, sign: number) => {
      for (const [k, n] of Object.entries(m)) moves[k] = (moves[k] ?? 0) + sign * n;
    };
    let known = 0;
    await inBatches(waitingRows(item), 16, async (row) => {
      const urlKey = keys.frontier(runId, row.urlId, layout.shards);
      try {
        const res = await this.doc.send(
          new PutCommand({
            TableName: this.table,
            Item: { ...frontierItem(row, expiresAt, layout), admittedBy: String(key.SK) },
            // A URL skipped for a reason that depends on the path to it is queued by this better path.
            ConditionExpression: 'attribute_not_exists(PK) OR (#st = :skipped AND #r IN (:soft0, :soft1))',
            ExpressionAttributeNames: { '#st': 'state', '#r': 'reason' },
            ExpressionAttributeValues: { ':skipped': 'skipped', ':soft0': SOFT_SKIPS[0], ':soft1': SOFT_SKIPS[1] },
            ReturnValues: 'ALL_OLD',
          }),
        );
        // Counted as new when it was put waiting: a skipped URL queued again leaves its old state.
        if (res.Attributes) {
          add(stateMoves(res.Attributes, row), 1);
          add(stateMoves(undefined, row), -1);
        }
      } catch (err) {
        if (!isConditionFailure(err)) throw err;
        const current = (await this.doc.send(new GetCommand({ TableName: this.table, Key: urlKey, ProjectionExpression: 'admittedBy', ConsistentRead: true })))
          .Item;
        if (current?.admittedBy === key.SK) return;
        // The run had it already: it was counted twice, once here.
        add(stateMoves(undefined, row), -1);
        moves.enqueued = (moves.enqueued ?? 0) - 1;
        known++;
      }
    });
    // Out of the queue, kept until its TTL (no delete: the admission is one update), as the counts move.
    await Promise.all([
      Object.values(moves).some((n) => n !== 0) ? this.addCounters(runId, moves) : undefined,
      known > 0
        ? this.doc.send(
            new UpdateCommand({ TableName: this.table, Key: hostKey, UpdateExpression: 'ADD queued :minus', ExpressionAttributeValues: { ':minus': -known } }),
          )
        : undefined,
      this.doc.send(
        new UpdateCommand({
          TableName: this.table,
          Key: key,
          UpdateExpression: 'SET #st = :admitted REMOVE #qpk, #qsk',
          ExpressionAttributeNames: { '#st': 'state', '#qpk': FRONTIER_INDEX.pk, '#qsk': FRONTIER_INDEX.sk },
          ExpressionAttributeValues: { ':admitted': 'admitted' },
        }),
      ),
    ]);
  }

  /** The URLs of a run still waiting in batches (not admitted), each once, leaving out `except` (URLs the run has items for). */
  protected async waitingUrls(runId: number, except: ReadonlySet<string>): Promise<FrontierRow[]> {
    const items = await this.runItems(runId, WAITING_SK, { expr: '#st = :q', names: { '#st': 'state' }, values: { ':q': 'queued' } });
    const out = new Map<string, FrontierRow>();
    for (const item of items) for (const row of waitingRows(item)) if (!except.has(row.urlId) && !out.has(row.urlId)) out.set(row.urlId, row);
    return [...out.values()];
  }
}
