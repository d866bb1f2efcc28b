// The cost meter of bench:cloud: what AWS would bill for the handlers' own calls, by
// AWS's billing rules rather than by request bytes.
//
// - DynamoDB: every handler command asks for `ReturnConsumedCapacity: INDEXES`. dynalite already
//   prices the table part on the larger of the old and new item; the patch below adds what AWS adds
//   for each global secondary index (a put, an update or a delete of the projected entry, two writes
//   when the index key changes, nothing when no projected attribute changed). A write whose
//   condition fails is billed one unit, as AWS bills it.
// - S3 and SQS: the handlers' own requests (not the harness's queue emulation), S3 by request class,
//   SQS batches by started 64 KB.
// - Network time: each call takes at least the round trip a Lambda in the same region sees
//   (LATENCY_MS): an emulator that answers sooner is waited out, one that answers later counts
//   whole (its own time stands for the service's). The handlers' measured durations then include
//   network time as on AWS, with their calls in parallel where they are.
// - Logs: the bytes each handler writes to stdout/stderr, plus the platform's START/END/REPORT lines.
import { createRequire } from 'node:module';
import { TABLE_DEFINITION } from '../../shared/store/aws/table-layout.js';
import { currentFunction, hookSdkSend, type SdkSend } from './sdk-hook.js';

/** Typical in-region round trips from a Lambda function, in ms (p50 of AWS's own published guidance and common measurements). */
export const LATENCY_MS = {
  dynamodb: 6,
  dynamodbBatch: 12,
  s3Put: 30,
  s3Get: 15,
  sqs: 10,
  states: 25,
  s3vectors: 30,
  other: 15,
} as const;

/** Bytes the Lambda platform logs per invocation (START, END and REPORT lines). */
export const PLATFORM_LOG_BYTES = 420;

export interface FunctionUsage {
  networkMs: number;
  dynamoWriteUnits: number;
  dynamoReadUnits: number;
  s3Put: number;
  s3Get: number;
  sqsRequests: number;
  /** Messages handed back (ChangeMessageVisibility): the event source mapping deletes the others. */
  sqsHandBacks: number;
  logBytes: number;
}

const emptyUsage = (): FunctionUsage => ({
  networkMs: 0,
  dynamoWriteUnits: 0,
  dynamoReadUnits: 0,
  s3Put: 0,
  s3Get: 0,
  sqsRequests: 0,
  sqsHandBacks: 0,
  logBytes: 0,
});

type AttributeValue = Record<string, unknown>;
type Item = Record<string, AttributeValue>;

/** Write units by item kind (the sort key's prefix): table and index parts, for the breakdown. */
export interface KindUnits {
  table: number;
  index: number;
  writes: number;
}

/**
 * DynamoDB use by partition-key pattern (`RUN#<run>#<shard>`, `URL#<id>`, `TEXTLOG`…): the units
 * each pattern took and how many distinct keys it spread them over. The scale model reads it to
 * find the keys that do not spread as a crawl grows.
 */
export interface PartitionUse {
  pattern: string;
  keys: Set<string>;
  /** Write units by key, for the hottest key's share. */
  keyWrites: Map<string, number>;
  writeUnits: number;
  readUnits: number;
  writes: number;
  reads: number;
  /** The units by the function that spent them (a bench prices some functions at another rate than the harness ran them). */
  byFunction: Map<string, { writeUnits: number; readUnits: number }>;
}

/** One kind of read (function, command, key pattern): how many items its calls returned. */
export interface ReadUse {
  fn: string;
  command: string;
  pattern: string;
  calls: number;
  items: number;
  /** The most items one invocation of the function read this way (over all its calls and shards): a read that grows with the run or the table shows here. */
  maxItems: number;
}

/** A partition key's pattern: ids, hashes, hosts and numbers replaced by what they stand for. */
export function partitionPattern(pk: string): string {
  const index = /^(\w+):(.*)$/.exec(pk);
  if (index) return `${index[1]}:${partitionPattern(index[2]!)}`;
  return pk
    .replace(/^Q#\d+#.*$/, 'Q#<run>#<host>')
    .replace(/^D#\d+#\d+$/, 'D#<run>#<shard>')
    .replace(/^RUN#\d+#\d+$/, 'RUN#<run>#<shard>')
    .replace(/^RUN#\d+$/, 'RUN#<run>')
    .replace(/^HOST#.*$/, 'HOST#<host>')
    .replace(/^BAND#(\d+)#[0-9a-f]+$/, 'BAND#<band>#<value>')
    .replace(/^ENRICH#[0-9a-f]$/, 'ENRICH#<digit>')
    .replace(/#[0-9a-f]{12,}$/i, '#<id>')
    .replace(/#\d+$/, '#<n>');
}

export class CostMeter {
  readonly byFunction = new Map<string, FunctionUsage>();
  readonly partitions = new Map<string, PartitionUse>();
  readonly reads = new Map<string, ReadUse>();
  readonly writeUnitsByKind = new Map<string, KindUnits>();
  /** S3 PUT-class requests by the key's first folder (`raw`, `warc`, `extracted`, …). */
  readonly s3PutsByPrefix = new Map<string, number>();
  /** Bytes the handlers uploaded (PutObject and UploadPart bodies): what the crawl stores in S3. */
  s3BytesPut = 0;

  usage(fn: string): FunctionUsage {
    let u = this.byFunction.get(fn);
    if (!u) this.byFunction.set(fn, (u = emptyUsage()));
    return u;
  }

  total(): FunctionUsage {
    const t = emptyUsage();
    for (const u of this.byFunction.values()) for (const k of Object.keys(t) as Array<keyof FunctionUsage>) t[k] += u[k];
    return t;
  }

  /** Adds units to a partition key's pattern. */
  usePartition(pk: string, units: { write?: number; read?: number }, fn = currentFunction() ?? '(none)'): void {
    const pattern = partitionPattern(pk);
    let p = this.partitions.get(pattern);
    if (!p)
      this.partitions.set(
        pattern,
        (p = { pattern, keys: new Set(), keyWrites: new Map(), writeUnits: 0, readUnits: 0, writes: 0, reads: 0, byFunction: new Map() }),
      );
    p.keys.add(pk);
    const mine = p.byFunction.get(fn) ?? { writeUnits: 0, readUnits: 0 };
    mine.writeUnits += units.write ?? 0;
    mine.readUnits += units.read ?? 0;
    p.byFunction.set(fn, mine);
    if (units.write !== undefined) {
      p.keyWrites.set(pk, (p.keyWrites.get(pk) ?? 0) + units.write);
      p.writeUnits += units.write;
      p.writes += 1;
    }
    if (units.read !== undefined) {
      p.readUnits += units.read;
      p.reads += 1;
    }
  }

  /** Items read by one invocation, by read kind (`<invocation> <kind>`). */
  private readonly invocationItems = new Map<string, number>();

  useRead(fn: string, invocation: number, command: string, pattern: string, items: number): void {
    const key = `${fn} ${command} ${pattern}`;
    let r = this.reads.get(key);
    if (!r) this.reads.set(key, (r = { fn, command, pattern, calls: 0, items: 0, maxItems: 0 }));
    r.calls += 1;
    r.items += items;
    const mine = (this.invocationItems.get(`${invocation} ${key}`) ?? 0) + items;
    this.invocationItems.set(`${invocation} ${key}`, mine);
    r.maxItems = Math.max(r.maxItems, mine);
  }

  reset(): void {
    this.invocationItems.clear();
    this.partitions.clear();
    this.reads.clear();
    this.byFunction.clear();
    this.writeUnitsByKind.clear();
    this.s3PutsByPrefix.clear();
    this.s3BytesPut = 0;
  }
}

let active: CostMeter | undefined;

/** Starts metering the handlers' calls into a fresh meter (one meter at a time). */
export function startCostMeter(): CostMeter {
  patchDynaliteCapacity();
  captureLogs();
  hookSdkSend(meterCall);
  active = new CostMeter();
  return active;
}

const DYNAMO_WRITES = new Set(['Put', 'Update', 'Delete', 'PutItem', 'UpdateItem', 'DeleteItem', 'BatchWrite', 'BatchWriteItem']);

function capacityOf(out: unknown): number {
  const c = (out as { ConsumedCapacity?: { CapacityUnits?: number } | Array<{ CapacityUnits?: number }> } | undefined)?.ConsumedCapacity;
  if (!c) return 0;
  return (Array.isArray(c) ? c : [c]).reduce((n, x) => n + (x.CapacityUnits ?? 0), 0);
}

const PUT_CLASS = /^(Put|CreateMultipart|UploadPart|CompleteMultipart|Copy|List)/;

function latencyOf(call: SdkSend): number {
  switch (call.serviceId) {
    case 'DynamoDB':
      return call.command.startsWith('Batch') ? LATENCY_MS.dynamodbBatch : LATENCY_MS.dynamodb;
    case 'S3':
      return PUT_CLASS.test(call.command) ? LATENCY_MS.s3Put : LATENCY_MS.s3Get;
    case 'SQS':
      return LATENCY_MS.sqs;
    case 'SFN':
      return LATENCY_MS.states;
    case 'S3Vectors':
      return LATENCY_MS.s3vectors;
    default:
      return LATENCY_MS.other;
  }
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

async function meterCall(call: SdkSend, send: () => Promise<unknown>): Promise<unknown> {
  const meter = active;
  if (!meter) return send();
  // The round trip this call would take on AWS: the emulator's answer, waited out to at least that.
  const latency = latencyOf(call);
  meter.usage(call.fn).networkMs += latency;
  const next = async () => {
    const sent = performance.now();
    try {
      return await send();
    } finally {
      const left = latency - (performance.now() - sent);
      if (left > 0) await sleep(left);
    }
  };
  const u = meter.usage(call.fn);
  switch (call.serviceId) {
    case 'DynamoDB': {
      const write = DYNAMO_WRITES.has(call.command);
      // In place: the document client's commands hold the input object they were made with.
      call.input.ReturnConsumedCapacity = 'INDEXES';
      try {
        const out = await next();
        if (write) u.dynamoWriteUnits += capacityOf(out);
        else {
          u.dynamoReadUnits += capacityOf(out);
          meterRead(meter, call, out);
        }
        return out;
      } catch (err) {
        // AWS bills a write whose condition failed (one unit for an item up to 1 KB).
        if (write && (err as { name?: string }).name === 'ConditionalCheckFailedException') {
          u.dynamoWriteUnits += 1;
          const pk = (call.input.Key as { PK?: unknown } | undefined)?.PK ?? (call.input.Item as { PK?: unknown } | undefined)?.PK;
          if (typeof pk === 'string') meter.usePartition(pk, { write: 1 }, call.fn);
          const k = meter.writeUnitsByKind.get('(condition failed)') ?? { table: 0, index: 0, writes: 0 };
          k.table += 1;
          k.writes += 1;
          meter.writeUnitsByKind.set('(condition failed)', k);
        }
        throw err;
      }
    }
    case 'S3': {
      const put = PUT_CLASS.test(call.command);
      if (put) {
        u.s3Put += 1;
        const prefix = String(call.input.Key ?? call.input.Prefix ?? '(list)').split('/')[0]!;
        meter.s3PutsByPrefix.set(prefix, (meter.s3PutsByPrefix.get(prefix) ?? 0) + 1);
        const body = call.input.Body;
        if (typeof body === 'string') meter.s3BytesPut += Buffer.byteLength(body);
        else if (body instanceof Uint8Array) meter.s3BytesPut += body.byteLength;
      } else if (!/^Delete/.test(call.command)) u.s3Get += 1;
      return next();
    }
    case 'SQS': {
      // A batch is billed per started 64 KB of its payload.
      const entries = (call.input.Entries as Array<{ MessageBody?: string }> | undefined) ?? [{ MessageBody: String(call.input.MessageBody ?? '') }];
      const bytes = entries.reduce((n, e) => n + Buffer.byteLength(e.MessageBody ?? ''), 0);
      u.sqsRequests += Math.max(1, Math.ceil(bytes / 65536));
      if (call.command === 'ChangeMessageVisibility') u.sqsHandBacks += 1;
      return next();
    }
    default:
      return next();
  }
}

/** A read's units spread over the partition keys it asked for, and the items it returned. */
function meterRead(meter: CostMeter, call: SdkSend, out: unknown): void {
  const units = capacityOf(out);
  const input = call.input as {
    Key?: { PK?: unknown };
    IndexName?: string;
    KeyConditionExpression?: string;
    ExpressionAttributeValues?: Record<string, unknown>;
    RequestItems?: Record<string, { Keys?: Array<{ PK?: unknown }> }>;
  };
  const result = out as { Items?: unknown[]; Item?: unknown; Responses?: Record<string, unknown[]> } | undefined;
  let pks: string[] = [];
  if (call.command.startsWith('Get')) pks = [String(input.Key?.PK)];
  else if (call.command.startsWith('Query')) {
    // The partition key's value: the placeholder the key condition compares it with (the first `= :name`).
    const placeholder = /=\s*(:\w+)/.exec(input.KeyConditionExpression ?? '')?.[1] ?? ':pk';
    const value = String(input.ExpressionAttributeValues?.[placeholder]);
    pks = [input.IndexName ? `${input.IndexName}:${value}` : value];
  } else if (call.command.startsWith('BatchGet')) pks = Object.values(input.RequestItems ?? {}).flatMap((r) => (r.Keys ?? []).map((k) => String(k.PK)));
  else if (call.command.startsWith('Scan')) pks = ['(scan)'];
  for (const pk of pks) meter.usePartition(pk, { read: units / Math.max(1, pks.length) }, call.fn);
  const items = result?.Items?.length ?? (result?.Responses ? Object.values(result.Responses).reduce((n, r) => n + r.length, 0) : result?.Item ? 1 : 0);
  const patterns = new Set(pks.map(partitionPattern));
  const pattern = patterns.size === 1 ? [...patterns][0]! : `${patterns.size} patterns`;
  meter.useRead(call.fn, call.invocation, call.command.replace(/Command$/, ''), pattern, items);
}

let logsCaptured = false;

/** Counts what each handler writes to stdout and stderr (what CloudWatch Logs would ingest). */
function captureLogs(): void {
  if (logsCaptured) return;
  logsCaptured = true;
  for (const stream of [process.stdout, process.stderr]) {
    const write = stream.write.bind(stream) as (chunk: unknown, ...rest: unknown[]) => boolean;
    stream.write = ((chunk: unknown, ...rest: unknown[]) => {
      const fn = currentFunction();
      if (fn && active) active.usage(fn).logBytes += typeof chunk === 'string' ? Buffer.byteLength(chunk) : ((chunk as Uint8Array).byteLength ?? 0);
      return write(chunk, ...rest);
    }) as typeof stream.write;
  }
}

// ---- DynamoDB's index write rules, inside dynalite

type Db = {
  addConsumedCapacity: (data: Record<string, unknown>, isRead: boolean, oldItem?: Item, newItem?: Item) => { CapacityUnits: number } | undefined;
  itemSize: (item: Item) => number;
};

let dynalitePatched = false;

function patchDynaliteCapacity(): void {
  if (dynalitePatched) return;
  dynalitePatched = true;
  const db = createRequire(import.meta.url)('dynalite/db/index.js') as Db;
  const base = db.addConsumedCapacity;
  db.addConsumedCapacity = (data, isRead, oldItem, newItem) => {
    const out = base(data, isRead, oldItem, newItem);
    if (!out || isRead || data.ReturnConsumedCapacity !== 'INDEXES') return out;
    const indexes: Record<string, { CapacityUnits: number }> = {};
    let indexUnits = 0;
    for (const ix of TABLE_DEFINITION.GlobalSecondaryIndexes) {
      const units = indexWriteUnits(db, ix, oldItem, newItem);
      if (units > 0) {
        indexes[ix.IndexName] = { CapacityUnits: units };
        indexUnits += units;
        // An index's partitions are its own: its units go to the index's partition key (the new entry's, else the old one's).
        const hashKey = ix.KeySchema[0]!.AttributeName;
        const ipk = ((newItem?.[hashKey] ?? oldItem?.[hashKey]) as { S?: string } | undefined)?.S;
        if (ipk) active?.usePartition(`${ix.IndexName}:${ipk}`, { write: units });
      }
    }
    const pk = ((newItem ?? oldItem)?.PK as { S?: string } | undefined)?.S;
    if (pk) active?.usePartition(pk, { write: out.CapacityUnits });
    const kind = kindOf(newItem ?? oldItem);
    const k = active?.writeUnitsByKind.get(kind) ?? { table: 0, index: 0, writes: 0 };
    k.table += out.CapacityUnits;
    k.index += indexUnits;
    k.writes += 1;
    active?.writeUnitsByKind.set(kind, k);
    return { ...out, CapacityUnits: out.CapacityUnits + indexUnits, GlobalSecondaryIndexes: indexes };
  };
}

/** An item's kind for the breakdown: its `type`, else its sort key up to the first `#` (`EDGE`, `PAGE`, `URL`, …). */
function kindOf(item: Item | undefined): string {
  const type = (item?.type as { S?: string } | undefined)?.S;
  const sk = (item?.SK as { S?: string } | undefined)?.S;
  return type ?? (sk && /^[A-Z_]+(#|$)/.test(sk) ? sk.split('#')[0]! : 'other');
}

type IndexDefinition = (typeof TABLE_DEFINITION.GlobalSecondaryIndexes)[number];

/** The entry an item has in an index (undefined when it lacks the index's keys: a sparse index). */
function projected(ix: IndexDefinition, item: Item | undefined): Item | undefined {
  if (!item || ix.KeySchema.some((k) => item[k.AttributeName] === undefined)) return undefined;
  const p = ix.Projection as { ProjectionType: string; NonKeyAttributes?: string[] };
  if (p.ProjectionType === 'ALL') return item;
  const names = new Set<string>([...TABLE_DEFINITION.KeySchema, ...ix.KeySchema].map((k) => k.AttributeName));
  for (const n of p.NonKeyAttributes ?? []) names.add(n);
  return Object.fromEntries(Object.entries(item).filter(([n]) => names.has(n)));
}

const sameKey = (ix: IndexDefinition, a: Item, b: Item) => ix.KeySchema.every((k) => JSON.stringify(a[k.AttributeName]) === JSON.stringify(b[k.AttributeName]));
const units = (db: Db, item: Item) => Math.max(1, Math.ceil(db.itemSize(item) / 1024));

/** Write units a table write adds to one index, by DynamoDB's rules for index maintenance. */
function indexWriteUnits(db: Db, ix: IndexDefinition, oldItem: Item | undefined, newItem: Item | undefined): number {
  const before = projected(ix, oldItem);
  const after = projected(ix, newItem);
  if (!before && !after) return 0;
  if (!before) return units(db, after!);
  if (!after) return units(db, before);
  if (!sameKey(ix, before, after)) return units(db, before) + units(db, after);
  return JSON.stringify(before) === JSON.stringify(after) ? 0 : units(db, after);
}
