// npm run bench:cloud-scale — how far one deployed crawl goes: the per-page trace bench:cloud
// measures (DynamoDB units by partition-key pattern, what each read returned, Lambda seconds by
// stage, S3, SQS and Step Functions calls, storage) replayed into AWS's documented limits at 10⁵,
// 10⁶, 10⁷ and 10⁸ pages. For each size it prints the pages a second one run reaches, the limit it
// meets first, every operation whose cost grows with the run or the table, the storage and the
// cost of 1,000 pages. Every per-page input comes from the trace; the only constants are AWS's.
//
// `-- --trace FILE` reads a trace already written (`npm run bench:cloud -- --trace FILE`); without
// it, or with `-- --fresh`, bench:cloud runs first and writes .bench-data/cloud-trace.json.
// `-- --json` prints one line: {"sizes":[{"pages":…,"pagesPerSecondPerRun":…,"firstLimit":"…",
// "runWideOps":[…],"tableWideOps":[…],"usdPer1kPages":…}, …]}.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FINALIZE_CHUNK_PAGES, FINALIZE_SPREAD_PAGES, WRITE_CHUNK_PAGES } from '../shared/pipeline/cloud/run-finalize.js';
import { SWEEP_ITEMS_PER_CALL } from '../shared/pipeline/cloud/stall-recovery.js';
import { RUN_SHARDS, runShardsFor } from '../shared/store/aws/table-layout.js';
import { DEFAULT_FETCH_CONCURRENCY } from '../lib/crawler.js';
import { WACZ_PART_BYTES, WACZ_PART_FILES } from '../shared/pipeline/cloud/warc-compaction.js';
import { machine, publish, today } from './report.js';

/** AWS's documented limits (us-east-1, defaults of a new account where a quota can be raised). */
export const AWS_LIMITS = {
  /** DynamoDB: one partition serves 1,000 write units and 3,000 read units a second. */
  partitionWriteUnits: 1000,
  partitionReadUnits: 3000,
  /** DynamoDB on-demand: the table-level throughput quota (raisable). */
  tableWriteUnits: 40_000,
  tableReadUnits: 40_000,
  /** Lambda: concurrent executions a region runs by default (raisable), and a function's longest run. */
  lambdaConcurrency: 1000,
  lambdaSeconds: 900,
  /** SQS FIFO in high-throughput mode: transactions a second per API action. */
  sqsFifoTransactions: 70_000,
  /** S3: PUT/COPY/POST/DELETE requests a second per prefix. */
  s3PutsPerPrefix: 3500,
  /** Step Functions: Express StartExecution refill a second; a Standard execution's history events. */
  expressStarts: 6000,
  standardHistoryEvents: 25_000,
  /** The construct's cap on fetch-worker concurrency (`maxFetchConcurrency`). */
  maxFetchConcurrency: 1000,
} as const;

/**
 * The two deployments each size is modelled for: `defaults`, the construct as deployed with no
 * props in a new account; `tuned`, the fetch workers at the construct's cap and the account's
 * Lambda concurrency and table throughput quotas raised (routine quota increases).
 */
export const DEPLOYMENTS = {
  defaults: { fetchConcurrency: DEFAULT_FETCH_CONCURRENCY, lambdaConcurrency: AWS_LIMITS.lambdaConcurrency, tableUnits: AWS_LIMITS.tableWriteUnits },
  tuned: { fetchConcurrency: AWS_LIMITS.maxFetchConcurrency, lambdaConcurrency: 5000, tableUnits: 160_000 },
} as const;
export type Deployment = (typeof DEPLOYMENTS)[keyof typeof DEPLOYMENTS];

/** List prices of storage a month (us-east-1). */
const STORAGE_PRICE = { dynamoGbMonth: 0.25, s3GbMonth: 0.023 };
/** Pages of one run at most: a crawl of more pages runs again (its next runs pick up the deferred and new URLs). */
const RUN_PAGES_MAX = 10_000_000;
const SIZES = [100_000, 1_000_000, 10_000_000, 100_000_000];
/** Stages that run once a run (or once a poll), not once a page. */
const RUN_STAGES = new Set(['init-run', 'run-progress', 'finalize-run', 'discover', 'run-ended', 'search-api']);

export interface Trace {
  pages: number;
  requests: number;
  elapsedMs: number;
  hosts: number;
  delayMs: number;
  usdPer1kPages: number;
  linksPerPage?: number;
  /** The web the trace crawled: `open` (most links never fetched) or the closed test web. */
  web?: 'open' | 'closed';
  urlItemsPerPage?: number;
  /** Calls the quota layer throttled (AWS's limits at their real size) while the trace's crawl ran. */
  throttles?: number;
  parts?: Record<string, number>;
  lambda: Record<string, { invocations: number; seconds: number; maxInvocationSeconds: number; memoryMb: number }>;
  pageExecutions: number;
  sqsRequests: number;
  s3: { puts: number; gets: number; putsByPrefix?: Record<string, number>; objectsByPrefix?: Record<string, number> };
  storage: { dynamoBytes: number; s3Bytes: number };
  runMachine: { eventsPerPoll: number; historyEvents: number; pollSeconds: number; finalizeEvents?: number };
  partitions: Array<{ pattern: string; distinct: number; writeUnits: number; readUnits: number; writes: number; reads: number; hottestWriteShare?: number }>;
  reads: Array<{ fn: string; command: string; pattern: string; calls: number; items: number; maxItems: number }>;
}

type Scope = 'run' | 'table' | 'host' | 'spread';

/**
 * How a partition-key pattern's keys grow: with each run (`RUN#<run>…`: a fixed number a run),
 * with the hosts, with the pages (a key a page or more: the load spreads as the crawl grows), or
 * not at all (a fixed set of table-wide keys). Read from the trace: a pattern whose distinct keys
 * number at least a fifth of the pages spreads.
 */
export function scopeOf(pattern: string, distinct: number, pages: number): Scope {
  if (pattern.includes('<run>')) return distinct >= pages / 5 ? 'spread' : 'run';
  if (pattern.startsWith('HOST#')) return 'host';
  if (pattern === '(scan)') return 'table';
  return distinct >= pages / 5 ? 'spread' : 'table';
}

export interface Limit {
  name: string;
  pagesPerSecond: number;
}

export interface SizeModel {
  pages: number;
  runPages: number;
  /** Tuned: the fetch workers at the construct's cap, the account's quotas raised (DEPLOYMENTS.tuned). */
  pagesPerSecondPerRun: number;
  /** As deployed with the construct's defaults in a new account (DEPLOYMENTS.defaults). */
  pagesPerSecondPerRunDefaults: number;
  limitedByDefaults: string;
  /** Whether a run of this size ends (its history, its Lambdas' time): `cannotEnd` says why not. */
  runEnds: boolean;
  limitedBy: string;
  firstLimit: string;
  runWideOps: string[];
  tableWideOps: string[];
  /** Why a run of this size cannot end, if it cannot. */
  cannotEnd: string[];
  storageGb: { dynamodb: number; s3: number };
  /** WARC objects kept once the runs ended (compacted a part at a time), and how many were written. */
  warcObjects: { written: number; kept: number };
  usdPer1kPages: number;
  storageUsdPer1kPagesMonth: number;
}

/** The rate limits one run meets, each in pages a second, from the trace's per-page figures, for a deployment. */
export function rateLimits(t: Trace, d: Deployment = DEPLOYMENTS.defaults, runPages = t.pages): Limit[] {
  const limits: Limit[] = [];
  const perPage = (n: number) => n / t.pages;
  // A run's shards: the trace's run had RUN_SHARDS; a run of a larger budget has more (runShardsFor), each taking its share.
  const widen = RUN_SHARDS / runShardsFor(runPages);
  for (const p of t.partitions) {
    const scope = scopeOf(p.pattern, p.distinct, t.pages);
    // The hottest key of a pattern (measured) meets a partition's limit first: a big host's queue,
    // one of a run's shards. Keys that spread with the pages (a URL's own) never do.
    const measured = p.hottestWriteShare ?? (scope === 'run' || scope === 'table' ? 1 / p.distinct : 0);
    const share = p.pattern.includes('<shard>') ? measured * widen : measured;
    if (p.writeUnits > 0 && share > 0 && (scope !== 'spread' || p.hottestWriteShare !== undefined))
      limits.push({
        name: `DynamoDB writes on ${p.pattern}'s hottest key (${(share * 100).toFixed(1)} % of ${perPage(p.writeUnits).toFixed(2)} units a page)`,
        pagesPerSecond: AWS_LIMITS.partitionWriteUnits / (perPage(p.writeUnits) * share),
      });
    if (scope !== 'run' && scope !== 'table') continue;
    if (p.readUnits > 0)
      limits.push({
        name: `DynamoDB reads on ${p.pattern} (${p.distinct} key${p.distinct === 1 ? '' : 's'}, ${perPage(p.readUnits).toFixed(2)} units a page)`,
        pagesPerSecond: (AWS_LIMITS.partitionReadUnits * p.distinct) / perPage(p.readUnits),
      });
  }
  const writeUnits = t.partitions.reduce((n, p) => n + p.writeUnits, 0);
  const readUnits = t.partitions.reduce((n, p) => n + p.readUnits, 0);
  limits.push({
    name: `DynamoDB table write quota (${d.tableUnits.toLocaleString('en')} units a second; ${perPage(writeUnits).toFixed(1)} units a page)`,
    pagesPerSecond: d.tableUnits / perPage(writeUnits),
  });
  limits.push({
    name: `DynamoDB table read quota (${d.tableUnits.toLocaleString('en')} units a second; ${perPage(readUnits).toFixed(1)} units a page)`,
    pagesPerSecond: d.tableUnits / perPage(readUnits),
  });
  const pageSeconds = Object.entries(t.lambda)
    .filter(([stage]) => !RUN_STAGES.has(stage))
    .reduce((n, [, l]) => n + l.seconds, 0);
  limits.push({
    name: `Lambda concurrency (${d.lambdaConcurrency.toLocaleString('en')}; ${perPage(pageSeconds).toFixed(2)} s of Lambda a page)`,
    pagesPerSecond: d.lambdaConcurrency / perPage(pageSeconds),
  });
  const fetchSeconds = t.lambda['fetch-worker']?.seconds ?? 0;
  if (fetchSeconds > 0)
    limits.push({
      name: `fetch workers (maxFetchConcurrency ${d.fetchConcurrency}; ${perPage(fetchSeconds).toFixed(3)} s of fetch worker a page)`,
      pagesPerSecond: d.fetchConcurrency / perPage(fetchSeconds),
    });
  limits.push({
    name: `SQS FIFO throughput (${perPage(t.sqsRequests).toFixed(2)} requests a page)`,
    pagesPerSecond: AWS_LIMITS.sqsFifoTransactions / perPage(t.sqsRequests),
  });
  limits.push({
    name: `Express StartExecution (${perPage(t.pageExecutions).toFixed(2)} a page)`,
    pagesPerSecond: AWS_LIMITS.expressStarts / perPage(t.pageExecutions),
  });
  // A run's WARC files share one prefix (`warc/run-<id>/`).
  const warcPuts = t.s3.putsByPrefix?.warc ?? t.s3.puts;
  limits.push({ name: `S3 PUTs on warc/run-<id>/ (${perPage(warcPuts).toFixed(2)} a page)`, pagesPerSecond: AWS_LIMITS.s3PutsPerPrefix / perPage(warcPuts) });
  return limits.filter((l) => Number.isFinite(l.pagesPerSecond)).sort((a, b) => a.pagesPerSecond - b.pagesPerSecond);
}

/**
 * Reads whose items grow with the run or the table: one invocation read at least a quarter as
 * many items as the run had pages. A run's partitions, or a page's own keys read for page after
 * page (`URL#<id>`: the run's pages, or the table's when the run is the table's only one), grow
 * with the run; fixed table-wide keys and scans grow with the table.
 */
export function growingReads(t: Trace): { run: Trace['reads']; table: Trace['reads'] } {
  const run: Trace['reads'] = [];
  const table: Trace['reads'] = [];
  for (const r of t.reads) {
    if (r.maxItems < t.pages / 4) continue;
    // A reader bounded by its code (the stall's sweep: a slice a call) reads at most its bound, whatever the run.
    if (r.fn === 'run-progress' && r.maxItems <= SWEEP_ITEMS_PER_CALL) continue;
    if (r.pattern.includes('<run>') || r.pattern.startsWith('URL#')) run.push(r);
    else if (!r.pattern.startsWith('HOST#')) table.push(r);
  }
  return { run, table };
}

const opName = (r: Trace['reads'][number]) => `${r.fn} ${r.command} ${r.pattern}`;

export function modelSize(t: Trace, pages: number): SizeModel {
  const runPages = Math.min(pages, RUN_PAGES_MAX);
  const limits = rateLimits(t, DEPLOYMENTS.tuned, runPages);
  const binding = limits[0]!;
  const rate = binding.pagesPerSecond;
  const defaults = rateLimits(t, DEPLOYMENTS.defaults, runPages)[0]!;
  const growing = growingReads(t);
  // The trace's run is small, so FinalizeRun ranked and packaged it alone; a run of more than
  // FINALIZE_SPREAD_PAGES ends shard by shard, a bounded chunk a step (bench:cloud-soak measures them).
  const table = growing.table;
  const run = growing.run.filter((r) => !(r.fn === 'finalize-run' && runPages > FINALIZE_SPREAD_PAGES));
  const cannotEnd: string[] = [];
  // An invocation that reads the whole run (or table) takes time in proportion: its longest invocation, scaled.
  for (const r of run) {
    const seconds = ((t.lambda[r.fn]?.maxInvocationSeconds ?? 0) * runPages) / t.pages;
    if (seconds > AWS_LIMITS.lambdaSeconds)
      cannotEnd.push(`${r.fn} reads the whole run (${r.command} ${r.pattern}): ~${Math.round(seconds)} s, past Lambda's ${AWS_LIMITS.lambdaSeconds} s`);
  }
  for (const r of table) {
    const seconds = ((t.lambda[r.fn]?.maxInvocationSeconds ?? 0) * pages) / t.pages;
    if (seconds > AWS_LIMITS.lambdaSeconds)
      cannotEnd.push(`${r.fn} reads the whole table (${r.command} ${r.pattern}): ~${Math.round(seconds)} s, past Lambda's ${AWS_LIMITS.lambdaSeconds} s`);
  }
  // The run's end, a Distributed Map child a shard: each child's history holds its loop's steps
  // (a Task and a Choice: 7 events a step) under Step Functions' 25,000.
  const shardPages = runPages / runShardsFor(runPages);
  for (const [step, chunk] of [
    ['CollectShard', FINALIZE_CHUNK_PAGES],
    ['WriteShard', WRITE_CHUNK_PAGES],
  ] as const) {
    const childEvents = Math.ceil(shardPages / chunk) * 7 + 10;
    if (childEvents > t.runMachine.historyEvents)
      cannotEnd.push(`${step}'s Map child: ${childEvents} history events for a shard of ${Math.round(shardPages)} pages, past ${t.runMachine.historyEvents}`);
  }
  // At the slower deployment's rate the run takes longest: its history is checked at that one.
  const runSeconds = runPages / Math.min(rate, defaults.pagesPerSecond);
  // The run's end: its finalize states and ranking rounds at their cap (a trace from before them: 60).
  const events = Math.ceil(runSeconds / t.runMachine.pollSeconds) * t.runMachine.eventsPerPoll + 60 + (t.runMachine.finalizeEvents ?? 0);
  if (events > t.runMachine.historyEvents)
    cannotEnd.push(`the run machine's history: ${events} events for a run of ${(runSeconds / 3600).toFixed(1)} h, past ${t.runMachine.historyEvents}`);
  const dynamoGb = ((t.storage.dynamoBytes / t.pages) * pages) / 1e9;
  const s3Gb = ((t.storage.s3Bytes / t.pages) * pages) / 1e9;
  const warcObjects = warcObjectsAt(t, pages, runPages);
  return {
    pages,
    runPages,
    pagesPerSecondPerRun: Math.round(rate),
    pagesPerSecondPerRunDefaults: Math.round(defaults.pagesPerSecond),
    limitedByDefaults: defaults.name,
    runEnds: cannotEnd.length === 0,
    limitedBy: binding.name,
    firstLimit: cannotEnd[0] ?? binding.name,
    runWideOps: [...new Set(run.map(opName))],
    tableWideOps: [...new Set(table.map(opName))],
    cannotEnd,
    storageGb: { dynamodb: Number(dynamoGb.toFixed(2)), s3: Number(s3Gb.toFixed(2)) },
    warcObjects,
    usdPer1kPages: Number(t.usdPer1kPages.toFixed(5)),
    storageUsdPer1kPagesMonth: Number((((dynamoGb * STORAGE_PRICE.dynamoGbMonth + s3Gb * STORAGE_PRICE.s3GbMonth) / pages) * 1000).toFixed(6)),
  };
}

/**
 * WARC objects at `pages` pages in runs of `runPages`: the trace's objects written a page (its
 * PUTs under warc/ less the objects its run's end kept), and after each run's end the compacted
 * parts (of at most WACZ_PART_FILES objects and WACZ_PART_BYTES) with their CDXJ beside them.
 */
export function warcObjectsAt(t: Trace, pages: number, runPages: number): { written: number; kept: number } {
  const keptInTrace = t.s3.objectsByPrefix?.warc ?? 0;
  const writtenPerPage = Math.max(0, (t.s3.putsByPrefix?.warc ?? t.s3.puts) - keptInTrace) / t.pages;
  const bytesPerObject = writtenPerPage > 0 ? t.storage.s3Bytes / t.pages / writtenPerPage : 0;
  const objectsPerRun = writtenPerPage * runPages;
  const partsPerRun = Math.max(Math.ceil(objectsPerRun / WACZ_PART_FILES), Math.ceil((objectsPerRun * bytesPerObject) / WACZ_PART_BYTES));
  const kept = keptInTrace > 0 ? 2 * partsPerRun * Math.ceil(pages / runPages) : Math.round(writtenPerPage * pages);
  return { written: Math.round(writtenPerPage * pages), kept };
}

/** What the model was fed: the web the trace crawled, its size and what throttled on the way. */
export function traceSummary(t: Trace): { web: string; hosts: number; urlItemsPerPage: number; pages: number; throttles: number } {
  return {
    web: t.web ?? 'closed',
    hosts: t.hosts,
    urlItemsPerPage: Number((t.urlItemsPerPage ?? 0).toFixed(2)),
    pages: t.pages,
    throttles: t.throttles ?? 0,
  };
}

function loadTrace(): Trace {
  const at = process.argv.indexOf('--trace');
  const file = at === -1 ? join('.bench-data', 'cloud-trace.json') : process.argv[at + 1];
  if (!file) throw new Error('--trace needs the file bench:cloud wrote: --trace .bench-data/cloud-trace.json');
  if (process.argv.includes('--fresh') || (at === -1 && !existsSync(file))) {
    console.error(`running bench:cloud to measure the trace (${file})…`);
    execFileSync(process.execPath, ['--openssl-legacy-provider', '--import', 'tsx', join('bench', 'cloud.ts'), '--json', '--trace', file], {
      stdio: ['ignore', 'ignore', 'inherit'],
    });
  }
  if (!existsSync(file)) throw new Error(`no trace at ${file}: write one with npm run bench:cloud -- --trace ${file}`);
  return JSON.parse(readFileSync(file, 'utf8')) as Trace;
}

/** The model's figures as the manual's blocks: the cost of the trace's crawl (bench:cloud) and the model by size. */
function publishModel(trace: Trace, sizes: SizeModel[]): void {
  const common = { machine: machine(), measured: today() };
  const parts = trace.parts ?? {};
  publish({
    bench: 'cloud',
    command: 'npm run bench:cloud -- --trace .bench-data/cloud-trace.json',
    ...common,
    tables: [
      {
        columns: ['service', '$ per 1,000 pages'],
        rows: [...Object.entries(parts).map(([k, v]) => [k, v.toFixed(5)]), ['total', trace.usdPer1kPages.toFixed(5)]],
      },
    ],
    notes: [
      `${trace.pages} pages, ${trace.requests} requests, ~${trace.linksPerPage ?? 60} links a page, ${trace.delayMs} ms per-host delay; ${(trace.s3.puts / trace.pages).toFixed(2)} S3 PUTs and ${(trace.s3.gets / trace.pages).toFixed(2)} GETs a page. Target: ≤ $0.05 per 1,000 pages.`,
    ],
  });
  publish({
    bench: 'cloud-scale',
    command: 'npm run bench:cloud-scale',
    ...common,
    tables: [
      {
        title: "Rate limits of one run as deployed (the construct's defaults, a new account), lowest first:",
        columns: ['pages a second', 'limit'],
        rows: rateLimits(trace, DEPLOYMENTS.defaults)
          .slice(0, 6)
          .map((l) => [Math.round(l.pagesPerSecond), l.name]),
      },
      {
        title: `Tuned (maxFetchConcurrency ${DEPLOYMENTS.tuned.fetchConcurrency}, the account's Lambda concurrency ${DEPLOYMENTS.tuned.lambdaConcurrency.toLocaleString('en')}, the table's quota ${DEPLOYMENTS.tuned.tableUnits.toLocaleString('en')} units a second), lowest first:`,
        columns: ['pages a second', 'limit'],
        rows: rateLimits(trace, DEPLOYMENTS.tuned)
          .slice(0, 6)
          .map((l) => [Math.round(l.pagesPerSecond), l.name]),
      },
      {
        title: 'By crawl size (a run is at most 10⁷ pages):',
        columns: [
          'pages',
          'a run',
          'pages/s a run, tuned',
          'as deployed',
          'the run ends',
          'first limit',
          'grows with the run',
          'grows with the table',
          'DynamoDB GB',
          'S3 GB',
          'WARC objects written',
          'kept',
          '$ / 1,000 pages',
        ],
        rows: sizes.map((s) => [
          s.pages.toExponential(0),
          s.runPages.toExponential(0),
          s.pagesPerSecondPerRun,
          s.pagesPerSecondPerRunDefaults,
          s.runEnds ? 'yes' : 'no',
          s.firstLimit,
          s.runWideOps.join('; ') || 'nothing',
          s.tableWideOps.join('; ') || 'nothing',
          s.storageGb.dynamodb,
          s.storageGb.s3,
          s.warcObjects.written,
          s.warcObjects.kept,
          s.usdPer1kPages,
        ]),
      },
    ],
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const trace = loadTrace();
  const sizes = SIZES.map((n) => modelSize(trace, n));
  publishModel(trace, sizes);
  if (process.argv.includes('--json')) {
    console.log(
      JSON.stringify({
        trace: traceSummary(trace),
        deployments: DEPLOYMENTS,
        sizes: sizes.map((s) => ({
          pages: s.pages,
          pagesPerSecondPerRun: s.pagesPerSecondPerRun,
          pagesPerSecondPerRunDefaults: s.pagesPerSecondPerRunDefaults,
          runEnds: s.runEnds,
          limitedByDefaults: s.limitedByDefaults,
          firstLimit: s.firstLimit,
          runWideOps: s.runWideOps,
          tableWideOps: s.tableWideOps,
          usdPer1kPages: s.usdPer1kPages,
          runPages: s.runPages,
          limitedBy: s.limitedBy,
          cannotEnd: s.cannotEnd,
          storageGb: s.storageGb,
          warcObjects: s.warcObjects,
          storageUsdPer1kPagesMonth: s.storageUsdPer1kPagesMonth,
        })),
      }),
    );
  } else {
    const t = traceSummary(trace);
    console.log(
      `Trace: ${t.web} web of ${t.hosts} hosts, ${trace.pages} pages, ${t.urlItemsPerPage} frontier URLs a page, ${trace.requests} requests, ${t.throttles} throttles, through the cloud path on emulators (bench:cloud); ${trace.partitions.length} partition-key patterns, $${trace.usdPer1kPages.toFixed(4)} per 1,000 pages\n`,
    );
    for (const [name, d] of Object.entries(DEPLOYMENTS)) {
      console.log(
        `Rate limits of one run, ${name} (fetch concurrency ${d.fetchConcurrency}, Lambda ${d.lambdaConcurrency}, table ${d.tableUnits} units/s), lowest first:`,
      );
      for (const l of rateLimits(trace, d).slice(0, 6)) console.log(`  ${String(Math.round(l.pagesPerSecond)).padStart(9)} pages/s  ${l.name}`);
    }
    console.log(
      `\nA run of more than ${FINALIZE_SPREAD_PAGES.toLocaleString('en')} pages ends shard by shard, each step a bounded chunk (bench:cloud-soak); the trace's run ended in FinalizeRun alone.`,
    );
    console.log('\nBy crawl size (a run is at most 10⁷ pages; a larger crawl is several runs):');
    for (const s of sizes) {
      console.log(
        `\n${s.pages.toExponential(0)} pages (a run of ${s.runPages.toExponential(0)}): ${s.pagesPerSecondPerRun} pages/s a run tuned (${s.limitedBy}), ${s.pagesPerSecondPerRunDefaults} as deployed (${s.limitedByDefaults}); the run ${s.runEnds ? 'ends' : 'does not end'}`,
      );
      console.log(`  first limit: ${s.firstLimit}`);
      console.log(`  grows with the run: ${s.runWideOps.join('; ') || 'nothing'}`);
      console.log(`  grows with the table: ${s.tableWideOps.join('; ') || 'nothing'}`);
      console.log(
        `  storage: DynamoDB ${s.storageGb.dynamodb} GB, S3 ${s.storageGb.s3} GB ($${s.storageUsdPer1kPagesMonth} per 1,000 pages a month); crawl $${s.usdPer1kPages} per 1,000 pages`,
      );
      console.log(
        `  WARC objects: ${s.warcObjects.written.toLocaleString('en')} written, ${s.warcObjects.kept.toLocaleString('en')} kept after the runs' ends (compacted with their CDXJ)`,
      );
    }
  }
}
