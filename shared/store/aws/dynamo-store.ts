import { PutCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import {
  ROBOTS_REFUSAL,
  SETTLED_STATES,
  type BlobStore,
  type CrawlStore,
  type FetchCommit,
  type CountedRequest,
  type FetchRecord,
  type FrontierRow,
  type QueueClosing,
  type SeenUrl,
  type UrlState,
  type UrlReason,
} from '../../ports/index.js';
import { fetchItem, queueEntry, recordOf, type RunLayout } from './dynamo-items.js';
import { latencyCounters, minuteCounters } from './dynamo-activity.js';
import { DynamoRuns } from './dynamo-runs.js';
import { STATE_COUNTER, stateMoves } from './dynamo-run-counters.js';
import { settledRow, type SettledView } from './settled-view.js';
import { stateUpdate, type StateFields } from './url-state-update.js';
import { DynamoChanges } from './dynamo-changes.js';
import { inBatches, isConditionFailure } from './dynamo-table.js';
import { DEFAULT_FETCH_RETENTION_DAYS, FRONTIER_INDEX, INLINKS_INDEX, TTL_ATTRIBUTE, URL_SK, keys } from './table-layout.js';
import { urlId as urlIdOf } from '../../url/canonical.js';

export interface DynamoStoreOptions {
  /** Days a frontier item (and a run's minute of activity) lives after it is written (DynamoDB TTL). */
  frontierRetentionDays?: number;
  /**
   * Days a fetch record lives after its fetch (DynamoDB TTL): a page's history keeps this long; the
   * WARC records in S3 keep the captures themselves. Pages, extracts and links stay.
   */
  fetchRetentionDays?: number;
  /** Where texts too large for an item (long markdown, huge robots.txt) are kept. */
  blobs: BlobStore;
}

/**
 * The cloud CrawlStore: one DynamoDB table (layout in `table-layout.ts`). No transactions: every write
 * is a single-item (often conditional) operation, ordered so that a crash at any point leaves
 * data a redelivery completes, and counters move only when a conditional write succeeded.
 */
export class DynamoCrawlStore extends DynamoRuns implements CrawlStore {
  private readonly retentionSeconds: number;
  private readonly fetchRetentionSeconds: number;

  constructor(
    doc: DynamoDBDocumentClient,
    table: string,
    private readonly options: DynamoStoreOptions,
  ) {
    super(doc, table, options.blobs);
    this.retentionSeconds = (options.frontierRetentionDays ?? 90) * 86_400;
    this.fetchRetentionSeconds = (options.fetchRetentionDays ?? DEFAULT_FETCH_RETENTION_DAYS) * 86_400;
    this.changes = new DynamoChanges(doc, table, options.blobs);
  }

  /** Changes between runs, captured as fetches commit. */
  readonly changes: DynamoChanges;

  async addUrls(rows: FrontierRow[]): Promise<string[]> {
    return this.addFrontier(rows, false, Math.floor(Date.now() / 1000) + this.retentionSeconds);
  }

  async markInFlight(runId: number, urlId: string): Promise<void> {
    const res = await this.doc.send(
      new UpdateCommand({
        TableName: this.table,
        Key: keys.frontier(runId, urlId, await this.shardsOf(runId)),
        UpdateExpression: 'SET #st = :st REMOVE #qpk, #qsk ADD attempts :one',
        ConditionExpression: 'attribute_exists(PK)',
        ExpressionAttributeNames: { '#st': 'state', '#qpk': FRONTIER_INDEX.pk, '#qsk': FRONTIER_INDEX.sk },
        ExpressionAttributeValues: { ':st': 'in_flight', ':one': 1 },
        ReturnValues: 'ALL_OLD',
      }),
    );
    await this.addCounters(runId, stateMoves(res.Attributes, { state: 'in_flight', reason: res.Attributes?.reason }));
  }

  /** Sets a URL's state; true when it moved from a pending state to a final one (the run's settled count). */
  private async setState(runId: number, urlId: string, fields: StateFields): Promise<boolean> {
    const layout = await this.layoutOf(runId);
    const shards = layout.shards;
    const { expression, names, values, removeReason } = stateUpdate(runId, urlId, shards, fields);
    try {
      const res = await this.doc.send(
        new UpdateCommand({
          TableName: this.table,
          Key: keys.frontier(runId, urlId, shards),
          UpdateExpression: expression,
          // `done` is final in a run: a late failure (a step after Extract, a redelivered message) never undoes it.
          ConditionExpression: fields.state === 'done' ? 'attribute_exists(PK)' : 'attribute_exists(PK) AND #st <> :done',
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: fields.state === 'done' ? values : { ...values, ':done': 'done' },
          ReturnValues: 'ALL_OLD',
        }),
      );
      // The run's settled count: URLs that reached a state the run can end with (final, or deferred to a later run).
      const before = res.Attributes;
      const settled = !SETTLED_STATES.has(String(before?.state)) && SETTLED_STATES.has(fields.state);
      const unsettled = SETTLED_STATES.has(String(before?.state)) && !SETTLED_STATES.has(fields.state);
      const reason = fields.reason ?? (removeReason ? undefined : before?.reason);
      if (fields.state === 'queued' && before?.state !== 'queued' && before) await this.rejoinQueue(runId, layout, before);
      await this.addCounters(runId, {
        ...stateMoves(before, { state: fields.state, reason }),
        ...(settled ? { settled: 1 } : unsettled ? { settled: -1 } : {}),
      });
      if (fields.reason === 'host-parked' && typeof before?.host === 'string') await this.rememberParked(runId, before.host);
      return settled;
    } catch (err) {
      if (isConditionFailure(err)) return false;
      throw err;
    }
  }

  /** A URL queued again (a retry, a lapsed claim) takes its place in its host's queue, unless it moved on meanwhile. */
  private async rejoinQueue(runId: number, layout: RunLayout, item: Record<string, unknown>): Promise<void> {
    const row = recordOf<FrontierRow>(item)!;
    const entry = queueEntry({ ...row, runId }, layout.queueParts);
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.table,
          Key: keys.frontier(runId, row.urlId, layout.shards),
          UpdateExpression: 'SET #qpk = :qpk, #qsk = :qsk',
          ConditionExpression: '#st = :queued',
          ExpressionAttributeNames: { '#qpk': FRONTIER_INDEX.pk, '#qsk': FRONTIER_INDEX.sk, '#st': 'state' },
          ExpressionAttributeValues: { ':qpk': entry[FRONTIER_INDEX.pk], ':qsk': entry[FRONTIER_INDEX.sk], ':queued': 'queued' },
        }),
      );
    } catch (err) {
      if (!isConditionFailure(err)) throw err;
    }
  }

  async releaseUrl(runId: number, urlId: string, attempts?: number): Promise<void> {
    await this.setState(runId, urlId, { state: 'queued', clearReason: true, ...(attempts !== undefined ? { attempts, notBefore: 0 } : {}) });
  }

  async setUrlStates(runId: number, urlIds: string[], state: UrlState, reason: UrlReason, notBefore?: number): Promise<void> {
    await inBatches(urlIds, 16, (id) => this.setState(runId, id, { state, reason, notBefore }));
  }

  async requeueInFlight(runId: number, maxAttempts: number): Promise<{ requeued: number; exhausted: number }> {
    const pending = await this.runItems(runId, URL_SK, {
      expr: '#st IN (:f, :d)',
      names: { '#st': 'state' },
      values: { ':f': 'in_flight', ':d': 'deferred' },
    });
    let exhausted = 0;
    await inBatches(pending, 16, (item) => {
      if (item.state === 'in_flight' && Number(item.attempts ?? 0) >= maxAttempts) {
        exhausted++;
        return this.setState(runId, String(item.urlId), { state: 'failed', reason: 'attempts-exhausted' });
      }
      return this.setState(runId, String(item.urlId), { state: 'queued', clearReason: true });
    });
    return { requeued: pending.length - exhausted, exhausted };
  }

  async lapsedUrls(runId: number, now: number): Promise<FrontierRow[]> {
    const items = await this.runItems(runId, URL_SK, {
      expr: '#st = :f AND leaseUntil < :now',
      names: { '#st': 'state' },
      values: { ':f': 'in_flight', ':now': now },
    });
    return items.map((i) => {
      const { leaseUntil: _lease, ...row } = recordOf<FrontierRow & { leaseUntil?: number }>(i)!;
      return row;
    });
  }

  /**
   * Settles the run's queued URLs at its end in its counters alone (one write, however many): their
   * items stay `queued`, and every read shows them skipped with the reason the RUN item records.
   */
  async settleQueued(runId: number, reason: UrlReason): Promise<number> {
    const counters = await this.runCounters(runId);
    const queued = Math.max(0, Number(counters?.[`${STATE_COUNTER}queued`] ?? 0));
    await this.doc.send(
      new UpdateCommand({
        TableName: this.table,
        Key: keys.run(runId),
        UpdateExpression: 'SET settledAs = if_not_exists(settledAs, :r)',
        ConditionExpression: 'attribute_exists(PK)',
        ExpressionAttributeValues: { ':r': reason },
      }),
    );
    if (queued > 0) {
      const moves = stateMoves({ state: 'queued' }, { state: 'skipped', reason });
      await this.addCounters(runId, { ...Object.fromEntries(Object.entries(moves).map(([k, v]) => [k, v * queued])), settled: queued });
    }
    return queued;
  }

  /** How the run's settlement shows its still-queued URL items: closed host queues, and the run's end. */
  private async settledView(runId: number, host?: string): Promise<SettledView> {
    const run = await this.get(keys.run(runId));
    const hosts = host
      ? [await this.get(keys.runHost(runId, host, await this.shardsOf(runId)))].filter((i) => i?.closed)
      : await this.runItems(runId, 'HOST#', { expr: 'attribute_exists(closed)' });
    return {
      ...(run?.settledAs ? { runSettle: run.settledAs as UrlReason } : {}),
      closed: new Map(hosts.map((i) => [String(i!.host), i!.closed as QueueClosing])),
    };
  }

  override async getUrl(runId: number, urlId: string): Promise<FrontierRow | undefined> {
    const row = await super.getUrl(runId, urlId);
    return row?.state === 'queued' ? settledRow(row, await this.settledView(runId, row.host)) : row;
  }

  /**
   * Every URL of the run's frontier with its state as the run's end settles it: the URL items, and
   * the URLs of batches still waiting (a URL waiting in a batch that has an item of its own is that item).
   */
  private async frontierRows(runId: number): Promise<FrontierRow[]> {
    const view = await this.settledView(runId);
    const items = (await this.runItems(runId, URL_SK)).map((i) => recordOf<FrontierRow>(i)!);
    const waiting = await this.waitingUrls(runId, new Set(items.map((r) => r.urlId)));
    return [...items, ...waiting].map((r) => settledRow(r, view));
  }

  private async urlsIn(runId: number, state: UrlState): Promise<FrontierRow[]> {
    return (await this.frontierRows(runId)).filter((r) => r.state === state);
  }

  async queuedUrls(runId: number): Promise<FrontierRow[]> {
    return this.urlsIn(runId, 'queued');
  }

  async deferredUrls(runId: number): Promise<FrontierRow[]> {
    return this.urlsIn(runId, 'deferred');
  }

  async seenUrls(runId: number): Promise<SeenUrl[]> {
    return (await this.frontierRows(runId)).map(({ urlId, url, kind, state, reason }) => ({ urlId, url, kind, state, reason }));
  }

  async commitFetch(c: FetchCommit): Promise<string[]> {
    return this.countingOnce(() => this.commitOne(c));
  }

  private async commitOne(c: FetchCommit): Promise<string[]> {
    // What the fetch changed since the run before, read before the writes below replace the page.
    await this.changes.capture(c, { page: () => this.getPage(c.urlId), extract: () => this.getExtract(c.urlId) });
    // Content first, frontier state last: a crash in between is redone by the redelivered message.
    // Everything before the state is independent items, each write idempotent: written at once (a
    // Lambda billed by the millisecond waits for one round trip, not ten; the cloud bench's meter).
    const [inserted] = await Promise.all([
      this.addFrontier(c.discovered ?? [], true, Math.floor(Date.now() / 1000) + this.retentionSeconds),
      c.fetch ? this.recordFetch(c.fetch, !c.fetchCounted) : undefined,
      c.rendered ? this.recordFetch(c.rendered) : undefined,
      // Aliases are also indexed by their target (inlinks index, `ALIAS#<targetId>`), so links to an alias count as inlinks of its target.
      ...(c.aliases ?? []).map((a) =>
        this.doc.send(
          new PutCommand({
            TableName: this.table,
            Item: { ...keys.alias(a.urlId), type: 'ALIAS', ...a, [INLINKS_INDEX.pk]: `ALIAS#${urlIdOf(a.targetUrl)}`, [INLINKS_INDEX.sk]: a.urlId },
          }),
        ),
      ),
      c.page ? this.putPage(c.page) : undefined,
      this.putLinks(c.edges ?? []),
      c.extract ? this.writeExtraction(c.extract, c.chunks ?? []) : undefined,
      this.reprioritize(c),
    ]);
    await this.setState(c.runId, c.urlId, { state: c.state, reason: c.reason, attempts: c.attempts, notBefore: c.notBefore });
    return inserted;
  }

  /** New priorities and inlink counts of URLs still queued (a URL past `queued` keeps its own). */
  private async reprioritize(c: FetchCommit): Promise<void> {
    const shards = await this.shardsOf(c.runId);
    await inBatches(c.reprioritized ?? [], 16, async (r) => {
      try {
        await this.doc.send(
          new UpdateCommand({
            TableName: this.table,
            Key: keys.frontier(c.runId, r.urlId, shards),
            UpdateExpression: 'SET priority = :p, inlinks = :n',
            ConditionExpression: '#st = :q',
            ExpressionAttributeNames: { '#st': 'state' },
            ExpressionAttributeValues: { ':p': r.priority, ':n': r.inlinks, ':q': 'queued' },
          }),
        );
      } catch (err) {
        if (!isConditionFailure(err)) throw err;
      }
    });
  }

  async commitFetches(commits: FetchCommit[]): Promise<string[][]> {
    // DynamoDB has no transactions here (dynalite lacks them): one commit after the other, each idempotent.
    const out: string[][] = [];
    for (const c of commits) out.push(await this.commitFetch(c));
    return out;
  }

  /** Stores a fetch's record (once) and counts it in the run's counters and, unless `countRequest` is false, its activity. */
  async recordFetch(record: FetchRecord, countRequest = true): Promise<void> {
    // Counted once: a redelivered commit writes the same key and the condition stops it.
    if (!(await this.putIfAbsent(fetchItem(record, Math.floor(record.fetchedAt / 1000) + this.fetchRetentionSeconds)))) return;
    if (record.error === ROBOTS_REFUSAL) return;
    // The latency histogram rides on the counters' update; the minute's requests go to that minute's own item.
    await this.addCounters(
      record.runId,
      { requests: 1, bytes: record.bytes, unchanged: record.notModified ? 1 : 0, ...latencyCounters(record) },
      record.status === undefined ? 'error' : String(record.status),
    );
    if (countRequest) await this.countRequests([record]);
  }

  /** Adds requests to their run's activity series: one update a run and minute, whatever their number. */
  async countRequests(requests: CountedRequest[]): Promise<void> {
    const byMinute = new Map<string, { runId: number; minute: number; requests: number; ok: number; unchanged: number }>();
    for (const r of requests) {
      const m = minuteCounters(r);
      const key = `${r.runId}\n${m.minute}`;
      const sum = byMinute.get(key) ?? { runId: r.runId, minute: m.minute, requests: 0, ok: 0, unchanged: 0 };
      sum.requests += m.requests;
      sum.ok += m.ok;
      sum.unchanged += m.unchanged;
      byMinute.set(key, sum);
    }
    for (const m of byMinute.values()) {
      // The minute's item of a random shard: a run's requests a minute spread over its shards.
      const shards = await this.shardsOf(m.runId);
      await this.doc.send(
        new UpdateCommand({
          TableName: this.table,
          Key: keys.runMinute(m.runId, m.minute, shards, Math.floor(Math.random() * shards)),
          UpdateExpression: `SET #t = :t, #exp = if_not_exists(#exp, :exp) ADD requests :r, ok :o${m.unchanged ? ', unchanged :u' : ''}`,
          ExpressionAttributeNames: { '#t': 'type', '#exp': TTL_ATTRIBUTE },
          ExpressionAttributeValues: {
            ':t': 'ACTIVITY',
            ':r': m.requests,
            ':o': m.ok,
            ...(m.unchanged ? { ':u': m.unchanged } : {}),
            ':exp': Math.floor(Date.now() / 1000) + this.retentionSeconds,
          },
        }),
      );
    }
  }

  async close(): Promise<void> {}
}
