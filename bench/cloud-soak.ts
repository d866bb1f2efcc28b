// npm run bench:cloud-soak: a run of 10⁴ and one of 10⁵ URLs, written through the DynamoDB store on
// the emulators (inserted, then nine in ten committed done or failed), go through what reads a
// running or ended run: the summary, Progress's check, `/metrics`, `GET /crawls/{id}` and the
// run's end as the run machine takes it (FinalizeStart, each shard's collect steps, the ranking
// steps a shard each, then FinalizeRun). Prints each step's time, DynamoDB requests and peak heap
// above its start at each size (for a step run once a shard or a chunk: its largest invocation),
// and the ratio between sizes: a step that reads the whole run grows with it, one that reads
// counters or a bounded chunk stays flat. Sizes as arguments: `-- 10000 100000`. `--json` prints one line.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { awsClients, type AwsEndpoints } from '../shared/store/aws/clients.js';
import { DynamoCrawlStore } from '../shared/store/aws/dynamo-store.js';
import { DynamoEnrichStore } from '../shared/store/aws/dynamo-enrich.js';
import { DynamoGraph } from '../shared/store/aws/dynamo-graph.js';
import { S3BlobStore, S3Objects } from '../shared/store/aws/s3-store.js';
import { SqsFrontier } from '../shared/store/aws/sqs-frontier.js';
import { createLogger } from '../shared/log/logger.js';
import { ApiMetrics } from '../shared/api/metrics.js';
import { ApiCrawls, apiCrawlName } from '../shared/pipeline/cloud/api-crawls.js';
import { finalizeRun, progressStage, type RunState } from '../shared/pipeline/cloud/run-control.js';
import { finalizeStart, finalizeStep, type FinalizeDeps, type FinalizeEvent, type FinalizePlan } from '../shared/pipeline/cloud/run-finalize.js';
import type { CloudDeps } from '../shared/pipeline/cloud/cloud-context.js';
import type { FetchCommit, FrontierRow, WorkflowExecution, WorkflowRunner } from '../shared/ports/index.js';
import { machine, publish, today } from './report.js';

const json = process.argv.includes('--json');
const sizes = process.argv
  .slice(2)
  .map(Number)
  .filter((n) => n > 0);

const child = spawn(process.execPath, ['--import', 'tsx', 'bench/emulator-child.ts', 'soak'], { stdio: ['pipe', 'pipe', 'inherit'] });
const first = await new Promise<string>((resolve) => createInterface({ input: child.stdout! }).once('line', resolve));
const { endpoints, names } = JSON.parse(first) as { endpoints: AwsEndpoints; names: { table: string; bucket: string; queueUrl: string } };
const clients = awsClients(endpoints);
let requests = 0;
// Time with a DynamoDB request in flight is the emulator's, which can grow with its table; a step's
// own time is its time without it.
let inFlight = 0;
let busySince = 0;
let busyMs = 0;
for (const client of [clients.dynamo])
  client.middlewareStack.add(
    (next) => async (args) => {
      requests++;
      if (inFlight++ === 0) busySince = performance.now();
      try {
        return await next(args);
      } finally {
        if (--inFlight === 0) busyMs += performance.now() - busySince;
      }
    },
    { step: 'initialize' },
  );
const objects = new S3Objects(clients.s3, names.bucket);
const blobs = new S3BlobStore(objects);
const store = new DynamoCrawlStore(clients.doc, names.table, { blobs });
const enrich = new DynamoEnrichStore(clients.doc, names.table, blobs, objects, 0);
const graph = new DynamoGraph(clients.doc, names.table);
const deps: CloudDeps & FinalizeDeps & { graph: DynamoGraph } = {
  store,
  blobs,
  objects,
  frontier: new SqsFrontier(clients.sqs, names.queueUrl),
  logger: createLogger('silent'),
  graph,
  ranks: graph,
  urls: store,
};

/** A run machine whose executions are running: what `GET /crawls/{id}` asks the run machine. */
class Running implements WorkflowRunner {
  async start(): Promise<void> {}
  async describe(): Promise<WorkflowExecution> {
    return { status: 'RUNNING', startedAt: Date.now() } as WorkflowExecution;
  }
}

interface Step {
  ms: number;
  /** Its time without a DynamoDB request in flight. */
  ownMs: number;
  requests: number;
  peakHeapMb: number;
}

/** Runs one step, sampling the heap every 2 ms: its time, its DynamoDB requests and its peak heap above the start. */
async function measure(fn: () => Promise<unknown>): Promise<Step> {
  (globalThis as { gc?: () => void }).gc?.();
  const base = process.memoryUsage().heapUsed;
  let peak = base;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().heapUsed)), 2);
  const before = requests;
  const busyBefore = busyMs;
  const started = performance.now();
  await fn();
  const ms = performance.now() - started;
  clearInterval(timer);
  peak = Math.max(peak, process.memoryUsage().heapUsed);
  return {
    ms: Math.round(ms),
    ownMs: Math.round(ms - (busyMs - busyBefore)),
    requests: requests - before,
    peakHeapMb: Math.round(((peak - base) / 2 ** 20) * 10) / 10,
  };
}

const id = (run: number, i: number) => `${run.toString(16)}${i.toString(16).padStart(24, '0')}`;

const STEPS = ['summary', 'progress', 'metrics', 'getCrawl', 'finalizeStart', 'collect', 'rankSteps', 'finalizeEnd'] as const;
type Soak = Record<(typeof STEPS)[number], Step> & { writeSeconds: number };
/** The steps as the manual names them. */
const STEP_NAMES: Record<(typeof STEPS)[number], string> = {
  summary: "the run's summary",
  progress: "Progress's check",
  metrics: '`/metrics`',
  getCrawl: '`GET /crawls/{id}`',
  finalizeStart: 'FinalizeStart',
  collect: "a collect step (the largest of the run's)",
  rankSteps: 'a ranking step (gather, link, degrees, a round, RankCheck, write: the largest)',
  finalizeEnd: 'FinalizeRun after them',
};

async function soak(n: number): Promise<Soak> {
  const job = `soak-${n}`;
  const run = await store.createRun(['https://site0.example/'], { crawl: apiCrawlName(job), maxPages: n * 2 }, Date.now());
  const written = performance.now();
  const row = (i: number): FrontierRow => ({
    runId: run.id,
    urlId: id(run.id, i),
    url: `https://site${i % 200}.example/p/${i}`,
    host: `site${i % 200}.example`,
    depth: 1,
    priority: 0,
    kind: 'page',
    state: 'queued',
    inlinks: 0,
    fresh: true,
    redirects: 0,
    attempts: 0,
    notBefore: 0,
  });
  for (let lo = 0; lo < n; lo += 1_000) await store.addUrls(Array.from({ length: Math.min(1_000, n - lo) }, (_, k) => row(lo + k)));
  // Nine in ten settle (done, one in ten of those failed); the rest stay queued, as at a deadline.
  const commits: FetchCommit[] = [];
  for (let i = 0; i < n; i++) if (i % 10 !== 0) commits.push({ runId: run.id, urlId: id(run.id, i), state: i % 10 === 1 ? 'failed' : 'done', attempts: 1 });
  for (let lo = 0; lo < commits.length; lo += 200) await Promise.all(commits.slice(lo, lo + 200).map((c) => store.commitFetch(c)));
  const writeSeconds = Math.round((performance.now() - written) / 100) / 10;
  const state: RunState = { runId: run.id, crawl: apiCrawlName(job), deadline: Date.now() + 3_600_000, maxPages: n * 2 };
  const metrics = new ApiMetrics();
  const crawls = new ApiCrawls({ store, runs: new Running(), defaults: {} });
  return {
    writeSeconds,
    summary: await measure(() => store.summary(run.id)),
    progress: await measure(() => progressStage(deps, state)),
    metrics: await measure(() => metrics.render(store, enrich)),
    getCrawl: await measure(() => crawls.get(job)),
    ...(await end(n, state)),
  };
}

/** The largest of several invocations of one step. */
function largest(steps: Step[]): Step {
  return {
    ms: Math.max(0, ...steps.map((s) => s.ms)),
    ownMs: Math.max(0, ...steps.map((s) => s.ownMs)),
    requests: Math.max(0, ...steps.map((s) => s.requests)),
    peakHeapMb: Math.max(0, ...steps.map((s) => s.peakHeapMb)),
  };
}

/** The run's end, step by step as the run machine's states call them. */
async function end(n: number, state: RunState): Promise<Pick<Soak, 'finalizeStart' | 'collect' | 'rankSteps' | 'finalizeEnd'>> {
  const ending = { ...state, enqueued: n, settled: 0, pages: 0, lastSettled: 0, stalledChecks: 0, resent: 0, done: true, reason: 'deadline' as const };
  let plan: FinalizePlan | undefined;
  // Ended as a large run is (the soak's URLs have no stored pages, so any threshold would rank it alone).
  const finalizeStartStep = await measure(async () => (plan = await finalizeStart(deps, ending, { spreadPages: -1 })));
  const collects: Step[] = [];
  const counts: number[] = [];
  for (const shard of plan!.shards) {
    let event: FinalizeEvent & { action: 'collect' } = { action: 'collect', runId: state.runId, shard };
    for (;;) {
      let next: typeof event | undefined;
      collects.push(await measure(async () => (next = (await finalizeStep(deps, event)) as typeof event)));
      event = next!;
      if (!event.cursor) break;
    }
    counts.push(event.base ?? 0);
  }
  const ranking: Step[] = [];
  for (const action of ['gather', 'link', 'degrees'] as const)
    for (const shard of plan!.shards) ranking.push(await measure(() => finalizeStep(deps, { action, runId: state.runId, shard, counts })));
  let finalize: FinalizePlan & { collected: { counts: number[] } } = { ...plan!, collected: { counts } };
  for (;;) {
    ranking.push(
      await measure(
        async () =>
          (finalize = { ...((await finalizeStep(deps, { action: 'rank-check', runId: state.runId, finalize })) as FinalizePlan), collected: { counts } }),
      ),
    );
    if (finalize.done) break;
    const deltas: number[] = [];
    for (const shard of plan!.shards)
      ranking.push(
        await measure(async () =>
          deltas.push((await finalizeStep(deps, { action: 'rank', runId: state.runId, shard, round: finalize.round, counts })) as number),
        ),
      );
    finalize = { ...finalize, deltas };
  }
  for (const shard of plan!.shards)
    ranking.push(await measure(() => finalizeStep(deps, { action: 'write', runId: state.runId, shard, round: finalize.round, counts })));
  return {
    finalizeStart: finalizeStartStep,
    collect: largest(collects),
    rankSteps: largest(ranking),
    finalizeEnd: await measure(() => finalizeRun(deps, { ...ending, finalize })),
  };
}

try {
  const results: Array<{ urls: number } & Soak> = [];
  for (const n of sizes.length ? sizes : [10_000, 100_000]) results.push({ urls: n, ...(await soak(n)) });
  const steps = STEPS;
  const [small, large] = [results[0]!, results.at(-1)!];
  const growth = Object.fromEntries(
    steps.map((s) => [
      s,
      {
        time: +(large[s].ms / Math.max(1, small[s].ms)).toFixed(2),
        own: +(large[s].ownMs / Math.max(1, small[s].ownMs)).toFixed(2),
        requests: +(large[s].requests / Math.max(1, small[s].requests)).toFixed(2),
      },
    ]),
  );
  const cellOf = (st: Step) => `${Math.round(st.ms)} ms (own ${st.ownMs} ms), ${st.requests} requests, +${st.peakHeapMb} MB`;
  publish({
    bench: 'cloud-soak',
    command: `npm run bench:cloud-soak -- ${results.map((r) => r.urls).join(' ')}`,
    machine: machine(),
    measured: today(),
    tables: [
      {
        columns: ['step', ...results.map((r) => `${r.urls.toLocaleString('en')} URLs`), 'growth (time, own time, requests)'],
        rows: steps.map((s) => [STEP_NAMES[s], ...results.map((r) => cellOf(r[s])), `×${growth[s]!.time}, ×${growth[s]!.own}, ×${growth[s]!.requests}`]),
      },
    ],
  });
  if (json) console.log(JSON.stringify({ results, growth }));
  else {
    for (const r of results) {
      console.log(`${r.urls.toLocaleString('en')} URLs (written through the store in ${r.writeSeconds} s):`);
      for (const s of steps)
        console.log(
          `  ${s.padEnd(9)} ${String(r[s].ms).padStart(7)} ms (own ${r[s].ownMs} ms)  ${String(r[s].requests).padStart(7)} DynamoDB requests  peak heap +${r[s].peakHeapMb} MB`,
        );
    }
    console.log(`from ${small.urls.toLocaleString('en')} to ${large.urls.toLocaleString('en')} URLs, each step's time and requests grew by:`);
    for (const s of steps) console.log(`  ${s.padEnd(9)} time ×${growth[s]!.time}  own time ×${growth[s]!.own}  requests ×${growth[s]!.requests}`);
  }
} finally {
  child.stdin!.end();
}
