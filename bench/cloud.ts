// npm run bench:cloud — the Lambda bundles (size against the 250 MB unzipped limit), each
// handler's cold-start import time in Node, and the cost of 1,000 pages at AWS list prices,
// from the handler durations and request counts of a crawl through the cloud path on emulators.
import { cpSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { DEFAULT_SIZING } from '../lib/crawler.js';
import { STAGES, ROOT, type StageName } from '../lib/stages.js';
import { startEmulators } from '../test/cloud/emulators.js';
import { cloudCrawl } from '../test/cloud/harness.js';
import { synthApp } from '../test/lib/synth.js';
import { startWeb } from '../test/web/server.js';

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
};
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

function table(rows: string[][]): void {
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
for (const stage of STAGES) {
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
console.log('\nLambda bundles (esbuild, ESM, minified; @aws-sdk/* from the nodejs24.x runtime)\n');
table(bundleRows);

// ---- a crawl through the cloud path
const emu = await startEmulators();
const web = await startWeb({ articles: Number(process.env.BENCH_ARTICLES ?? 40), blogHosts: 3, crawlDelaySeconds: 0.3 });
const names = await emu.provision('bench');
emu.meter.reset();
const crawl = await cloudCrawl(
  emu,
  synth,
  names,
  {
    crawl: 'bench',
    seeds: web.seeds(),
    settings: { allowPrivateNetwork: true, delayMs: 50, backoffBaseMs: 200, maxRps: 0, maxHostFailures: 4 },
  },
  { workers: 4, pollMs: 200, timeoutMs: 600_000 },
);
const pages = Number(crawl.output.pagesStored);
const requests = Number(crawl.output.requests);
await web.close();

// ---- the cost model
const per1000 = (v: number) => (v / pages) * 1000;
const lambdaRows: string[][] = [['stage', 'invocations', 'median ms', 'total s', 'memory', 'cost / 1000 pages']];
let lambdaCost = 0;
let fetchSeconds = 0;
for (const stage of STAGES) {
  const ms = crawl.timings.byFunction.get(stage) ?? [];
  const seconds = ms.reduce((a, b) => a + b, 0) / 1000;
  if (stage === 'fetch-worker') fetchSeconds = seconds;
  const cost = ms.length * PRICE.lambdaRequest + seconds * (MEMORY[stage] / 1024) * PRICE.lambdaGbSecondArm;
  lambdaCost += cost;
  lambdaRows.push([stage, String(ms.length), median(ms).toFixed(1), seconds.toFixed(2), `${MEMORY[stage]} MB`, usd(per1000(cost))]);
}
const sqsRequests = [...emu.meter.requests].filter(([k]) => k.startsWith('sqs:')).reduce((n, [, v]) => n + v, 0);
const s3Puts = emu.meter.requests.get('s3:PUT') ?? 0;
const s3Gets = emu.meter.requests.get('s3:GET') ?? 0;
const extractMs = crawl.timings.byFunction.get('extract-page') ?? [];
// The run machine in the stack polls once a minute: a run that took this long has this many Wait/Progress/Choice rounds.
const transitions = 4 + 3 * Math.ceil(crawl.elapsedMs / 1000 / POLL_SECONDS);
const costs: Array<[string, string, number]> = [
  ['Lambda (requests + arm64 GB-s)', `${[...crawl.timings.byFunction.values()].reduce((n, l) => n + l.length, 0)} invocations`, lambdaCost],
  ['SQS FIFO', `${sqsRequests} requests`, sqsRequests * PRICE.sqsFifoRequest],
  [
    'DynamoDB on-demand',
    `${emu.meter.writeUnits} WRU, ${emu.meter.readUnits} RRU`,
    emu.meter.writeUnits * PRICE.dynamoWriteUnit + emu.meter.readUnits * PRICE.dynamoReadUnit,
  ],
  ['S3 requests', `${s3Puts} PUT, ${s3Gets} GET`, s3Puts * PRICE.s3Put + s3Gets * PRICE.s3Get],
  ['Step Functions Standard', `${transitions} transitions (60 s polling)`, transitions * PRICE.sfnStandardTransition],
  [
    'Step Functions Express',
    `${crawl.pageExecutions} executions`,
    crawl.pageExecutions * PRICE.sfnExpressRequest + (extractMs.reduce((a, b) => a + b, 0) / 1000) * (64 / 1024) * PRICE.sfnExpressGbSecond,
  ],
];
console.log(`\nCrawl through the cloud path: ${pages} pages stored, ${requests} requests, ${(crawl.elapsedMs / 1000).toFixed(1)} s on ${4} workers\n`);
table(lambdaRows);
console.log('');
const total = costs.reduce((n, [, , c]) => n + c, 0);
table([['service', 'measured', 'cost / 1000 pages'], ...costs.map(([s, m, c]) => [s, m, usd(per1000(c))]), ['total', '', usd(per1000(total))]]);
// Politeness is waited in the fetch worker: a 1 s host delay adds up to 1 s per fetch (the test web used 50 ms).
const waitCost = per1000(requests * 0.95 * (MEMORY['fetch-worker'] / 1024) * PRICE.lambdaGbSecondArm);
console.log(
  `\nWith the default 1 s per-host delay waited in the fetch worker: + ${usd(waitCost)} → ${usd(per1000(total) + waitCost)} per 1000 pages (target ≤ $0.10)`,
);
console.log(`Excluded: storage (S3, DynamoDB), CloudWatch logs and metrics, data transfer. Fetch worker total ${fetchSeconds.toFixed(1)} s.`);
await emu.stop();
synth.cleanup();
