import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { newHostState, type HostState } from '../../politeness/host-state.js';
import type { FrontierRow, HostClaim, HostRecord, RunLedger, RunProgress, RunRecord, RunStatus } from '../../ports/index.js';
import { recordOf, scopeOf } from './dynamo-items.js';
import { isConditionFailure } from './dynamo-table.js';
import { DynamoRunCounters, randomShard, stateMoves } from './dynamo-run-counters.js';
import { FRONTIER_INDEX, keys } from './table-layout.js';

/** A host claim that was not made: when the host is ready, whether another worker holds it, and why it is parked. */
function unclaimed(item: Record<string, unknown> | undefined, now: number): HostClaim {
  const leaseUntil = Number(item?.leaseUntil ?? 0);
  const state = item?.state as HostState | undefined;
  const parkedReason = state?.parkedReason;
  return {
    claimed: false,
    readyAt: Number(item?.readyAt ?? 0),
    leased: leaseUntil >= now,
    ...(Number(state?.backoffUntil ?? 0) > now ? { backedOff: true } : {}),
    ...(parkedReason ? { parkedReason } : {}),
  };
}

/** Counter shards whose share of a run's page budget this process found spent, by `table\nrun`. */
const spentByRun = new Map<string, Set<number>>();
const SPENT_RUNS_MAX = 1_000;

function spentShards(table: string, runId: number): Set<number> {
  const key = `${table}\n${runId}`;
  let set = spentByRun.get(key);
  if (!set) {
    if (spentByRun.size >= SPENT_RUNS_MAX) spentByRun.clear();
    spentByRun.set(key, (set = new Set()));
  }
  return set;
}

/**
 * Counter reads of spent budgets under way in this process, by `table\nrun`: the turns an invocation
 * takes at once that all find the budget spent share one read of the run's counters.
 */
const countersReads = new Map<string, Promise<Array<Record<string, unknown>>>>();

/** Shard k's share of a budget of `total` page slots split over `shards`. */
export function budgetShare(total: number, shards: number, k: number): number {
  return Math.floor(total / shards) + (k < total % shards ? 1 : 0);
}

/**
 * The run ledger on the single table: the claims and counters many stateless workers share,
 * each one conditional single-item write (RUN, COUNTERS, URL, HOST and TRAP items).
 */
export abstract class DynamoLedger extends DynamoRunCounters implements RunLedger {
  abstract getHost(host: string): Promise<HostRecord | undefined>;
  abstract releaseUrl(runId: number, urlId: string, attempts?: number): Promise<void>;

  async getRun(runId: number): Promise<RunRecord | undefined> {
    const item = await this.get(keys.run(runId));
    if (!item) return undefined;
    return {
      id: item.id as number,
      startedAt: item.startedAt as number,
      finishedAt: item.finishedAt as number | undefined,
      status: item.status as RunStatus,
      seeds: item.seeds as string[],
      config: item.config as Record<string, unknown>,
      ...scopeOf(item),
      ...(item.idleSince !== undefined ? { idleSince: Number(item.idleSince) } : {}),
      ...(item.pagesFullAt !== undefined ? { pagesFullAt: Number(item.pagesFullAt) } : {}),
    };
  }

  async markPagesFull(runId: number, at: number): Promise<void> {
    await this.doc.send(
      new UpdateCommand({
        TableName: this.table,
        Key: keys.run(runId),
        UpdateExpression: 'SET pagesFullAt = :at',
        ConditionExpression: 'attribute_exists(PK)',
        ExpressionAttributeValues: { ':at': at },
      }),
    );
  }

  async markRunIdle(runId: number, at: number): Promise<void> {
    await this.doc.send(
      new UpdateCommand({
        TableName: this.table,
        Key: keys.run(runId),
        UpdateExpression: 'SET idleSince = if_not_exists(idleSince, :at)',
        ConditionExpression: 'attribute_exists(PK)',
        ExpressionAttributeValues: { ':at': at },
      }),
    );
  }

  async runProgress(runId: number): Promise<RunProgress | undefined> {
    const [run, first] = await Promise.all([this.get(keys.run(runId)), this.runCounters(runId)]);
    if (!run || !first) return undefined;
    // The shards are read at once, not as one snapshot: a commit landing between two shards' reads
    // could show URLs settled whose enqueueing is not yet counted. A commit counts its new URLs
    // before they are sent, so a second read sees them: a run looks drained only when both do.
    const drained = (c: Record<string, unknown>) => Number(c.settled) >= Number(c.enqueued);
    const c = drained(first) ? ((await this.runCounters(runId)) ?? first) : first;
    return {
      status: run.status as RunStatus,
      enqueued: Number(c.enqueued),
      settled: Number(c.settled),
      pages: Number(c.pages),
      startedAt: Number(run.startedAt),
    };
  }

  /**
   * Takes one page slot of the run's budget; false when the budget is spent. The budget is split
   * over the counter shards (shard k holds its share of `maxPages`): a claim tries a random shard,
   * then the next ones. A failed conditional write costs a write unit, so a shard found spent is
   * not tried again by this process; once every shard was found spent, their counters are read (a
   * tenth of the cost) and only a shard with a slot given back is tried. A run's end so costs a
   * process each spent shard once, not every claim the shards it walks past.
   */
  async claimPageSlot(runId: number, maxPages: number): Promise<boolean> {
    const shards = await this.shardsOf(runId);
    const spent = spentShards(this.table, runId);
    const start = randomShard(shards);
    const share = Array.from({ length: shards }, (_, k) => budgetShare(maxPages, shards, k));
    const order = Array.from({ length: shards }, (_, i) => (start + i) % shards).filter((k) => share[k]! > 0);
    let tries = order.filter((k) => !spent.has(k));
    if (tries.length === 0) {
      const readKey = `${this.table}\n${runId}`;
      let read = countersReads.get(readKey);
      if (!read) {
        read = this.batchGet(
          [...order].sort((a, b) => a - b).map((k) => keys.runCounters(runId, shards, k)),
          ['PK', 'pages'],
        ).finally(() => countersReads.delete(readKey));
        countersReads.set(readKey, read);
      }
      const counters = await read;
      const taken = new Map(counters.map((c) => [String(c.PK), Number(c.pages ?? 0)]));
      tries = order.filter((k) => (taken.get(keys.runCounters(runId, shards, k).PK) ?? 0) < share[k]!);
    }
    // The slot's update carries the moves of the claims deferred until now (given back if no slot is had).
    const carried = this.takeMoves(runId);
    try {
      for (const k of tries) {
        if (await this.conditionalAdd(keys.runCounters(runId, shards, k), 'pages', 1, share[k]!, carried)) {
          spent.delete(k);
          return true;
        }
        spent.add(k);
      }
    } catch (err) {
      this.deferMoves(runId, carried);
      throw err;
    }
    this.deferMoves(runId, carried);
    return false;
  }

  async releasePageSlot(runId: number): Promise<void> {
    const shards = await this.shardsOf(runId);
    const start = randomShard(shards);
    for (let i = 0; i < shards; i++) {
      try {
        await this.doc.send(
          new UpdateCommand({
            TableName: this.table,
            Key: keys.runCounters(runId, shards, (start + i) % shards),
            UpdateExpression: 'ADD pages :minus',
            ConditionExpression: 'pages > :zero',
            ExpressionAttributeValues: { ':minus': -1, ':zero': 0 },
          }),
        );
        return;
      } catch (err) {
        if (!isConditionFailure(err)) throw err;
      }
    }
  }

  /** Takes one of a host's page slots in a run (max pages per host); false when they are spent. */
  async claimHostSlot(runId: number, host: string, maxPerHost: number): Promise<boolean> {
    return this.conditionalAdd(keys.runHost(runId, host, await this.shardsOf(runId)), 'fetched', 1, maxPerHost);
  }

  async releaseHostSlot(runId: number, host: string): Promise<void> {
    await this.conditionalAdd(keys.runHost(runId, host, await this.shardsOf(runId)), 'fetched', -1);
  }

  async rememberVariant(runId: number, key: string, value: string, limit: number): Promise<boolean> {
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.table,
          Key: keys.trap(runId, key, await this.shardsOf(runId)),
          UpdateExpression: 'ADD #seen :v',
          ConditionExpression: 'attribute_not_exists(#seen) OR contains(#seen, :one) OR size(#seen) < :limit',
          ExpressionAttributeNames: { '#seen': 'seen' },
          ExpressionAttributeValues: { ':v': new Set([value]), ':one': value, ':limit': limit },
        }),
      );
      return true;
    } catch (err) {
      if (isConditionFailure(err)) return false;
      throw err;
    }
  }

  async getUrl(runId: number, urlId: string): Promise<FrontierRow | undefined> {
    return recordOf<FrontierRow>(await this.get(keys.frontier(runId, urlId, await this.shardsOf(runId))));
  }

  /**
   * Claims a queued URL for fetching (or one whose earlier claim lapsed); undefined when it is not
   * fetchable now. With `deferCounts`, the state move waits for the run's next page slot or counter
   * update (see `pendingMoves`); the caller flushes what is left when its step ends.
   */
  async claimUrl(runId: number, urlId: string, now: number, leaseMs: number, deferCounts = false): Promise<FrontierRow | undefined> {
    try {
      const res = await this.doc.send(
        new UpdateCommand({
          TableName: this.table,
          Key: keys.frontier(runId, urlId, await this.shardsOf(runId)),
          // Out of its host's queue (the frontier index) while it is fetched.
          UpdateExpression: 'SET #st = :inflight, leaseUntil = :lease REMOVE #qpk, #qsk',
          ConditionExpression: 'attribute_exists(PK) AND (#st = :queued OR (#st = :inflight AND leaseUntil < :now))',
          ExpressionAttributeNames: { '#st': 'state', '#qpk': FRONTIER_INDEX.pk, '#qsk': FRONTIER_INDEX.sk },
          ExpressionAttributeValues: { ':inflight': 'in_flight', ':queued': 'queued', ':now': now, ':lease': now + leaseMs },
          ReturnValues: 'ALL_OLD',
        }),
      );
      const { leaseUntil: _lease, ...before } = recordOf<FrontierRow & { leaseUntil?: number }>(res.Attributes)!;
      const moves = stateMoves(before, { state: 'in_flight', reason: before.reason });
      if (deferCounts) this.deferMoves(runId, moves);
      else await this.addCounters(runId, moves);
      return { ...before, state: 'in_flight' };
    } catch (err) {
      if (isConditionFailure(err)) return undefined;
      throw err;
    }
  }

  async putHostState(state: HostState): Promise<void> {
    await this.doc.send(
      new UpdateCommand({
        TableName: this.table,
        Key: keys.host(state.host),
        UpdateExpression: 'SET #type = :t, #host = :h, #state = :s, readyAt = :ready',
        ExpressionAttributeNames: { '#type': 'type', '#host': 'host', '#state': 'state' },
        ExpressionAttributeValues: { ':t': 'HOST', ':h': state.host, ':s': state, ':ready': readyAtOf(state) },
      }),
    );
  }

  /**
   * Claims the right to send the next request to a host: succeeds only when its next allowed time
   * and back-off have passed and no other worker holds the lease. The politeness gate of the cloud.
   */
  async claimHost(host: string, owner: string, now: number, leaseMs: number): Promise<HostClaim> {
    // Looked at first: a host another worker holds, or that is waiting out its delay, is answered
    // by a read (half a write unit's price) instead of a write whose condition fails.
    const seen = await this.get(keys.host(host));
    if (seen && (Number(seen.leaseUntil ?? 0) >= now || Number(seen.readyAt ?? 0) > now)) return unclaimed(seen, now);
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.table,
          Key: keys.host(host),
          UpdateExpression: 'SET #type = :t, #host = :h, leaseUntil = :lease, leaseOwner = :owner',
          ConditionExpression: '(attribute_not_exists(leaseUntil) OR leaseUntil < :now) AND (attribute_not_exists(readyAt) OR readyAt <= :now)',
          ExpressionAttributeNames: { '#type': 'type', '#host': 'host' },
          ExpressionAttributeValues: { ':t': 'HOST', ':h': host, ':lease': now + leaseMs, ':owner': owner, ':now': now },
        }),
      );
    } catch (err) {
      if (!isConditionFailure(err)) throw err;
      return unclaimed(await this.get(keys.host(host)), now);
    }
    const record = await this.getHost(host);
    return { claimed: true, record: record ?? { host, state: newHostState(host) } };
  }

  /** Saves the host's state after a request and gives the lease back. */
  async releaseHost(state: HostState, owner: string): Promise<void> {
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.table,
          Key: keys.host(state.host),
          UpdateExpression: 'SET #state = :s, readyAt = :ready REMOVE leaseUntil, leaseOwner',
          ConditionExpression: 'leaseOwner = :owner',
          ExpressionAttributeNames: { '#state': 'state' },
          ExpressionAttributeValues: { ':s': state, ':ready': readyAtOf(state), ':owner': owner },
        }),
      );
    } catch (err) {
      // The lease lapsed and another worker holds the host now: its state wins, ours is stale.
      if (!isConditionFailure(err)) throw err;
    }
  }
}

function readyAtOf(state: HostState): number {
  return Math.max(state.nextAllowedAt, state.backoffUntil);
}
