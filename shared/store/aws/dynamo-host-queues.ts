import { GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { HostQueues, HostTurn, HostTurnRecord, PendingUrl, QueueClosing, QueuedAt } from '../../ports/index.js';
import type { FetchKind } from '../../fetch/content-type.js';
import { stateMoves } from './dynamo-run-counters.js';
import { isConditionFailure } from './dynamo-table.js';
import { DynamoWaiting } from './dynamo-waiting.js';
import { FRONTIER_INDEX, hostQueueKeys, keys, runPartition, URL_SK, WAITING_SK } from './table-layout.js';

/**
 * Reads of a host's queue head one `nextQueued` makes, admitting the waiting batches it finds there:
 * at most ADMIT_ROUNDS when the head shows a URL to take, up to ADMIT_ROUNDS_EMPTY while it shows
 * only batches (of URLs the run had meanwhile), so a turn does not read an empty queue that is not.
 */
const ADMIT_ROUNDS = 3;
const ADMIT_ROUNDS_EMPTY = 12;

/** Parked hosts this process has recorded for a run (`table\nrun\nhost`). */
const parkedSeen = new Set<string>();
const PARKED_SEEN_MAX = 200_000;

/**
 * A run's host queues on the single table: the queued URLs are the frontier index's `Q#<run>#<host>#<part>`
 * partitions (written with the URL items), and the run's host record (`RUN#<run>#<shard>` /
 * `HOST#<host>`, beside its page slots) holds the host's live turn and queued count, each change
 * one conditional update, so a turn ends only when nothing is queued at its host.
 */
export abstract class DynamoHostQueues extends DynamoWaiting implements HostQueues {
  private async hostKey(runId: number, host: string) {
    return keys.runHost(runId, host, await this.shardsOf(runId));
  }

  async addHostWork(runId: number, host: string, added: number, now: number): Promise<HostTurn | undefined> {
    const Key = await this.hostKey(runId, host);
    const res = await this.doc.send(
      new UpdateCommand({
        TableName: this.table,
        Key,
        UpdateExpression: 'SET #type = :t, #host = :h ADD queued :n',
        ExpressionAttributeNames: { '#type': 'type', '#host': 'host' },
        ExpressionAttributeValues: { ':t': 'RUN_HOST', ':h': host, ':n': added },
        ReturnValues: 'ALL_NEW',
      }),
    );
    const closed = res.Attributes?.closed as QueueClosing | undefined;
    if (closed) {
      // The host's queue is closed for the run: what is queued there now settles as its queue did.
      await this.settleCounted(runId, added, closed);
      return undefined;
    }
    if (res.Attributes?.turn !== undefined) return undefined;
    // No live turn: this caller starts one, unless another caller just did.
    return this.newTurn(runId, host, now, 'attribute_not_exists(turn)');
  }

  async closeHostQueue(turn: HostTurn, taken: number, closing: QueueClosing): Promise<number | undefined> {
    let before: Record<string, unknown> | undefined;
    try {
      const res = await this.doc.send(
        new UpdateCommand({
          TableName: this.table,
          Key: await this.hostKey(turn.runId, turn.host),
          UpdateExpression: 'SET closed = :c, queued = :zero REMOVE turn',
          ConditionExpression: 'turn = :cur',
          ExpressionAttributeValues: { ':c': closing, ':zero': 0, ':cur': turn.turn },
          ReturnValues: 'ALL_OLD',
        }),
      );
      before = res.Attributes;
    } catch (err) {
      if (isConditionFailure(err)) return undefined;
      throw err;
    }
    const settled = Math.max(0, Number(before?.queued ?? 0) - taken);
    await this.settleCounted(turn.runId, settled, closing);
    if (closing.reason === 'host-parked') await this.rememberParked(turn.runId, turn.host);
    return settled;
  }

  /** A run's hosts whose URLs were skipped as parked (`PARKED#<host>`), written once a process: the summary's parked hosts. */
  protected async rememberParked(runId: number, host: string): Promise<void> {
    const key = `${this.table}\n${runId}\n${host}`;
    if (parkedSeen.has(key)) return;
    if (parkedSeen.size > PARKED_SEEN_MAX) parkedSeen.clear();
    parkedSeen.add(key);
    await this.doc.send(
      new UpdateCommand({
        TableName: this.table,
        Key: keys.runParked(runId, host),
        UpdateExpression: 'SET #type = :t, #host = :h',
        ExpressionAttributeNames: { '#type': 'type', '#host': 'host' },
        ExpressionAttributeValues: { ':t': 'PARKED', ':h': host },
      }),
    );
  }

  /** `n` queued URLs settled in the run's counters (their items stay `queued`: reads show them as settled). */
  private async settleCounted(runId: number, n: number, closing: QueueClosing): Promise<void> {
    if (n <= 0) return;
    const moves = stateMoves({ state: 'queued' }, closing);
    await this.addCounters(runId, { ...Object.fromEntries(Object.entries(moves).map(([k, v]) => [k, v * n])), settled: n });
  }

  async hostTurn(runId: number, host: string): Promise<HostTurnRecord | undefined> {
    const item = (await this.doc.send(new GetCommand({ TableName: this.table, Key: await this.hostKey(runId, host), ConsistentRead: true }))).Item;
    if (!item) return undefined;
    return {
      queued: Number(item.queued ?? 0),
      ...(item.turn !== undefined ? { turn: Number(item.turn), turnAt: Number(item.turnAt ?? 0) } : {}),
      ...(item.closed ? { closed: item.closed as QueueClosing } : {}),
    };
  }

  async hostTurns(runId: number, hosts: string[]): Promise<Map<string, HostTurnRecord>> {
    const shards = await this.shardsOf(runId);
    const items = await this.batchGet(
      hosts.map((h) => keys.runHost(runId, h, shards)),
      ['host', 'queued', 'turn', 'turnAt', 'closed'],
    );
    return new Map(
      items.map((item) => [
        String(item.host),
        {
          queued: Number(item.queued ?? 0),
          ...(item.turn !== undefined ? { turn: Number(item.turn), turnAt: Number(item.turnAt ?? 0) } : {}),
          ...(item.closed ? { closed: item.closed as QueueClosing } : {}),
        },
      ]),
    );
  }

  /**
   * The first `limit` URLs of a host's queue. Each part is asked for its first few (a share of
   * `limit`, one more): the merged list is in exact order as far as that share, about the order
   * beyond it. A part that may hold more while the merged list falls short of `limit` is asked
   * again for `limit`, so a short answer still means the queue holds no more. Batches of URLs
   * waiting (`WAIT#`) among the first `limit` are admitted, and the queue read again.
   */
  async nextQueued(runId: number, host: string, limit: number): Promise<QueuedAt[]> {
    const layout = await this.layoutOf(runId);
    for (let round = 1; ; round++) {
      const head = await this.queueHead(runId, host, limit, layout.queueParts);
      const waiting = head.filter((i) => String(i.SK).startsWith(WAITING_SK));
      const urls = head.filter((i) => String(i.SK).startsWith(URL_SK));
      if (waiting.length === 0 || (round >= ADMIT_ROUNDS && urls.length > 0) || round === ADMIT_ROUNDS_EMPTY) {
        return urls.map((i) => ({ urlId: String(i.SK).slice(URL_SK.length), notBefore: Number(i.notBefore ?? 0) }));
      }
      await this.admitWaiting(runId, await this.hostKey(runId, host), waiting, layout);
    }
  }

  private async queueHead(runId: number, host: string, limit: number, queueParts: number): Promise<Array<Record<string, unknown>>> {
    const parts = hostQueueKeys(runId, host, queueParts);
    const share = parts.length === 1 ? limit : Math.ceil(limit / parts.length) + 1;
    const read = async (q: string, n: number) => (await this.frontierPartition(q, n)).Items ?? [];
    let lists = await Promise.all(parts.map((q) => read(q, share)));
    const total = lists.reduce((n, l) => n + l.length, 0);
    if (share < limit && total < limit) lists = await Promise.all(lists.map((l, k) => (l.length < share ? l : read(parts[k]!, limit))));
    return lists
      .flat()
      .filter((i) => String(i.SK).startsWith(URL_SK) || String(i.SK).startsWith(WAITING_SK))
      .sort((a, b) => (String(a[FRONTIER_INDEX.sk]) < String(b[FRONTIER_INDEX.sk]) ? -1 : 1))
      .slice(0, limit);
  }

  async keepTurn(turn: HostTurn, taken: number, now: number): Promise<boolean> {
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.table,
          Key: await this.hostKey(turn.runId, turn.host),
          UpdateExpression: 'SET turnAt = :now ADD queued :minus',
          ConditionExpression: 'turn = :cur',
          ExpressionAttributeValues: { ':now': now, ':minus': -taken, ':cur': turn.turn },
        }),
      );
      return true;
    } catch (err) {
      if (isConditionFailure(err)) return false;
      throw err;
    }
  }

  async keepTurnWithSlot(turn: HostTurn, taken: number, now: number, maxPerHost: number): Promise<'kept' | 'full' | 'stale'> {
    const Key = await this.hostKey(turn.runId, turn.host);
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.table,
          Key,
          UpdateExpression: 'SET turnAt = :now ADD queued :minus, fetched :one',
          ConditionExpression: 'turn = :cur AND (attribute_not_exists(fetched) OR fetched < :max)',
          ExpressionAttributeValues: { ':now': now, ':minus': -taken, ':one': 1, ':cur': turn.turn, ':max': maxPerHost },
        }),
      );
      return 'kept';
    } catch (err) {
      if (!isConditionFailure(err)) throw err;
    }
    // Which part failed: read once, on this rare path only.
    const item = (await this.doc.send(new GetCommand({ TableName: this.table, Key, ConsistentRead: true }))).Item;
    return item?.turn !== turn.turn ? 'stale' : 'full';
  }

  async passTurn(turn: HostTurn, taken: number, now: number): Promise<HostTurn | undefined> {
    try {
      const res = await this.doc.send(
        new UpdateCommand({
          TableName: this.table,
          Key: await this.hostKey(turn.runId, turn.host),
          UpdateExpression: 'SET turns = turns + :one, turn = turns + :one, turnAt = :now ADD queued :minus',
          ConditionExpression: 'turn = :cur',
          ExpressionAttributeValues: { ':one': 1, ':now': now, ':minus': -taken, ':cur': turn.turn },
          ReturnValues: 'UPDATED_NEW',
        }),
      );
      return { runId: turn.runId, host: turn.host, turn: Number(res.Attributes?.turn) };
    } catch (err) {
      if (isConditionFailure(err)) return undefined;
      throw err;
    }
  }

  async endTurn(turn: HostTurn, taken: number, force = false): Promise<boolean> {
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.table,
          Key: await this.hostKey(turn.runId, turn.host),
          ...(force
            ? {
                UpdateExpression: 'REMOVE turn SET queued = :zero',
                ConditionExpression: 'turn = :cur',
                ExpressionAttributeValues: { ':zero': 0, ':cur': turn.turn },
              }
            : {
                UpdateExpression: 'REMOVE turn ADD queued :minus',
                // Nothing left after what this turn took: a URL counted meanwhile keeps the turn live.
                ConditionExpression: 'turn = :cur AND (attribute_not_exists(queued) OR queued <= :taken)',
                ExpressionAttributeValues: { ':minus': -taken, ':cur': turn.turn, ':taken': taken },
              }),
        }),
      );
      return true;
    } catch (err) {
      if (isConditionFailure(err)) return false;
      throw err;
    }
  }

  async restartTurn(runId: number, host: string, now: number, staleMs: number): Promise<HostTurn | undefined> {
    // A closed queue never gets a turn again: its URL items stay queued, settled in the counters.
    return this.newTurn(runId, host, now, 'attribute_not_exists(closed) AND (attribute_not_exists(turn) OR turnAt < :stale)', { ':stale': now - staleMs });
  }

  async redriveTurn(dead: HostTurn, now: number, maxRedrives: number): Promise<HostTurn | undefined> {
    try {
      const res = await this.doc.send(
        new UpdateCommand({
          TableName: this.table,
          Key: await this.hostKey(dead.runId, dead.host),
          UpdateExpression: 'SET turns = turns + :one, turn = turns + :one, turnAt = :now ADD redrives :one',
          ConditionExpression: 'turn = :dead AND attribute_not_exists(closed) AND (attribute_not_exists(redrives) OR redrives < :max)',
          ExpressionAttributeValues: { ':one': 1, ':now': now, ':dead': dead.turn, ':max': maxRedrives },
          ReturnValues: 'UPDATED_NEW',
        }),
      );
      return { ...dead, turn: Number(res.Attributes?.turn) };
    } catch (err) {
      if (isConditionFailure(err)) return undefined;
      throw err;
    }
  }

  async runShards(runId: number): Promise<number> {
    return this.shardsOf(runId);
  }

  async pendingUrls(runId: number, shard: number, limit: number, cursor?: string): Promise<{ urls: PendingUrl[]; read: number; cursor?: string }> {
    const pk = runPartition(runId, await this.shardsOf(runId), shard);
    const res = await this.doc.send(
      new QueryCommand({
        TableName: this.table,
        // URL items and the batches of URLs waiting (`WAIT#`, after them): a waiting batch is its host's queued work.
        KeyConditionExpression: 'PK = :pk AND SK BETWEEN :from AND :to',
        FilterExpression: '#st IN (:q, :f)',
        ProjectionExpression: 'SK, urlId, #host, #st, leaseUntil, attempts, kind',
        ExpressionAttributeNames: { '#st': 'state', '#host': 'host' },
        ExpressionAttributeValues: { ':pk': pk, ':from': URL_SK, ':to': `${WAITING_SK}\uffff`, ':q': 'queued', ':f': 'in_flight' },
        ExclusiveStartKey: cursor === undefined ? undefined : { PK: pk, SK: cursor },
        Limit: limit,
      }),
    );
    const urls = (res.Items ?? []).map((i) => ({
      urlId: String(i.urlId ?? i.SK),
      host: String(i.host),
      state: i.state as PendingUrl['state'],
      ...(i.leaseUntil !== undefined ? { leaseUntil: Number(i.leaseUntil) } : {}),
      attempts: Number(i.attempts ?? 0),
      ...(i.kind !== undefined ? { kind: i.kind as FetchKind } : {}),
    }));
    return { urls, read: res.ScannedCount ?? urls.length, ...(res.LastEvaluatedKey ? { cursor: String(res.LastEvaluatedKey.SK) } : {}) };
  }

  /** Hands the host a new turn (numbered after every turn it had) when `condition` holds. */
  private async newTurn(runId: number, host: string, now: number, condition: string, values: Record<string, unknown> = {}): Promise<HostTurn | undefined> {
    try {
      const res = await this.doc.send(
        new UpdateCommand({
          TableName: this.table,
          Key: await this.hostKey(runId, host),
          UpdateExpression: 'SET #type = :t, #host = :h, turns = if_not_exists(turns, :zero) + :one, turn = if_not_exists(turns, :zero) + :one, turnAt = :now',
          ConditionExpression: condition,
          ExpressionAttributeNames: { '#type': 'type', '#host': 'host' },
          ExpressionAttributeValues: { ':t': 'RUN_HOST', ':h': host, ':zero': 0, ':one': 1, ':now': now, ...values },
          ReturnValues: 'UPDATED_NEW',
        }),
      );
      return { runId, host, turn: Number(res.Attributes?.turn) };
    } catch (err) {
      if (isConditionFailure(err)) return undefined;
      throw err;
    }
  }
}
