// AWS's limits at the SDK boundary, where the emulators have none: a hook around every call the
// handlers make (the same seam as the IAM contract and the cost meter) that answers as AWS does
// when a limit is passed, after the SDK's own retries. Rates are AWS's own multiplied by `scale`
// (an emulated run is that much slower than the run it stands for); windows and counts are AWS's.
//
// - DynamoDB: every partition key of the table and of each index serves 1,000 write and 3,000 read
//   units a second (unused capacity banked up to 300 s, DynamoDB's burst); the table and each index
//   serve their warm throughput, and at most double their peak of 30 minutes before (a new on-demand
//   table: 4,000 writes, 12,000 reads); past either, ProvisionedThroughputExceededException.
// - S3: 3,500 PUT-class and 5,500 GET-class requests a second per prefix (SlowDown).
// - EventBridge: 10,000 PutEvents entries a second in the account (ThrottlingException).
// - SQS FIFO: 300 transactions a second per message group and action; the queue's depth against the
//   120,000 messages SQS scans for available groups, and the most messages one group held.
// - Lambda: each function's concurrent invocations and the account's (1,000), each invocation's time
//   against its function's timeout (a handler past it is recorded, as Lambda would have killed it).
// - Step Functions: the history events of an execution and of each Distributed Map child (25,000).
import { hookSdkSend, unhookSdkSend, type SdkHook, type SdkSend } from './sdk-hook.js';

export const AWS_QUOTAS = {
  partitionWriteUnits: 1000,
  partitionReadUnits: 3000,
  burstSeconds: 300,
  newTableWriteUnits: 4000,
  newTableReadUnits: 12_000,
  peakWindowMs: 30 * 60_000,
  s3PutsPerPrefix: 3500,
  s3GetsPerPrefix: 5500,
  putEventsEntries: 10_000,
  sqsGroupTransactions: 300,
  fifoScanWindow: 120_000,
  fifoInFlight: 120_000,
  lambdaConcurrency: 1000,
  standardHistoryEvents: 25_000,
  sdkMaxAttempts: 3,
} as const;

export interface QuotaOptions {
  /** AWS's rates multiplied by this (1: as AWS serves them). */
  scale: number;
  /** What the table and each index serve from their first second (write and read units a second, before `scale`). */
  warm: { table: { write: number; read: number }; indexes: Record<string, { write: number; read: number }> };
  /** Each function's timeout in seconds (from the template). */
  timeouts: Record<string, number>;
}

/** A token bucket: `rate` a second, up to `burst` banked. */
class Bucket {
  private tokens: number;
  private at = Date.now();
  constructor(
    private rate: number,
    private readonly burst: number,
  ) {
    this.tokens = burst;
  }
  setRate(rate: number): void {
    this.refill();
    this.rate = rate;
  }
  private refill(): void {
    const now = Date.now();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.at) / 1000) * this.rate);
    this.at = now;
  }
  take(n: number): boolean {
    this.refill();
    if (this.tokens < n) return false;
    this.tokens -= n;
    return true;
  }
  /** Charges units already spent (a read, known once it answered): the bucket may go below zero. */
  charge(n: number): void {
    this.refill();
    this.tokens -= n;
  }
}

/** Units a second of a table or index: its warm throughput, or double its peak of 30 minutes before. */
class Capacity {
  private readonly seconds = new Map<number, number>();
  private peakBefore = 0;
  private readonly bucket: Bucket;
  constructor(
    private readonly warm: number,
    private readonly scale: number,
  ) {
    this.bucket = new Bucket(warm * scale, warm * scale);
  }
  take(n: number): boolean {
    const second = Math.floor(Date.now() / 1000);
    for (const [s, used] of this.seconds)
      if ((second - s) * 1000 > AWS_QUOTAS.peakWindowMs) {
        this.peakBefore = Math.max(this.peakBefore, used);
        this.seconds.delete(s);
      }
    this.bucket.setRate(Math.max(this.warm * this.scale, 2 * this.peakBefore));
    if (!this.bucket.take(n)) return false;
    this.seconds.set(second, (this.seconds.get(second) ?? 0) + n);
    return true;
  }
}

/** What the layer saw: throttles by limit, the most of each counted thing, and any limit a run would have broken outright. */
export interface QuotaReport {
  throttles: Record<string, number>;
  /** Calls that still failed after the SDK's retries. */
  failedCalls: Record<string, number>;
  peaks: { lambdaConcurrency: number; byFunction: Record<string, number>; fifoDepth: number; fifoGroupBacklog: number; historyEvents: number };
  /** Limits passed that AWS would not have answered with a throttle: a killed Lambda, a failed execution, a FIFO queue past its window. */
  violations: string[];
}

export class QuotaLayer {
  private readonly partitions = new Map<string, { write: Bucket; read: Bucket }>();
  private readonly capacities = new Map<string, { write: Capacity; read: Capacity }>();
  private readonly rates = new Map<string, Bucket>();
  private readonly running = new Map<number, { fn: string; started: number }>();
  private readonly fifo = new Map<string, Set<string>>();
  private fifoDepth = 0;
  readonly report: QuotaReport = {
    throttles: {},
    failedCalls: {},
    peaks: { lambdaConcurrency: 0, byFunction: {}, fifoDepth: 0, fifoGroupBacklog: 0, historyEvents: 0 },
    violations: [],
  };

  constructor(private readonly options: QuotaOptions) {}

  /** Installs the layer at the SDK boundary. */
  install(): void {
    hookSdkSend(this.hook);
  }

  /** Takes the layer off the SDK boundary. */
  uninstall(): void {
    unhookSdkSend(this.hook);
  }

  private readonly hook: SdkHook = async (send, next) => {
    for (let attempt = 1; ; attempt++) {
      const limit = this.admit(send);
      if (!limit) break;
      this.count(this.report.throttles, limit);
      if (attempt >= AWS_QUOTAS.sdkMaxAttempts) {
        this.count(this.report.failedCalls, limit);
        throw throttled(limit);
      }
      // The SDK's own back-off for a throttle (standard mode: full jitter on a 500 ms base, doubling).
      await new Promise((r) => setTimeout(r, Math.random() * 500 * 2 ** (attempt - 1)));
    }
    const out = await next();
    this.afterRead(send, out);
    this.afterQueue(send);
    return out;
  };

  /** The limit a call would pass now (its units are taken when it does not), if any. */
  private admit(send: SdkSend): string | undefined {
    const { serviceId, command, input } = send;
    if (serviceId === 'DynamoDB') return this.admitDynamo(command, input);
    if (serviceId === 'S3') {
      const prefix = `${String(input.Bucket)}/${String(input.Key ?? input.Prefix ?? '')
        .split('/')
        .slice(0, 2)
        .join('/')}`;
      const put = /^(Put|Delete|Copy|Create|Upload|Complete)/.test(command);
      const bucket = this.rate(`s3:${put ? 'put' : 'get'}:${prefix}`, put ? AWS_QUOTAS.s3PutsPerPrefix : AWS_QUOTAS.s3GetsPerPrefix);
      return bucket.take(1) ? undefined : 'S3 requests per prefix';
    }
    if (serviceId === 'EventBridge' && command === 'PutEvents') {
      const entries = (input.Entries as unknown[] | undefined)?.length ?? 1;
      return this.rate('events', AWS_QUOTAS.putEventsEntries).take(entries) ? undefined : 'EventBridge PutEvents entries';
    }
    if (serviceId === 'SQS' && /^Send/.test(command)) {
      const groups =
        command === 'SendMessageBatch'
          ? ((input.Entries as Array<{ MessageGroupId?: string }>) ?? []).map((e) => e.MessageGroupId ?? '')
          : [String(input.MessageGroupId ?? '')];
      for (const g of new Set(groups)) if (!this.rate(`sqs:${g}`, AWS_QUOTAS.sqsGroupTransactions).take(1)) return 'SQS FIFO transactions per message group';
    }
    return undefined;
  }

  private admitDynamo(command: string, input: Record<string, unknown>): string | undefined {
    const table = String(input.TableName ?? Object.keys((input.RequestItems as object) ?? {})[0] ?? '');
    const writes = dynamoWrites(command, input);
    for (const w of writes) {
      const cap = this.capacity(table, 'table');
      if (!cap.write.take(w.units)) return 'DynamoDB table write throughput';
      if (!this.partition(`${table}|${w.pk}`).write.take(w.units)) return 'DynamoDB partition write throughput';
      for (const [index, pk] of w.indexes) {
        if (!this.capacity(table, index).write.take(1)) return `DynamoDB index ${index} write throughput`;
        if (pk && !this.partition(`${table}/${index}|${pk}`).write.take(1)) return `DynamoDB index ${index} partition write throughput`;
      }
    }
    const read = dynamoReadKey(command, input);
    if (read && !this.partition(`${table}${read.index ? `/${read.index}` : ''}|${read.pk}`).read.take(0.5))
      return `DynamoDB ${read.index ? `index ${read.index} ` : ''}partition read throughput`;
    return undefined;
  }

  /** Reads are charged once their size is known (a consistent read of 4 KB is a unit, an eventual one half). */
  private afterRead(send: SdkSend, out: unknown): void {
    if (send.serviceId !== 'DynamoDB') return;
    const read = dynamoReadKey(send.command, send.input);
    const result = out as { Items?: unknown[]; Item?: unknown; Responses?: Record<string, unknown[]> };
    const items = result?.Items ?? (result?.Item ? [result.Item] : Object.values(result?.Responses ?? {}).flat());
    const bytes = items.reduce<number>((n, i) => n + JSON.stringify(i).length, 0);
    const units = Math.max(0.5, Math.ceil(bytes / 4096) * (send.input.ConsistentRead ? 1 : 0.5));
    const table = String(send.input.TableName ?? Object.keys((send.input.RequestItems as object) ?? {})[0] ?? '');
    this.capacity(table, read?.index ?? 'table').read.take(units);
    if (read) this.partition(`${table}${read.index ? `/${read.index}` : ''}|${read.pk}`).read.charge(units);
  }

  /** The queue's messages as the handlers send them (the emulated event source reports what it deletes). */
  private afterQueue(send: SdkSend): void {
    if (send.serviceId !== 'SQS' || !/^Send/.test(send.command)) return;
    const entries = send.command === 'SendMessageBatch' ? (send.input.Entries as Array<Record<string, unknown>>) : [send.input];
    for (const e of entries) this.queued(String(e.MessageGroupId ?? ''), String(e.MessageDeduplicationId ?? Math.random()));
  }

  /** A message the queue now holds (sent). */
  queued(group: string, id: string): void {
    const set = this.fifo.get(group) ?? new Set<string>();
    if (set.has(id)) return;
    set.add(id);
    this.fifo.set(group, set);
    this.fifoDepth++;
    const peaks = this.report.peaks;
    peaks.fifoDepth = Math.max(peaks.fifoDepth, this.fifoDepth);
    peaks.fifoGroupBacklog = Math.max(peaks.fifoGroupBacklog, set.size);
    if (this.fifoDepth > AWS_QUOTAS.fifoScanWindow)
      this.violation(`the FIFO queue held ${this.fifoDepth} messages, past the ${AWS_QUOTAS.fifoScanWindow} SQS scans for groups`);
  }

  /** A message deleted from the queue (the group's oldest, as FIFO deletes them). */
  deleted(group: string): void {
    const set = this.fifo.get(group);
    const first = set?.values().next().value;
    if (set && first !== undefined) {
      set.delete(first);
      this.fifoDepth--;
    }
  }

  /** A handler invocation starts (Lambda's concurrency); returns its end, which checks its time against the function's timeout. */
  invoked(fn: string, invocation: number): () => void {
    this.running.set(invocation, { fn, started: Date.now() });
    const byFn = [...this.running.values()].filter((r) => r.fn === fn).length;
    const peaks = this.report.peaks;
    peaks.byFunction[fn] = Math.max(peaks.byFunction[fn] ?? 0, byFn);
    peaks.lambdaConcurrency = Math.max(peaks.lambdaConcurrency, this.running.size);
    if (this.running.size > AWS_QUOTAS.lambdaConcurrency)
      this.violation(`${this.running.size} invocations at once, past the account's ${AWS_QUOTAS.lambdaConcurrency}`);
    return () => {
      const run = this.running.get(invocation);
      this.running.delete(invocation);
      const timeout = this.options.timeouts[fn];
      if (run && timeout !== undefined && Date.now() - run.started > timeout * 1000)
        this.violation(`${fn} ran ${((Date.now() - run.started) / 1000).toFixed(1)} s, past its ${timeout} s timeout`);
    };
  }

  /** An execution's (or a Distributed Map child's) history events, when it ends. */
  history(name: string, events: number): void {
    this.report.peaks.historyEvents = Math.max(this.report.peaks.historyEvents, events);
    if (events > AWS_QUOTAS.standardHistoryEvents)
      this.violation(`${name} wrote ${events} history events, past Step Functions' ${AWS_QUOTAS.standardHistoryEvents}`);
  }

  private violation(what: string): void {
    if (!this.report.violations.includes(what)) this.report.violations.push(what);
  }

  private count(into: Record<string, number>, key: string): void {
    into[key] = (into[key] ?? 0) + 1;
  }

  private rate(key: string, perSecond: number): Bucket {
    let b = this.rates.get(key);
    if (!b) this.rates.set(key, (b = new Bucket(perSecond * this.options.scale, perSecond * this.options.scale)));
    return b;
  }

  private partition(key: string): { write: Bucket; read: Bucket } {
    let p = this.partitions.get(key);
    if (!p) {
      const s = this.options.scale;
      const [w, r] = [AWS_QUOTAS.partitionWriteUnits * s, AWS_QUOTAS.partitionReadUnits * s];
      this.partitions.set(key, (p = { write: new Bucket(w, w * AWS_QUOTAS.burstSeconds), read: new Bucket(r, r * AWS_QUOTAS.burstSeconds) }));
    }
    return p;
  }

  private capacity(table: string, index: string): { write: Capacity; read: Capacity } {
    const key = `${table}/${index}`;
    let c = this.capacities.get(key);
    if (!c) {
      const warm =
        index === 'table'
          ? this.options.warm.table
          : (this.options.warm.indexes[index] ?? { write: AWS_QUOTAS.newTableWriteUnits, read: AWS_QUOTAS.newTableReadUnits });
      this.capacities.set(key, (c = { write: new Capacity(warm.write, this.options.scale), read: new Capacity(warm.read, this.options.scale) }));
    }
    return c;
  }
}

/** The error AWS answers past a limit, named as the SDK names it (what the retriers and handlers match). */
function throttled(limit: string): Error {
  const name = limit.startsWith('DynamoDB')
    ? 'ProvisionedThroughputExceededException'
    : limit.startsWith('S3')
      ? 'SlowDown'
      : limit.startsWith('SQS')
        ? 'ThrottlingException'
        : 'ThrottlingException';
  const err = new Error(`${name}: ${limit} exceeded (quota layer)`);
  err.name = name;
  (err as Error & { $retryable?: object }).$retryable = { throttling: true };
  return err;
}

/** A write's units and the index partitions it touches, estimated from the request as DynamoDB prices it (1 KB a unit). */
function dynamoWrites(command: string, input: Record<string, unknown>): Array<{ pk: string; units: number; indexes: Array<[string, string | undefined]> }> {
  const size = (o: unknown) => Buffer.byteLength(JSON.stringify(o ?? {}));
  const indexesOf = (attrs: Record<string, unknown>, expression = ''): Array<[string, string | undefined]> => {
    const out: Array<[string, string | undefined]> = [];
    const touches = (name: string) => name in attrs || expression.includes(name) || Object.values(attrs).includes(name);
    if (touches('QPK')) out.push(['frontier', typeof attrs.QPK === 'string' ? attrs.QPK : undefined]);
    if (touches('GSI1PK')) out.push(['inlinks', typeof attrs.GSI1PK === 'string' ? attrs.GSI1PK : undefined]);
    return out;
  };
  if (command === 'PutItem' || command === 'Put') {
    const item = input.Item as Record<string, unknown>;
    return [{ pk: String(item.PK), units: Math.max(1, Math.ceil(size(item) / 1024)), indexes: indexesOf(item) }];
  }
  if (command === 'UpdateItem' || command === 'Update' || command === 'DeleteItem' || command === 'Delete') {
    const key = input.Key as Record<string, unknown>;
    const values = (input.ExpressionAttributeValues as Record<string, unknown>) ?? {};
    const names = (input.ExpressionAttributeNames as Record<string, unknown>) ?? {};
    return [
      { pk: String(key.PK), units: Math.max(1, Math.ceil((size(key) + size(values)) / 1024)), indexes: indexesOf(names, String(input.UpdateExpression ?? '')) },
    ];
  }
  if (command === 'BatchWriteItem' || command === 'BatchWrite') {
    const requests = Object.values(
      (input.RequestItems as Record<string, Array<Record<string, { Item?: Record<string, unknown>; Key?: Record<string, unknown> }>>>) ?? {},
    ).flat();
    return requests.map((r) => {
      const item = r.PutRequest?.Item ?? r.DeleteRequest?.Key ?? {};
      return { pk: String(item.PK), units: Math.max(1, Math.ceil(size(item) / 1024)), indexes: indexesOf(item) };
    });
  }
  return [];
}

/** The partition a single-partition read asks (GetItem, Query), if it is one. */
function dynamoReadKey(command: string, input: Record<string, unknown>): { pk: string; index?: string } | undefined {
  if (command === 'GetItem' || command === 'Get') return { pk: String((input.Key as Record<string, unknown>).PK) };
  if (command === 'Query' || command === 'QueryCommand') {
    const values = (input.ExpressionAttributeValues as Record<string, unknown>) ?? {};
    const pk = values[':pk'] ?? values[':q'] ?? Object.values(values)[0];
    return { pk: String(pk), ...(input.IndexName ? { index: String(input.IndexName) } : {}) };
  }
  return undefined;
}

type Template = { Resources: Record<string, { Type: string; Properties: Record<string, unknown> }> };

/**
 * The layer's options for a synthesized stack: each stage's timeout, and the table's and its
 * indexes' warm throughput as the template sets them (DynamoDB's new-table defaults where it does not).
 */
export function quotaOptionsOf(template: Template, stages: readonly string[], scale: number): QuotaOptions {
  const timeouts: Record<string, number> = {};
  for (const [id, r] of Object.entries(template.Resources)) {
    if (r.Type !== 'AWS::Lambda::Function') continue;
    const stage = stages.find((name) => id.startsWith(`CrawlerStages${name.replace(/-/g, '')}`));
    if (stage) timeouts[stage] = Number(r.Properties.Timeout ?? 3);
  }
  const table = Object.values(template.Resources).find((r) => r.Type === 'AWS::DynamoDB::Table')?.Properties ?? {};
  const warmOf = (w: unknown) => {
    const t = w as { WriteUnitsPerSecond?: number; ReadUnitsPerSecond?: number } | undefined;
    return { write: t?.WriteUnitsPerSecond ?? AWS_QUOTAS.newTableWriteUnits, read: t?.ReadUnitsPerSecond ?? AWS_QUOTAS.newTableReadUnits };
  };
  const indexes = Object.fromEntries(
    ((table.GlobalSecondaryIndexes as Array<{ IndexName: string; WarmThroughput?: unknown }>) ?? []).map((ix) => [ix.IndexName, warmOf(ix.WarmThroughput)]),
  );
  return { scale, warm: { table: warmOf(table.WarmThroughput), indexes }, timeouts };
}
