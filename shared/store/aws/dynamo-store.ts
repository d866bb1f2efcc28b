import { PutCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { hammingDistance, simhashBands } from '../../dedupe/simhash.js';
import { newHostState, type HostState } from '../../politeness/host-state.js';
import {
  FINAL_STATES,
  ROBOTS_REFUSAL,
  SETTLED_STATES,
  SOFT_SKIPS,
  type BlobStore,
  type ChunkRecord,
  type CrawlStore,
  type EdgeRecord,
  type ExtractRecord,
  type FetchCommit,
  type FetchRecord,
  type FrontierRow,
  type HostRecord,
  type PageRecord,
  type RunRecord,
  type RunStatus,
  type RunSummary,
  type SeenUrl,
  type UrlState,
} from '../ports/index.js';
import { bandKeys, chunkItem, edgeItem, extractItem, fetchItem, frontierItem, INDEX_NAMES, pageItem, recordOf, type Item } from './dynamo-items.js';
import { DynamoLedger } from './dynamo-ledger.js';
import { inBatches, isConditionFailure } from './dynamo-table.js';
import { BANDS_INDEX, INLINKS_INDEX, keys } from './table.js';
import { urlId as urlIdOf } from '../../url/canonical.js';

/** Text fields longer than this go to the blob store (DynamoDB items stop at 400 KB). */
const SPILL_BYTES = 100_000;

export interface DynamoStoreOptions {
  /** Days a frontier item lives after it is written (DynamoDB TTL); pages, edges and fetches stay. */
  frontierRetentionDays?: number;
  /** Where texts too large for an item (long markdown, huge robots.txt) are kept. */
  blobs: BlobStore;
}

/**
 * The cloud CrawlStore: one DynamoDB table (layout in `table.ts`). No transactions: every write
 * is a single-item (often conditional) operation, ordered so that a crash at any point leaves
 * data a redelivery completes, and counters move only when a conditional write succeeded.
 */
export class DynamoCrawlStore extends DynamoLedger implements CrawlStore {
  private readonly retentionSeconds: number;

  constructor(
    doc: DynamoDBDocumentClient,
    table: string,
    private readonly options: DynamoStoreOptions,
  ) {
    super(doc, table);
    this.retentionSeconds = (options.frontierRetentionDays ?? 90) * 86_400;
  }

  private async spill(text: string | undefined): Promise<{ text?: string; blob?: string }> {
    if (text === undefined || Buffer.byteLength(text) <= SPILL_BYTES) return { text };
    return { blob: await this.options.blobs.put(Buffer.from(text)) };
  }

  private async unspill(text: unknown, blob: unknown): Promise<string | undefined> {
    if (typeof blob !== 'string') return text as string | undefined;
    const bytes = await this.options.blobs.get(blob);
    if (!bytes) throw new Error(`stored text ${blob} is missing from the blob store: restore the raw/ objects of the bucket`);
    return bytes.toString();
  }

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

  async addUrls(rows: FrontierRow[]): Promise<string[]> {
    const expiresAt = Math.floor(Date.now() / 1000) + this.retentionSeconds;
    const inserted: string[] = [];
    const enqueued = new Map<number, number>();
    await inBatches(rows, 16, async (row) => {
      // A URL skipped for a reason that depends on the path to it is queued when a better path appears.
      const soft =
        row.state === 'queued'
          ? {
              expr: '#st = :skipped AND #r IN (:soft0, :soft1)',
              names: { '#st': 'state', '#r': 'reason' },
              values: { ':skipped': 'skipped', ':soft0': SOFT_SKIPS[0], ':soft1': SOFT_SKIPS[1] },
            }
          : undefined;
      if (await this.putIfAbsent(frontierItem(row, expiresAt), soft)) {
        inserted.push(row.urlId);
        if (row.state === 'queued') enqueued.set(row.runId, (enqueued.get(row.runId) ?? 0) + 1);
        else if (FINAL_STATES.has(row.state)) {
          enqueued.set(row.runId, (enqueued.get(row.runId) ?? 0) + 1);
          await this.addCounters(row.runId, { settled: 1 });
        }
      }
    });
    for (const [runId, n] of enqueued) await this.addCounters(runId, { enqueued: n });
    return rows.filter((r) => inserted.includes(r.urlId)).map((r) => r.urlId);
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
      }))
      .sort((a, b) => a.id - b.id);
  }

  async chunks(urlId: string): Promise<ChunkRecord[]> {
    return (await this.partition(`URL#${urlId}`, 'CHUNK#')).map((i) => recordOf<ChunkRecord>(i)!);
  }

  async markInFlight(runId: number, urlId: string): Promise<void> {
    await this.doc.send(
      new UpdateCommand({
        TableName: this.table,
        Key: keys.frontier(runId, urlId),
        UpdateExpression: 'SET #st = :st ADD attempts :one',
        ConditionExpression: 'attribute_exists(PK)',
        ExpressionAttributeNames: { '#st': 'state' },
        ExpressionAttributeValues: { ':st': 'in_flight', ':one': 1 },
      }),
    );
  }

  /** Sets a URL's state; true when it moved from a pending state to a final one (the run's settled count). */
  private async setState(
    runId: number,
    urlId: string,
    fields: { state: UrlState; reason?: string; attempts?: number; notBefore?: number; clearReason?: boolean },
  ): Promise<boolean> {
    const sets = ['#st = :st'];
    const values: Record<string, unknown> = { ':st': fields.state };
    if (fields.reason !== undefined) {
      sets.push('#r = :r');
      values[':r'] = fields.reason;
    }
    if (fields.attempts !== undefined) {
      sets.push('attempts = :a', 'notBefore = :nb');
      values[':a'] = fields.attempts;
      values[':nb'] = fields.notBefore ?? 0;
    } else if (fields.notBefore !== undefined) {
      sets.push('notBefore = :nb');
      values[':nb'] = fields.notBefore;
    }
    const removeReason = fields.reason === undefined && (FINAL_STATES.has(fields.state) || fields.clearReason);
    try {
      const res = await this.doc.send(
        new UpdateCommand({
          TableName: this.table,
          Key: keys.frontier(runId, urlId),
          UpdateExpression: `SET ${sets.join(', ')}${removeReason ? ' REMOVE #r' : ''}`,
          ConditionExpression: 'attribute_exists(PK)',
          ExpressionAttributeNames: fields.reason !== undefined || removeReason ? { '#st': 'state', '#r': 'reason' } : { '#st': 'state' },
          ExpressionAttributeValues: values,
          ReturnValues: 'ALL_OLD',
        }),
      );
      // The run's settled count: URLs that reached a state the run can end with (final, or deferred to a later run).
      const settled = !SETTLED_STATES.has(String(res.Attributes?.state)) && SETTLED_STATES.has(fields.state);
      if (SETTLED_STATES.has(String(res.Attributes?.state)) && !SETTLED_STATES.has(fields.state)) await this.addCounters(runId, { settled: -1 });
      if (settled) await this.addCounters(runId, { settled: 1 });
      return settled;
    } catch (err) {
      if (isConditionFailure(err)) return false;
      throw err;
    }
  }

  async setUrlStates(runId: number, urlIds: string[], state: UrlState, reason: string, notBefore?: number): Promise<void> {
    await inBatches(urlIds, 16, (id) => this.setState(runId, id, { state, reason, notBefore }));
  }

  async requeueInFlight(runId: number, maxAttempts: number): Promise<{ requeued: number; exhausted: number }> {
    const pending = await this.partition(`RUN#${runId}`, 'URL#', {
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

  async settleQueued(runId: number, reason: string): Promise<number> {
    const queued = await this.urlsIn(runId, 'queued');
    await inBatches(queued, 16, (row) => this.setState(runId, row.urlId, { state: 'skipped', reason }));
    return queued.length;
  }

  private async urlsIn(runId: number, state: UrlState): Promise<FrontierRow[]> {
    const items = await this.partition(`RUN#${runId}`, 'URL#', { expr: '#st = :s', names: { '#st': 'state' }, values: { ':s': state } });
    return items.map((i) => recordOf<FrontierRow>(i)!);
  }

  async queuedUrls(runId: number): Promise<FrontierRow[]> {
    return this.urlsIn(runId, 'queued');
  }

  async deferredUrls(runId: number): Promise<FrontierRow[]> {
    return this.urlsIn(runId, 'deferred');
  }

  async seenUrls(runId: number): Promise<SeenUrl[]> {
    return (await this.partition(`RUN#${runId}`, 'URL#')).map((i) => ({
      urlId: String(i.urlId),
      url: String(i.url),
      kind: i.kind as SeenUrl['kind'],
      state: i.state as UrlState,
      reason: i.reason as string | undefined,
    }));
  }

  async commitFetch(c: FetchCommit): Promise<string[]> {
    // Content first, frontier state last: a crash in between is redone by the redelivered message.
    if (c.fetch) await this.recordFetch(c.fetch);
    // Aliases are also indexed by their target (inlinks index, `ALIAS#<targetId>`), so links to an alias count as inlinks of its target.
    for (const a of c.aliases ?? []) {
      await this.doc.send(
        new PutCommand({
          TableName: this.table,
          Item: { ...keys.alias(a.urlId), type: 'ALIAS', ...a, [INLINKS_INDEX.pk]: `ALIAS#${urlIdOf(a.targetUrl)}`, [INLINKS_INDEX.sk]: a.urlId },
        }),
      );
    }
    if (c.page) await this.putPage(c.page);
    await this.batchWrite((c.edges ?? []).map(edgeItem));
    if (c.extract) await this.writeExtraction(c.extract, c.chunks ?? []);
    await inBatches(c.reprioritized ?? [], 16, async (r) => {
      try {
        await this.doc.send(
          new UpdateCommand({
            TableName: this.table,
            Key: keys.frontier(c.runId, r.urlId),
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
    const inserted = await this.addUrls(c.discovered ?? []);
    await this.setState(c.runId, c.urlId, { state: c.state, reason: c.reason, attempts: c.attempts, notBefore: c.notBefore });
    return inserted;
  }

  async recordFetch(record: FetchRecord): Promise<void> {
    // Counted once: a redelivered commit writes the same key and the condition stops it.
    if (!(await this.putIfAbsent(fetchItem(record)))) return;
    if (record.error === ROBOTS_REFUSAL) return;
    await this.addCounters(
      record.runId,
      { requests: 1, bytes: record.bytes, unchanged: record.notModified ? 1 : 0 },
      record.status === undefined ? 'error' : String(record.status),
    );
  }

  private async putPage(p: PageRecord): Promise<void> {
    const res = await this.doc.send(new PutCommand({ TableName: this.table, Item: pageItem(p), ReturnValues: 'ALL_OLD' }));
    if (res.Attributes?.runId !== p.runId) await this.addCounters(p.runId, { pagesStored: 1, duplicates: p.duplicateOf ? 1 : 0 });
  }

  private async writeExtraction(x: ExtractRecord, chunks: ChunkRecord[]): Promise<void> {
    const previous = await this.get(keys.extract(x.urlId));
    const { text, blob } = await this.spill(x.markdown);
    const item = extractItem({ ...x, markdown: text ?? '' }, chunks.length);
    if (blob) item.markdownBlob = blob;
    await this.doc.send(new PutCommand({ TableName: this.table, Item: item }));
    if (!x.textDuplicateOf) await this.putIfAbsent({ ...keys.text(x.textHash), type: 'TEXT', urlId: x.urlId });
    const stale = Array.from({ length: Math.max(0, Number(previous?.chunkCount ?? 0) - chunks.length) }, (_, i) => keys.chunk(x.urlId, chunks.length + i));
    await this.batchWrite(chunks.map(chunkItem), stale);
    const now = Date.now();
    await Promise.all(
      simhashBands(x.simhash).map((value, band) => {
        const k = bandKeys(x.urlId, band, value, now);
        return this.doc.send(
          new UpdateCommand({
            TableName: this.table,
            Key: keys.band(x.urlId, band),
            UpdateExpression: `SET #type = :t, urlId = :u, #gpk = :pk, #gsk = if_not_exists(#gsk, :sk), simhash = :h, nearDuplicate = :nd`,
            ExpressionAttributeNames: { '#type': 'type', '#gpk': BANDS_INDEX.pk, '#gsk': BANDS_INDEX.sk },
            ExpressionAttributeValues: { ':t': 'BAND', ':u': x.urlId, ':pk': k.pk, ':sk': k.sk, ':h': x.simhash, ':nd': x.nearDuplicateOf !== undefined },
          }),
        );
      }),
    );
  }

  async fetchHistory(urlId: string): Promise<FetchRecord[]> {
    return (await this.partition(`URL#${urlId}`, 'FETCH#')).map((i) => recordOf<FetchRecord>(i)!);
  }

  async storedPages(): Promise<PageRecord[]> {
    const items = await this.scanAll({
      FilterExpression: '#type = :p AND attribute_exists(contentHash)',
      ExpressionAttributeNames: { '#type': 'type' },
      ExpressionAttributeValues: { ':p': 'PAGE' },
    });
    return items.map((i) => recordOf<PageRecord>(i)!).sort((a, b) => a.fetchedAt - b.fetchedAt);
  }

  async saveExtraction(edges: EdgeRecord[], extract: ExtractRecord | undefined, chunks: ChunkRecord[]): Promise<void> {
    await this.batchWrite(edges.map(edgeItem));
    if (extract) await this.writeExtraction(extract, chunks);
  }

  async getExtract(urlId: string): Promise<ExtractRecord | undefined> {
    const item = await this.get(keys.extract(urlId));
    if (!item) return undefined;
    const { chunkCount: _n, markdownBlob, ...x } = recordOf<ExtractRecord & { chunkCount: number; markdownBlob?: string }>(item)!;
    return { ...x, markdown: (await this.unspill(x.markdown, markdownBlob)) ?? '' };
  }

  async getPage(urlId: string): Promise<PageRecord | undefined> {
    return recordOf<PageRecord>(await this.get(keys.page(urlId)));
  }

  async claimBody(hash: string, urlId: string, at: number): Promise<string> {
    if (await this.putIfAbsent({ ...keys.body(hash), type: 'BODY', urlId, fetchedAt: at })) return urlId;
    const owner = String((await this.get(keys.body(hash)))?.urlId);
    if (owner === urlId) return owner;
    // An owner whose page has moved on to other bytes no longer holds these: the body changes hands once.
    const page = await this.getPage(owner);
    if (!page?.contentHash || page.contentHash === hash) return owner;
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.table,
          Key: keys.body(hash),
          UpdateExpression: 'SET urlId = :me, fetchedAt = :at',
          ConditionExpression: 'urlId = :old',
          ExpressionAttributeValues: { ':me': urlId, ':at': at, ':old': owner },
        }),
      );
      return urlId;
    } catch (err) {
      if (!isConditionFailure(err)) throw err;
      return String((await this.get(keys.body(hash)))?.urlId);
    }
  }

  async outlinks(urlId: string): Promise<EdgeRecord[]> {
    const page = await this.getPage(urlId);
    if (!page?.contentHash) return [];
    return (await this.partition(`URL#${urlId}`, `EDGE#${page.contentHash}#`)).map((i) => recordOf<EdgeRecord>(i)!);
  }

  async findNearDuplicate(hash: string, exceptUrlId: string, maxDistance: number): Promise<{ urlId: string; distance: number } | undefined> {
    const found = await Promise.all(
      simhashBands(hash).map((value, band) =>
        this.queryAll({
          IndexName: INDEX_NAMES.bands,
          KeyConditionExpression: '#pk = :pk',
          ExpressionAttributeNames: { '#pk': BANDS_INDEX.pk },
          ExpressionAttributeValues: { ':pk': `BAND#${band}#${value}` },
        }),
      ),
    );
    const candidates = new Map<string, Item>();
    for (const item of found.flat()) if (item.urlId !== exceptUrlId && !item.nearDuplicate) candidates.set(String(item.urlId), item);
    const ordered = [...candidates.values()].sort((a, b) => String(a[BANDS_INDEX.sk]).localeCompare(String(b[BANDS_INDEX.sk])));
    for (const c of ordered) {
      const distance = hammingDistance(hash, String(c.simhash));
      if (distance <= maxDistance) return { urlId: String(c.urlId), distance };
    }
    return undefined;
  }

  async findTextDuplicate(textHash: string, exceptUrlId: string): Promise<string | undefined> {
    const owner = await this.get(keys.text(textHash));
    if (!owner || owner.urlId === exceptUrlId) return undefined;
    const x = await this.get(keys.extract(String(owner.urlId)));
    return x?.textHash === textHash ? String(owner.urlId) : undefined;
  }

  async getHost(host: string): Promise<HostRecord | undefined> {
    const items = await this.queryAll({ KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': keys.host(host).PK }, ConsistentRead: true });
    const politeness = items.find((i) => i.SK === 'HOST');
    const robots = items.find((i) => i.SK === 'ROBOTS');
    if (!politeness?.state && !robots) return undefined;
    return {
      // A host first seen by a claim has no politeness state yet: it starts fresh.
      host,
      state: (politeness?.state as HostState | undefined) ?? newHostState(host),
      robotsStatus: robots?.robotsStatus as number | undefined,
      robotsBody: await this.unspill(robots?.robotsBody, robots?.robotsBodyBlob),
      robotsError: robots?.robotsError as string | undefined,
      robotsFetchedAt: robots?.robotsFetchedAt as number | undefined,
      robotsExpiresAt: robots?.robotsExpiresAt as number | undefined,
    };
  }

  /** Writes the host's robots.txt (replacing the stored one) and its politeness state, keeping a claim another call holds. */
  async putHost(record: HostRecord): Promise<void> {
    const { text, blob } = await this.spill(record.robotsBody);
    await this.doc.send(
      new PutCommand({
        TableName: this.table,
        Item: {
          ...keys.robots(record.host),
          type: 'ROBOTS',
          host: record.host,
          robotsStatus: record.robotsStatus,
          robotsBody: text,
          robotsBodyBlob: blob,
          robotsError: record.robotsError,
          robotsFetchedAt: record.robotsFetchedAt,
          robotsExpiresAt: record.robotsExpiresAt,
        },
      }),
    );
    await this.putHostState(record.state);
  }

  async summary(runId: number): Promise<RunSummary> {
    const [run, c] = await Promise.all([this.get(keys.run(runId)), this.get(keys.runCounters(runId))]);
    if (!run || !c) throw new Error(`run ${runId} is not in table ${this.table}: check the run id and the table name`);
    const urls = await this.partition(`RUN#${runId}`, 'URL#');
    const urlsByState: Record<string, number> = {};
    const skipsByReason: Record<string, number> = {};
    const hosts = new Set<string>();
    for (const u of urls) {
      urlsByState[String(u.state)] = (urlsByState[String(u.state)] ?? 0) + 1;
      if (['skipped', 'blocked', 'failed', 'duplicate'].includes(String(u.state)))
        skipsByReason[String(u.reason ?? 'none')] = (skipsByReason[String(u.reason ?? 'none')] ?? 0) + 1;
      hosts.add(String(u.host));
    }
    const hostItems = await this.batchGet([...hosts].map((h) => keys.host(h)));
    return {
      runId,
      status: run.status as RunStatus,
      startedAt: Number(run.startedAt),
      finishedAt: run.finishedAt as number | undefined,
      seeds: run.seeds as string[],
      urlsByState,
      skipsByReason,
      fetchesByStatus: (c.fetches ?? {}) as Record<string, number>,
      requests: Number(c.requests),
      pagesStored: Number(c.pagesStored),
      unchanged: Number(c.unchanged),
      duplicates: Number(c.duplicates),
      bytes: Number(c.bytes),
      hostsParked: hostItems
        .map((h) => ({ host: String(h.host), reason: (h.state as HostState | undefined)?.parkedReason }))
        .filter((h): h is { host: string; reason: string } => typeof h.reason === 'string'),
    };
  }

  async close(): Promise<void> {}
}
