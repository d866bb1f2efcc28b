// npm run bench:cloud — the Lambda bundles (size against the 250 MB unzipped limit), each
// handler's cold-start import time in Node, and the cost of 1,000 pages at AWS list prices, from a
// crawl through the cloud path on emulators of a web whose articles carry ~60 links. The meter
// (support/cloud/cost-meter.ts) bills as AWS bills: DynamoDB units from item sizes with the index
// writes, only the handlers' own S3 and SQS requests, network time added to every call, log bytes.
// `-- --json` prints one JSON line: { usdPer1kPages, parts: {…}, pages, … }. `-- --trace FILE`
// also writes the crawl's measured trace (DynamoDB units by partition-key pattern, reads and the
// items they returned, Lambda seconds by stage, S3 and SQS calls, storage) for bench:cloud-scale.
import { cpSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { EVENTS_PER_POLL, EVENTS_PER_POLL_WITH_TEXT_REBUILD, STANDARD_HISTORY_EVENTS, FINALIZE_EVENTS } from '../lib/quotas.js';
import { execFileSync } from 'node:child_process';
import { DEFAULT_SIZING } from '../lib/crawler.js';
import { STAGES, ROOT, type StageName } from '../lib/stages.js';
import { startCostMeter, PLATFORM_LOG_BYTES } from '../support/cloud/cost-meter.js';
import { startEmulators } from '../support/cloud/emulators.js';
import { cloudCrawl } from '../support/cloud/harness.js';
import { synthApp } from '../support/synth.js';
import { OPEN_WEB_DEFAULTS, startOpenWeb } from '../support/web/open-web.js';
import { QuotaLayer, quotaOptionsOf } from '../support/cloud/quota-layer.js';
import { frontierUrlCount } from '../shared/store/aws/dynamo-waiting.js';

const LAMBDA_UNZIPPED_LIMIT = 250 * 1024 * 1024;
/** Memory (MB) of each stage as the Crawler construct deploys it by default. */
const MEMORY = Object.fromEntries(Object.entries(DEFAULT_SIZING).map(([name, s]) => [name, s.memoryMb])) as Record<StageName, number>;
/** us-east-1 list prices, November 2026. */
const PRICE = {
  lambdaRequest: 0.2 / 1e6,
  lambdaGbSecondArm: 0.0000133334,
  sqsFifoRequest: 0.5 / 1e6,
  dynamoWriteUnit: 0.625 / 1e6,
  dynamoReadUnit: 0.125 / 1e6,
  s3Put: 0.005 / 1000,
  s3Get: 0.0004 / 1000,
  sfnStandardTransition: 0.025 / 1000,
  sfnExpressRequest: 1.0 / 1e6,
  sfnExpressGbSecond: 0.00001667,
  logsIngestedGb: 0.5,
  xrayTrace: 5.0 / 1e6,
};
const JSON_OUT = process.argv.includes('--json');
const TRACE_AT = process.argv.indexOf('--trace');
const TRACE_FILE = TRACE_AT === -1 ? undefined : process.argv[TRACE_AT + 1];
if (TRACE_AT !== -1 && !TRACE_FILE) throw new Error('--trace needs a file to write the trace to: --trace .bench-data/cloud-trace.json');
/**
 * A page fetched from the internet by a Lambda: the open web's answers are log-uniform over
 * 0.2–2 s (mean (2 − 0.2) / ln 10 ≈ 0.78 s). The loopback web answered twenty times faster; the
 * rest is added to the fetch worker's billed time. An invocation takes a batch of turns at
 * different hosts at once and lasts as long as its slowest answer: at scale (batches full, as on a
 * web with more hosts ready than workers) each batch adds the expected slowest of FETCH_BATCH answers.
 */
const [LOW_MS, HIGH_MS] = OPEN_WEB_DEFAULTS.latencyMs;
/** The expected largest of `n` answers' times, log-uniform over [LOW_MS, HIGH_MS]: LOW + ∫ (1 − F(x)ⁿ) dx. */
function expectedSlowestMs(n: number): number {
  const steps = 2000;
  let area = 0;
  for (let i = 0; i < steps; i++) {
    const x = LOW_MS + ((i + 0.5) / steps) * (HIGH_MS - LOW_MS);
    area += (1 - (Math.log(x / LOW_MS) / Math.log(HIGH_MS / LOW_MS)) ** n) * ((HIGH_MS - LOW_MS) / steps);
  }
  return LOW_MS + area;
}
/** Turns a fetch-worker invocation takes at once (the event source's batch size). */
const FETCH_BATCH = 10;
/** The crawl rate the X-Ray sampling is priced at (its default rule: 1 trace a second, then 5 %). */
const PAGES_PER_SECOND = Number(process.env.BENCH_PAGES_PER_SECOND ?? 5);
/** What a failed Express execution logs at level ERROR without execution data. */
const EXPRESS_ERROR_LOG_BYTES = 600;
/** The run state machine checks progress once a minute in the deployed stack. */
const POLL_SECONDS = 60;

function dirBytes(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    total += entry.isDirectory() ? dirBytes(full) : statSync(full).size;
  }
  return total;
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(2)} MB`;
const usd = (v: number) => `$${v.toFixed(5)}`;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

const say = (line = '') => {
  if (!JSON_OUT) console.log(line);
};

function table(rows: string[][]): void {
  if (JSON_OUT) return;
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  for (const [n, r] of rows.entries()) {
    console.log(r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  '));
    if (n === 0) console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  }
}

// ---- bundles and cold starts
const synth = synthApp();
const assetOf = new Map<StageName, string>();
for (const [logicalId, r] of Object.entries(synth.template.Resources) as Array<[string, { Type: string; Properties: { Code?: { S3Key?: string } } }]>) {
  const stage = STAGES.find((name) => logicalId.startsWith(`CrawlerStages${name.replace(/-/g, '')}`));
  // The asset's hash names both the uploaded zip and the bundle folder in the cloud assembly.
  const hash = r.Properties.Code?.S3Key?.replace(/\.zip$/, '');
  if (r.Type === 'AWS::Lambda::Function' && stage && hash) assetOf.set(stage, join(synth.outdir, `asset.${hash}`));
}
// Cold imports run from a folder inside the repository, so `@aws-sdk/*` (external: the Lambda runtime ships it) resolves.
const coldDir = join(ROOT, '.bench-data', 'cold');
rmSync(coldDir, { recursive: true, force: true });
const bundleRows: string[][] = [['function', 'bundle (unzipped)', 'of 250 MB', 'cold import (median of 5)']];
for (const stage of JSON_OUT || TRACE_FILE ? [] : STAGES) {
  const asset = assetOf.get(stage);
  if (!asset) throw new Error(`no bundle found for ${stage} in the synthesized template`);
  const bytes = dirBytes(asset);
  const dir = join(coldDir, stage);
  mkdirSync(dir, { recursive: true });
  cpSync(asset, dir, { recursive: true });
  const times = Array.from({ length: 5 }, () =>
    Number(
      execFileSync(process.execPath, [
        '--input-type=module',
        '-e',
        `const t = performance.now(); await import(${JSON.stringify(join(dir, 'index.mjs'))}); console.log(performance.now() - t);`,
      ])
        .toString()
        .trim(),
    ),
  );
  bundleRows.push([stage, mb(bytes), `${((bytes / LAMBDA_UNZIPPED_LIMIT) * 100).toFixed(2)} %`, `${median(times).toFixed(0)} ms`]);
}
rmSync(coldDir, { recursive: true, force: true });
say('\nLambda bundles (esbuild, ESM, minified; @aws-sdk/* from the nodejs24.x runtime)\n');
table(bundleRows);

// ---- a crawl through the cloud path, on an open web
// 1,200 hosts of power-law sizes whose pages link to BENCH_OWN_LINKS pages of their own host and
// BENCH_OTHER_LINKS of others (most of them never fetched under the budget), answers 0.2–2 s apart
// (compressed twenty-fold on loopback; the internet's time is added back to the fetch worker's
// duration below), some hosts slow, failing or gone. The crawl starts from BENCH_SEEDS front pages.
const OWN_LINKS = Number(process.env.BENCH_OWN_LINKS ?? OPEN_WEB_DEFAULTS.ownLinks);
const OTHER_LINKS = Number(process.env.BENCH_OTHER_LINKS ?? OPEN_WEB_DEFAULTS.otherLinks);
const LINKS = OWN_LINKS + OTHER_LINKS;
const MAX_PAGES = Number(process.env.BENCH_PAGES ?? 1000);
const SEEDS = Number(process.env.BENCH_SEEDS ?? 150);
const DELAY_MS = Number(process.env.BENCH_DELAY_MS ?? 1000);
const TEXT_FOLD_CHANGES = Number(process.env.BENCH_TEXT_FOLD_CHANGES ?? 100);
// Each run's end checks this many records and vectors against each other (the construct's default
// is 20,000): the trace then shows a check's slice, as a table larger than that has, not the whole table.
process.env.TRAWL_INTEGRITY_SLICE ??= String(Number(process.env.BENCH_INTEGRITY_SLICE ?? 100));
const emu = await startEmulators();
const web = await startOpenWeb({ ownLinks: OWN_LINKS, otherLinks: OTHER_LINKS });
const names = await emu.provision('bench');
const meter = startCostMeter();
// AWS's limits at the SDK boundary, at their real size: what throttled on the way is in the trace.
const quota = new QuotaLayer(quotaOptionsOf(synth.template as never, STAGES, 1));
quota.install();
const crawl = await cloudCrawl(
  emu,
  synth,
  names,
  {
    crawl: 'bench',
    seeds: web.seeds().slice(0, SEEDS),
    settings: { allowPrivateNetwork: true, delayMs: DELAY_MS, backoffBaseMs: 200, maxRps: 0, maxHostFailures: 4, maxPages: MAX_PAGES, timeoutMs: 5000 },
  },
  // The run loop folds the text log every TEXT_FOLD_CHANGES changes (the construct's default is
  // 1,000): a run of a few hundred pages then folds as a long run does, so the trace shows what a
  // fold reads at its bound and not the whole run.
  // Two page workflows at a time, one a core: a step's measured time is its own, as in its own Lambda.
  { workers: 4, pollMs: 200, timeoutMs: 1_800_000, textRebuildLogEntries: TEXT_FOLD_CHANGES, quota, pageConcurrency: 2 },
);
quota.uninstall();
const pages = Number(crawl.output.pagesStored);
const requests = Number(crawl.output.requests);
await web.close();
const throttles = Object.values(quota.report.throttles).reduce((a, b) => a + b, 0);

// ---- the cost model
const per1000 = (v: number) => (v / pages) * 1000;
const template = synth.template as { Resources: Record<string, { Type: string; Properties: Record<string, unknown> }> };
const expressLogging = Object.values(template.Resources).find(
  (r) => r.Type === 'AWS::StepFunctions::StateMachine' && r.Properties.StateMachineType === 'EXPRESS',
)?.Properties.LoggingConfiguration as { Level?: string; IncludeExecutionData?: boolean } | undefined;
if (expressLogging?.Level !== 'ERROR' || expressLogging.IncludeExecutionData)
  throw new Error(`the meter prices the page workflow's logs at level ERROR without execution data; the template says ${JSON.stringify(expressLogging)}`);

const lambdaTrace: Record<string, { invocations: number; seconds: number; maxInvocationSeconds: number; memoryMb: number }> = {};
const lambdaRows: string[][] = [['stage', 'invocations', 'median ms', 'AWS round trips ms (sum)', '+ web ms', 'GB-s', 'log KB', 'cost / 1000 pages']];
let lambdaCost = 0;
let invocations = 0;
let logBytes = 0;
let expressMs = 0;
const PAGE_STAGES = new Set(['extract-page', 'render-page', 'record-failure', 'summarize-page', 'index-page']);
// The harness checks progress every 200 ms to end quickly; the stack checks once a minute, so
// Progress is priced at the deployed rate: its measured invocations scaled to one a minute.
const polls = Math.ceil(crawl.elapsedMs / 1000 / POLL_SECONDS);
const scaleOf = (stage: StageName, n: number) => (stage === 'run-progress' && n > 0 ? polls / n : 1);
for (const stage of STAGES) {
  const measuredMs = crawl.timings.byFunction.get(stage) ?? [];
  const scale = scaleOf(stage, measuredMs.length);
  const ms = scale === 1 ? measuredMs : measuredMs.slice(0, polls);
  const raw = meter.usage(stage);
  const u = { ...raw, networkMs: raw.networkMs * scale, logBytes: raw.logBytes * scale };
  for (const k of ['dynamoWriteUnits', 'dynamoReadUnits', 's3Put', 's3Get', 'sqsRequests'] as const) raw[k] *= scale;
  // The meter held each AWS call for its round trip, so the measured durations include it; the web is loopback, so a fetch's time on the internet is added.
  // The turns of an invocation wait for their hosts at once: a batch adds its slowest answer (less what loopback served).
  const web = stage === 'fetch-worker' ? (requests / FETCH_BATCH) * expectedSlowestMs(FETCH_BATCH) * (1 - 1 / OPEN_WEB_DEFAULTS.compression) : 0;
  const seconds = (ms.reduce((a, b) => a + b, 0) + web) / 1000;
  if (PAGE_STAGES.has(stage)) expressMs += seconds * 1000;
  const gbSeconds = seconds * (MEMORY[stage] / 1024);
  lambdaTrace[stage] = { invocations: ms.length, seconds, maxInvocationSeconds: Math.max(0, ...ms) / 1000, memoryMb: MEMORY[stage] };
  invocations += ms.length;
  const cost = ms.length * PRICE.lambdaRequest + gbSeconds * PRICE.lambdaGbSecondArm;
  logBytes += u.logBytes + ms.length * PLATFORM_LOG_BYTES;
  lambdaCost += cost;
  lambdaRows.push([
    stage,
    String(ms.length),
    median(ms).toFixed(1),
    u.networkMs.toFixed(0),
    web.toFixed(0),
    gbSeconds.toFixed(2),
    ((u.logBytes + ms.length * PLATFORM_LOG_BYTES) / 1024).toFixed(1),
    usd(per1000(cost)),
  ]);
}
const used = meter.total();
const fetchInvocations = crawl.timings.byFunction.get('fetch-worker')?.length ?? 0;
// The event source mapping receives each batch (up to ten turns) and deletes what the worker did not hand back in one batch call.
const sqsRequests = used.sqsRequests + 2 * fetchInvocations;
const failedExecutions = crawl.timings.byFunction.get('record-failure')?.length ?? 0;
const expressLogBytes = failedExecutions * EXPRESS_ERROR_LOG_BYTES;
// The run machine polls once a minute: a run this long has this many Wait/Progress/Choice rounds.
const transitions = 4 + 3 * Math.ceil(crawl.elapsedMs / 1000 / POLL_SECONDS);
const pageTracing = Object.values(template.Resources).some(
  (r) =>
    r.Type === 'AWS::StepFunctions::StateMachine' &&
    r.Properties.StateMachineType === 'EXPRESS' &&
    (r.Properties.TracingConfiguration as { Enabled?: boolean } | undefined)?.Enabled,
);
// X-Ray's default rule samples the first request each second and 5 % of the rest; the run machine's one trace a run is left out.
const traces = pageTracing ? crawl.pageExecutions * Math.min(1, (1 + 0.05 * Math.max(0, PAGES_PER_SECOND - 1)) / PAGES_PER_SECOND) : 0;
const parts = {
  lambda: lambdaCost,
  sqs: sqsRequests * PRICE.sqsFifoRequest,
  dynamodb: used.dynamoWriteUnits * PRICE.dynamoWriteUnit + used.dynamoReadUnits * PRICE.dynamoReadUnit,
  s3: used.s3Put * PRICE.s3Put + used.s3Get * PRICE.s3Get,
  stepFunctionsStandard: transitions * PRICE.sfnStandardTransition,
  // Express bills each execution's duration in 100 ms steps at 64 MB: on average half a step more than it ran.
  stepFunctionsExpress:
    crawl.pageExecutions * PRICE.sfnExpressRequest + ((expressMs + crawl.pageExecutions * 50) / 1000) * (64 / 1024) * PRICE.sfnExpressGbSecond,
  logs: ((logBytes + expressLogBytes) / 1024 ** 3) * PRICE.logsIngestedGb,
  xray: traces * PRICE.xrayTrace,
};
const total = Object.values(parts).reduce((a, b) => a + b, 0);

// What the crawl left stored: every item of the table by bytes, and the frontier's URLs (fetched or
// not: URL items, and URLs still waiting in their page's batch).
let dynamoBytes = 0;
let urlItems = 0;
let start: Record<string, unknown> | undefined;
do {
  const res = await emu.clients.doc.send(new ScanCommand({ TableName: names.table, ExclusiveStartKey: start }));
  for (const item of res.Items ?? []) dynamoBytes += Buffer.byteLength(JSON.stringify(item));
  urlItems += frontierUrlCount(res.Items ?? []);
  start = res.LastEvaluatedKey;
} while (start);
const urlItemsPerPage = urlItems / pages;

if (TRACE_FILE) {
  // The bucket as the run left it (its end compacted the WARC objects and deleted the small ones).
  let s3Bytes = 0;
  const objectsByPrefix: Record<string, number> = {};
  let token: string | undefined;
  do {
    const res = await emu.clients.s3.send(new ListObjectsV2Command({ Bucket: names.bucket, ContinuationToken: token }));
    for (const o of res.Contents ?? []) {
      s3Bytes += o.Size ?? 0;
      const prefix = o.Key!.split('/')[0]!;
      objectsByPrefix[prefix] = (objectsByPrefix[prefix] ?? 0) + 1;
    }
    token = res.NextContinuationToken;
  } while (token);
  const searchDeployed = Object.values(template.Resources).some(
    (r) => r.Type === 'AWS::S3Vectors::VectorBucket' || /RebuildText/.test(JSON.stringify(r.Properties.DefinitionString ?? '')),
  );
  const trace = {
    pages,
    requests,
    elapsedMs: crawl.elapsedMs,
    workers: 4,
    delayMs: DELAY_MS,
    web: 'open',
    hosts: web.hosts.length,
    seeds: SEEDS,
    urlItemsPerPage,
    throttles,
    linksPerPage: LINKS,
    webFetchMs: expectedSlowestMs(FETCH_BATCH) / FETCH_BATCH,
    usdPer1kPages: per1000(total),
    parts: Object.fromEntries(Object.entries(parts).map(([k, v]) => [k, per1000(v)])),
    lambda: lambdaTrace,
    pageExecutions: crawl.pageExecutions,
    sqsRequests,
    s3: { puts: used.s3Put, gets: used.s3Get, putsByPrefix: Object.fromEntries(meter.s3PutsByPrefix), objectsByPrefix },
    storage: { dynamoBytes, s3Bytes },
    runMachine: {
      eventsPerPoll: searchDeployed ? EVENTS_PER_POLL_WITH_TEXT_REBUILD : EVENTS_PER_POLL,
      historyEvents: STANDARD_HISTORY_EVENTS,
      finalizeEvents: FINALIZE_EVENTS,
      pollSeconds: POLL_SECONDS,
    },
    // Progress's units at the deployed rate (once a minute), as its cost above.
    partitions: [...meter.partitions.values()].map(({ keys, byFunction, keyWrites, ...p }) => {
      const scaled = (field: 'writeUnits' | 'readUnits') =>
        [...byFunction].reduce(
          (n, [fn, u]) =>
            n + u[field] * (STAGES.includes(fn as StageName) ? scaleOf(fn as StageName, crawl.timings.byFunction.get(fn as StageName)?.length ?? 0) : 1),
          0,
        );
      // The hottest key's share of the pattern's writes: a key it cannot spread (a big host's queue) meets a partition's limit first.
      const hottestWriteShare = p.writeUnits > 0 ? Math.max(0, ...keyWrites.values()) / p.writeUnits : 0;
      return { ...p, writeUnits: scaled('writeUnits'), readUnits: scaled('readUnits'), distinct: keys.size, hottestWriteShare };
    }),
    reads: [...meter.reads.values()],
  };
  mkdirSync(dirname(TRACE_FILE), { recursive: true });
  writeFileSync(TRACE_FILE, `${JSON.stringify(trace, null, 1)}\n`);
  say(`\ntrace written to ${TRACE_FILE}`);
}

if (JSON_OUT) {
  const rounded = (v: number) => Number(per1000(v).toFixed(5));
  console.log(
    JSON.stringify({
      usdPer1kPages: rounded(total),
      parts: Object.fromEntries(Object.entries(parts).map(([k, v]) => [k, rounded(v)])),
      pages,
      requests,
      linksPerPage: LINKS,
      web: 'open',
      hosts: web.hosts.length,
      urlItemsPerPage: Number(urlItemsPerPage.toFixed(2)),
      throttles,
      delayMs: DELAY_MS,
      dynamodb: { writeUnitsPerPage: used.dynamoWriteUnits / pages, readUnitsPerPage: used.dynamoReadUnits / pages },
      s3: { putsPerPage: used.s3Put / pages, getsPerPage: used.s3Get / pages },
      sqsRequestsPerPage: sqsRequests / pages,
    }),
  );
} else {
  say(
    `\nCrawl through the cloud path on an open web of ${web.hosts.length} hosts from ${SEEDS} seeds: ${pages} pages stored (${LINKS} links a page), ${urlItems} URLs in the frontier (${urlItemsPerPage.toFixed(1)} a page, most never fetched), ${requests} requests, ${throttles} throttles, ${(crawl.elapsedMs / 1000).toFixed(1)} s on 4 workers, ${DELAY_MS} ms per-host delay\n`,
  );
  table(lambdaRows);
  say('');
  const kinds = [...meter.writeUnitsByKind].sort((a, b) => b[1].table + b[1].index - (a[1].table + a[1].index));
  table([
    ['DynamoDB item kind', 'writes / page', 'table WCU / page', 'index WCU / page'],
    ...kinds
      .filter(([, k]) => (k.table + k.index) / pages >= 0.05)
      .map(([kind, k]) => [kind, (k.writes / pages).toFixed(2), (k.table / pages).toFixed(2), (k.index / pages).toFixed(2)]),
  ]);
  say('');
  const measured: Record<keyof typeof parts, string> = {
    lambda: `${invocations} invocations (Progress once a minute)`,
    sqs: `${sqsRequests.toFixed(0)} requests (${used.sqsRequests.toFixed(0)} sent by handlers)`,
    dynamodb: `${used.dynamoWriteUnits.toFixed(0)} WRU, ${used.dynamoReadUnits.toFixed(0)} RRU`,
    s3: `${used.s3Put} PUT/LIST (${[...meter.s3PutsByPrefix].map(([k, n]) => `${k} ${(n / pages).toFixed(2)}`).join(', ')} a page), ${used.s3Get} GET`,
    stepFunctionsStandard: `${transitions} transitions (60 s polling)`,
    stepFunctionsExpress: `${crawl.pageExecutions} executions, ${(expressMs / 1000).toFixed(1)} s`,
    logs: `${((logBytes + expressLogBytes) / 1024).toFixed(0)} KB`,
    xray: pageTracing ? `${traces.toFixed(0)} traces at ${PAGES_PER_SECOND} pages/s` : 'page workflows not traced (tracePages: false)',
  };
  table([
    ['service', 'measured', 'cost / 1000 pages'],
    ...(Object.keys(parts) as Array<keyof typeof parts>).map((k) => [k, measured[k], usd(per1000(parts[k]))]),
    ['total', '', usd(per1000(total))],
  ]);
  say(
    `\nTarget: ≤ $0.05 per 1000 pages on the open web, the URLs never fetched included. Excluded: storage (S3, DynamoDB, per month), data transfer out, the event source mapping's idle polling (a fixed ~$0.01 a day).`,
  );
}
await emu.stop();
synth.cleanup();
