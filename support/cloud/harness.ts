// The cloud code path on emulators: the synthesized state machines run by aws-local-stepfunctions
// with every Lambda task mapped to its real handler, an SQS poller standing in for the event
// source mapping, and a StartExecution endpoint that runs the page workflow. Used by the e2e
// test and by `npm run bench:cloud`.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DeleteMessageCommand, ReceiveMessageCommand, type Message } from '@aws-sdk/client-sqs';
import type { SQSEvent } from 'aws-lambda';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { StateMachine } from 'aws-local-stepfunctions';
import { handler as extractPage } from '../../functions/extract-page/index.js';
import { handler as fetchWorker } from '../../functions/fetch-worker/index.js';
import { handler as finalizeRun } from '../../functions/finalize-run/index.js';
import { handler as initRun } from '../../functions/init-run/index.js';
import { handler as discoverTargets } from '../../functions/discover-targets/index.js';
import { handler as recordFailure } from '../../functions/record-failure/index.js';
import { handler as renderPage } from '../../functions/render-page/index.js';
import { handler as runProgress } from '../../functions/run-progress/index.js';
import { handler as summarizePage } from '../../functions/summarize-page/index.js';
import { handler as indexPage } from '../../functions/index-page/index.js';
import type { RunInput } from '../../shared/pipeline/cloud/run-control.js';
import { FRONTIER_QUEUE } from '../../shared/store/aws/frontier-queue.js';
import { ENV } from '../../shared/config/lambda-environment.js';
import type { Emulators } from './emulators.js';
import type { QuotaLayer } from './quota-layer.js';
import { stateMachines, synthApp, type Synthesized } from '../synth.js';
import { asFunction, checkCalls, recordSdkCalls, takeRecorded } from './iam.js';
import { callSearchApi } from './api-call.js';

recordSdkCalls();

// aws-local-stepfunctions 3.0 calls Promise.withResolvers (Node ≥ 22); Node 20 gets it here.
const P = Promise as unknown as { withResolvers?: () => { promise: Promise<unknown>; resolve: (v: unknown) => void; reject: (e: unknown) => void } };
P.withResolvers ??= () => {
  let resolve!: (v: unknown) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
};

/** A handler as a task override (the runner types its values as JSON). */
const task = <I, O>(fn: (input: I) => Promise<O>): never => fn as unknown as never;

/** Handler durations (ms) and invocation counts, per function: the cost model's input. */
export class Timings {
  readonly byFunction = new Map<string, number[]>();
  private invocations = 0;
  constructor(private readonly quota?: QuotaLayer) {}
  async time<T>(fn: string, body: () => Promise<T>): Promise<T> {
    const started = performance.now();
    // Lambda's limits on the invocation: its concurrency and its function's timeout.
    const ended = this.quota?.invoked(fn, ++this.invocations);
    try {
      // Every SDK call the handler makes is recorded under its function, for the IAM check.
      return await asFunction(fn, body);
    } finally {
      ended?.();
      const list = this.byFunction.get(fn) ?? [];
      list.push(performance.now() - started);
      this.byFunction.set(fn, list);
    }
  }
}

export interface CloudCrawl {
  output: Record<string, unknown>;
  timings: Timings;
  pageExecutions: number;
  progressChecks: number;
  /** Full-text generations the run loop rebuilt while the run went on (RebuildText). */
  textRebuilds: number;
  elapsedMs: number;
  /** The job's id, when the crawl was started through the search API's `POST /crawls`. */
  jobId?: string;
  /** Closes the Step Functions endpoint (kept up after a crawl started through the API, for the API's answers about it). */
  close(): Promise<void>;
}

export interface CloudCrawlOptions {
  /** Fetch workers polling at once (the event source mapping's concurrency). */
  workers: number;
  /** Milliseconds the run state machine waits between progress checks. */
  pollMs: number;
  /** Give up (and fail) after this long. */
  timeoutMs: number;
  /** Page workflows started for these URLs never run (as an Express execution that timed out before its Catch). */
  dropPageWorkflow?: (url: string) => boolean;
  /** The Progress handler throws on this check (1-based): the run machine's Catch must end the run. */
  failProgressAt?: number;
  /** The run's end fails twice (FinalizeStart, then FailRun): MarkRunFailed must still mark the run failed. */
  failEnd?: boolean;
  /** The fetch worker's claim on a URL (URL_LEASE_MS, as the construct sets it); short in a test that drops a page workflow. */
  urlLeaseMs?: number;
  /** How long a turn may go without being handed on before a stall's recovery gives its host a new one (TURN_STALE_MS); short in compressed time. */
  turnStaleMs?: number;
  /**
   * Start the run through the search API's `POST /crawls` (the template must enable `api.startCrawls`):
   * the seeds go in the request, the settings are the template's `api.startCrawls.settings`.
   */
  throughApi?: boolean;
  /**
   * Starts the run as the test's integrator does (a Firecrawl client, say) and returns its job id:
   * the crawl is that job's run (the template must enable `api.startCrawls`).
   */
  startWith?: () => Promise<string>;
  /** Runs beside the crawl once it started through the API (with its job id): a test's integrator. */
  whileRunning?: (jobId: string) => Promise<void>;
  /** Variables set over the emulators' environment (a provider's endpoint, say), as the template would set them. */
  environment?: Record<string, string>;
  /** Progress's bound on the full-text log (TEXT_REBUILD_LOG_ENTRIES) instead of the template's. */
  textRebuildLogEntries?: number;
  /** AWS's limits at the SDK boundary (installed by the caller), told of the invocations, the queue's deletes and the run's history. */
  quota?: QuotaLayer;
  /** The emulated event source takes nothing while this many page workflows are unfinished (extraction here shares one process's CPU). */
  maxPendingPages?: number;
  /** Page workflows running at once (the rest wait to start); unbounded by default. A bench bounds them so each step's time is its own. */
  pageConcurrency?: number;
  /** The emulated event source stops taking messages while this says so (a stall in the middle of a run). */
  paused?: () => boolean;
}

/** History events Step Functions writes for a state entered (a Task's scheduled, started, succeeded; a Wait's wait). */
const HISTORY_EVENTS: Partial<Record<string, number>> = { Task: 5, Wait: 3, Map: 4 };

/**
 * Counts an execution's history events as Step Functions would write them, and each Distributed Map
 * child's apart (a child is an execution of its own), from the local runner's event log.
 */
async function countHistory(
  events: AsyncGenerator<{ type: string; state?: { name: string; type: string }; index?: number }>,
  quota: QuotaLayer,
): Promise<void> {
  const counts = new Map<string, number>();
  const add = (key: string, n: number) => counts.set(key, (counts.get(key) ?? 0) + n);
  for await (const e of events) {
    const key = e.index === undefined ? 'execution' : `map child ${e.index} of ${e.state?.name.replace(/(More|Done)$/, '') ?? '?'}`;
    if (e.type === 'StateEntered') add(key, HISTORY_EVENTS[e.state?.type ?? ''] ?? 2);
    else if (e.type === 'StateRetried') add(key, 3);
    else if (e.type === 'StateFailed' || e.type === 'StateCaught' || e.type.startsWith('MapIteration')) add(key, 1);
  }
  for (const [key, n] of counts) quota.history(key, n);
}

/** Points the handlers at the emulators and the provisioned resources (they read the environment, as on Lambda). */
export function cloudEnvironment(
  emu: Emulators,
  names: { table: string; bucket: string; queueUrl: string; vectorBucket: string; vectorIndex: string },
  sfnEndpoint: string,
): void {
  Object.assign(process.env, {
    VECTOR_BUCKET_NAME: names.vectorBucket,
    VECTOR_INDEX_NAME: names.vectorIndex,
    AWS_ENDPOINT_URL_S3VECTORS: emu.endpoints.s3vectors,
    TRAWL_PROVIDER: 'local',
    TRAWL_EMBED_DIMENSION: '512',
    TABLE_NAME: names.table,
    BUCKET_NAME: names.bucket,
    QUEUE_URL: names.queueUrl,
    PAGE_WORKFLOW_ARN: 'arn:aws:states:us-east-1:123456789012:stateMachine:page',
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: emu.endpoints.credentials!.accessKeyId,
    AWS_SECRET_ACCESS_KEY: emu.endpoints.credentials!.secretAccessKey,
    AWS_ENDPOINT_URL_DYNAMODB: emu.endpoints.dynamodb,
    AWS_ENDPOINT_URL_S3: emu.endpoints.s3,
    AWS_ENDPOINT_URL_SQS: emu.endpoints.sqs,
    AWS_ENDPOINT_URL_SFN: sfnEndpoint,
    AWS_ENDPOINT_URL_EVENTBRIDGE: emu.endpoints.eventbridge,
    EVENT_BUS_NAME: `${names.table}-events`,
    POWERTOOLS_METRICS_DISABLED: 'true',
    POWERTOOLS_LOG_LEVEL: process.env.TRAWL_CLOUD_LOG_LEVEL ?? 'ERROR',
  });
}

/** A variable the template sets on the function whose logical id holds `idPart` (lower case), if it does. */
export function templateVariable(synth: Synthesized, idPart: string, name: string): unknown {
  const fn = Object.entries(synth.template.Resources).find(([id, r]) => r.Type === 'AWS::Lambda::Function' && id.toLowerCase().includes(idPart))?.[1];
  return (fn?.Properties.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables?.[name];
}

/** Progress's bound on the full-text log as the template sets it on the function (absent without search), or the test's. */
function progressEnvironment(synth: Synthesized, override: number | undefined): void {
  const bound = templateVariable(synth, 'runprogress', ENV.textRebuildLogEntries);
  if (typeof bound === 'string') process.env[ENV.textRebuildLogEntries] = String(override ?? bound);
  else delete process.env[ENV.textRebuildLogEntries];
}

/**
 * The search API's crawl settings as the template sets them (`api.startCrawls`), and the run
 * machine's ARN as the harness names it; neither when the template's API only reads.
 */
function apiCrawlEnvironment(synth: Synthesized): void {
  const settings = templateVariable(synth, 'searchapi', 'API_CRAWL_SETTINGS');
  if (typeof settings === 'string') Object.assign(process.env, { API_CRAWL_SETTINGS: settings, RUN_MACHINE_ARN });
  else {
    delete process.env.API_CRAWL_SETTINGS;
    delete process.env.RUN_MACHINE_ARN;
  }
}

/** The run state machine's ARN as the harness names it (`RUN_MACHINE_ARN`). */
export const RUN_MACHINE_ARN = 'arn:aws:states:us-east-1:123456789012:stateMachine:run';

/** Executions of the run machine started through the endpoint (by the search API's POST /crawls). */
interface RunMachine {
  start(name: string, input: RunInput): void;
  describe(name: string): Record<string, unknown> | undefined;
}

const amzJson = { 'content-type': 'application/x-amz-json-1.0' };

/**
 * A Step Functions endpoint (its JSON protocol): StartExecution of the page workflow runs it
 * locally; StartExecution and DescribeExecution of the run machine go to `runs`.
 */
async function stepFunctionsEndpoint(
  definition: Record<string, unknown>,
  timings: Timings,
  drop: ((url: string) => boolean) | undefined,
  runs: RunMachine,
  concurrency?: number,
): Promise<{ url: string; server: Server; pending: Set<Promise<unknown>>; started: () => number }> {
  const machine = new StateMachine(definition as never, { validationOptions: { noValidate: true } });
  const pending = new Set<Promise<unknown>>();
  let started = 0;
  // At most `concurrency` page workflows run at once (the rest wait their turn), so that a step's
  // measured time is its own and not the wait for a CPU shared by hundreds (the bench's billing).
  let running = 0;
  const waiting: Array<() => void> = [];
  const gate = async <T>(fn: () => Promise<T>): Promise<T> => {
    if (concurrency !== undefined && running >= concurrency) await new Promise<void>((r) => waiting.push(r));
    running++;
    try {
      return await fn();
    } finally {
      running--;
      waiting.shift()?.();
    }
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const target = req.headers['x-amz-target'];
      const body = JSON.parse(Buffer.concat(chunks).toString()) as { name: string; input: string; stateMachineArn?: string; executionArn?: string };
      if (target === 'AWSStepFunctions.DescribeExecution') {
        const found = runs.describe(String(body.executionArn).split(':').pop()!);
        if (found) res.writeHead(200, amzJson).end(JSON.stringify({ executionArn: body.executionArn, stateMachineArn: RUN_MACHINE_ARN, ...found }));
        else res.writeHead(400, amzJson).end(JSON.stringify({ __type: 'ExecutionDoesNotExist', message: `Execution Does Not Exist: '${body.executionArn}'` }));
        return;
      }
      if (target !== 'AWSStepFunctions.StartExecution') {
        res.writeHead(400, amzJson).end(JSON.stringify({ __type: 'UnknownOperationException', message: String(target) }));
        return;
      }
      if (body.stateMachineArn === RUN_MACHINE_ARN) {
        runs.start(body.name, JSON.parse(body.input) as RunInput);
        res
          .writeHead(200, amzJson)
          .end(JSON.stringify({ executionArn: `arn:aws:states:us-east-1:123456789012:execution:run:${body.name}`, startDate: Date.now() / 1000 }));
        return;
      }
      started++;
      const input = JSON.parse(body.input) as { row?: { url?: string } };
      if (drop?.(input.row?.url ?? '')) {
        res
          .writeHead(200, { 'content-type': 'application/x-amz-json-1.0' })
          .end(JSON.stringify({ executionArn: `arn:aws:states:us-east-1:123456789012:express:page:${body.name}`, startDate: Date.now() / 1000 }));
        return;
      }
      const run = () =>
        machine.run(input, {
          overrides: {
            taskResourceLocalHandlers: {
              Extract: task((input: Parameters<typeof extractPage>[0]) => timings.time('extract-page', () => extractPage(input))),
              Render: task((input: Parameters<typeof renderPage>[0]) => timings.time('render-page', () => renderPage(input))),
              ExtractRendered: task((input: Parameters<typeof extractPage>[0]) => timings.time('extract-page', () => extractPage(input))),
              RecordFailure: task((input: Parameters<typeof recordFailure>[0]) => timings.time('record-failure', () => recordFailure(input))),
              Summarize: task((input: Parameters<typeof summarizePage>[0]) => timings.time('summarize-page', () => summarizePage(input))),
              Index: task((input: Parameters<typeof indexPage>[0]) => timings.time('index-page', () => indexPage(input))),
            },
          },
          // The emulator's context object has no State; Step Functions sets State.RetryCount on every attempt.
          context: { State: { RetryCount: 0 } },
        });
      // A failed page workflow is what the alarm sees; here the crawl goes on and the test reads the archive.
      const done = gate(() => run().result.catch(() => undefined)).finally(() => pending.delete(done));
      pending.add(done);
      res
        .writeHead(200, { 'content-type': 'application/x-amz-json-1.0' })
        .end(JSON.stringify({ executionArn: `arn:aws:states:us-east-1:123456789012:express:page:${body.name}`, startDate: Date.now() / 1000 }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server, pending, started: () => started };
}

/** How long an emulated poller waits after an empty receive. */
const POLL_IDLE_MS = 50;

/** What the emulated FIFO holds per message group: the message in flight or handed back, and the ones waiting behind it. */
interface FifoGroups {
  heads: Map<string, string>;
  held: Map<string, Message[]>;
}

/**
 * Stands in for the SQS event source mapping: receive a batch (up to the template's batch size),
 * invoke the worker on it, delete what it did not report failed. SQS FIFO delivers nothing of a
 * group while one of its messages is in flight or handed back (invisible) until that message is
 * deleted; local-aws-sqs does not hold groups, so `groups` does: the message that holds each group
 * (`heads`), and the other messages of that group received meanwhile (`held`, in flight), handed to
 * the worker in order once the head is deleted.
 */
interface Poller {
  emu: Emulators;
  queueUrl: string;
  queueArn: string;
  timings: Timings;
  stop: { done: boolean };
  groups: FifoGroups;
  quota?: QuotaLayer;
  paused?: () => boolean;
}

async function pollFrontier(poller: Poller): Promise<void> {
  const { emu, queueUrl, queueArn, timings, stop, groups } = poller;
  const { heads, held } = groups;
  const next: Message[] = [];
  while (!stop.done) {
    if (poller.paused?.() && next.length === 0) {
      await new Promise((r) => setTimeout(r, POLL_IDLE_MS));
      continue;
    }
    const batch = next.splice(0, FRONTIER_QUEUE.batchSize);
    if (batch.length === 0) {
      const res = await emu.clients.sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: queueUrl,
          MaxNumberOfMessages: FRONTIER_QUEUE.batchSize,
          // Short polls: local-aws-sqs holds a long poll for its whole wait even when a message arrives,
          // where the event source's long poll returns at once (a turn handed on would wait a second).
          WaitTimeSeconds: 0,
          AttributeNames: ['All'],
          MessageSystemAttributeNames: ['All'],
        }),
      );
      if (!res.Messages?.length) await new Promise((r) => setTimeout(r, POLL_IDLE_MS));
      for (const m of res.Messages ?? []) {
        const group = m.Attributes?.MessageGroupId ?? '';
        const head = heads.get(group);
        if ((head !== undefined && head !== m.MessageId) || batch.some((b) => b.Attributes?.MessageGroupId === group)) {
          // Held in flight behind its group's head; one that reappears meanwhile is held again, as received last.
          held.set(group, [...(held.get(group) ?? []).filter((w) => w.MessageId !== m.MessageId), m]);
          continue;
        }
        heads.set(group, m.MessageId!);
        batch.push(m);
      }
    }
    if (batch.length === 0) continue;
    const deleted = await handleBatch(emu, queueUrl, queueArn, timings, batch).catch(() => new Set<string>());
    for (const m of batch) {
      const group = m.Attributes?.MessageGroupId ?? '';
      // Handed back (or failed): it stays the group's head until it is received again.
      if (!deleted.has(m.MessageId!)) continue;
      poller.quota?.deleted(group);
      heads.delete(group);
      // The group's messages one after another, as FIFO delivers them: the next once the one before is deleted.
      const following = held.get(group)?.shift();
      if (following) {
        heads.set(group, following.MessageId!);
        next.push(following);
      }
    }
  }
}

/** Invokes the worker on a batch of messages; the ids it deleted (the others were handed back or failed). */
async function handleBatch(emu: Emulators, queueUrl: string, queueArn: string, timings: Timings, batch: Message[]): Promise<Set<string>> {
  const event: SQSEvent = {
    Records: batch.map((m) => ({
      messageId: m.MessageId!,
      receiptHandle: m.ReceiptHandle!,
      body: m.Body!,
      md5OfBody: m.MD5OfBody!,
      messageAttributes: {},
      attributes: {
        ApproximateReceiveCount: m.Attributes?.ApproximateReceiveCount ?? '1',
        SentTimestamp: m.Attributes?.SentTimestamp ?? '0',
        SenderId: 'test',
        ApproximateFirstReceiveTimestamp: '0',
        MessageGroupId: m.Attributes?.MessageGroupId,
      },
      eventSource: 'aws:sqs',
      eventSourceARN: queueArn,
      awsRegion: 'us-east-1',
    })),
  };
  // Lambda's context: the time left of the function's 60 s timeout, counted from the invocation's start.
  const endsAt = Date.now() + 60_000;
  const out = await timings.time('fetch-worker', () => fetchWorker(event, { getRemainingTimeInMillis: () => endsAt - Date.now() }));
  const failed = new Set(out.batchItemFailures.map((f) => f.itemIdentifier));
  const deleted = new Set<string>();
  for (const m of batch) {
    if (failed.has(m.MessageId!)) continue;
    await emu.clients.sqs.send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: m.ReceiptHandle! }));
    deleted.add(m.MessageId!);
  }
  return deleted;
}

/** Runs one crawl through the cloud path and returns the run state machine's output with the measurements. */
export async function cloudCrawl(
  emu: Emulators,
  synth: Synthesized,
  names: { table: string; bucket: string; queueUrl: string; queueArn: string; vectorBucket: string; vectorIndex: string },
  input: RunInput,
  options: CloudCrawlOptions,
): Promise<CloudCrawl> {
  const machines = stateMachines(synth.template);
  const timings = new Timings(options.quota);
  const stop = { done: false };
  let pollers: Array<Promise<void>> = [];
  let pending = new Set<Promise<unknown>>();
  let progressChecks = 0;
  let rebuilds = 0;
  const machine = new StateMachine(machines.STANDARD.definition as never, { validationOptions: { noValidate: true } });
  const runs = new Map<string, { execution: ReturnType<typeof machine.run>; startDate: number; done?: { status: string; output?: unknown } }>();
  const startRun = (name: string, runInput: RunInput) => {
    const execution = machine.run(runInput as never, {
      overrides: {
        taskResourceLocalHandlers: {
          InitRun: task((i: Parameters<typeof initRun>[0]) => timings.time('init-run', () => initRun(i))),
          Discover: task((i: Parameters<typeof discoverTargets>[0]) => timings.time('discover-targets', () => discoverTargets(i))),
          Progress: task((i: Parameters<typeof runProgress>[0]) => {
            progressChecks++;
            if (progressChecks === options.failProgressAt) return Promise.reject(new Error('Progress failed on purpose'));
            return timings.time('run-progress', () => runProgress(i));
          }),
          FinalizeStart: task(async (i: Parameters<typeof finalizeRun>[0]) => {
            if (options.failEnd) return Promise.reject(new Error('FinalizeStart failed on purpose'));
            if ('state' in i && i.state.error) {
              // The workers drain first, as the event source mapping would once the run stops (a fetch
              // that lands after the run failed can still add a queued URL on AWS: docs/known-gaps.md).
              stop.done = true;
              await Promise.allSettled(pollers);
            }
            // Pages still in their workflow finish before the run is finalized (as the drained counters promise).
            await Promise.all(pending);
            return timings.time('finalize-run', () => finalizeRun(i));
          }),
          FailRun: task(async (i: Parameters<typeof finalizeRun>[0]) => {
            stop.done = true;
            await Promise.allSettled(pollers);
            await Promise.all(pending);
            if (options.failEnd) return Promise.reject(new Error('FailRun failed on purpose'));
            return timings.time('finalize-run', () => finalizeRun(i));
          }),
          MarkRunFailed: task((i: Parameters<typeof finalizeRun>[0]) => timings.time('finalize-run', () => finalizeRun(i))),
          RebuildText: task((i: Parameters<typeof finalizeRun>[0]) => {
            rebuilds++;
            return timings.time('finalize-run', () => finalizeRun(i));
          }),
          ...Object.fromEntries(
            [
              'CollectShard',
              'GatherShard',
              'LinkShard',
              'DegreeShard',
              'RankShard',
              'RankCheck',
              'WriteShard',
              'ChangeShard',
              'PackagePart',
              'FinalizeRun',
            ].map((name) => [name, task((i: Parameters<typeof finalizeRun>[0]) => timings.time('finalize-run', () => finalizeRun(i)))]),
          ),
        },
        waitTimeOverrides: { WaitForProgress: options.pollMs },
      },
    });
    const entry: typeof runs extends Map<string, infer V> ? V : never = { execution, startDate: Date.now() };
    if (options.quota) void countHistory(execution.eventLogs as never, options.quota);
    execution.result.then(
      (output: unknown) => (entry.done = { status: 'SUCCEEDED', output }),
      () => (entry.done = { status: 'FAILED' }),
    );
    runs.set(name, entry);
  };
  const page = await stepFunctionsEndpoint(
    machines.EXPRESS.definition,
    timings,
    options.dropPageWorkflow,
    {
      start: startRun,
      describe: (name) => {
        const r = runs.get(name);
        if (!r) return undefined;
        return {
          name,
          status: r.done?.status ?? 'RUNNING',
          startDate: r.startDate / 1000,
          input: '{}',
          ...(r.done?.output !== undefined ? { output: JSON.stringify(r.done.output) } : {}),
        };
      },
    },
    options.pageConcurrency,
  );
  pending = page.pending;
  cloudEnvironment(emu, names, page.url);
  apiCrawlEnvironment(synth);
  progressEnvironment(synth, options.textRebuildLogEntries);
  Object.assign(process.env, options.environment ?? {});
  process.env.URL_LEASE_MS = String(options.urlLeaseMs ?? 600_000);
  if (options.turnStaleMs) process.env.TURN_STALE_MS = String(options.turnStaleMs);
  else delete process.env.TURN_STALE_MS;
  const groups: FifoGroups = { heads: new Map(), held: new Map() };
  pollers = Array.from({ length: options.workers }, () =>
    pollFrontier({
      emu,
      queueUrl: names.queueUrl,
      queueArn: names.queueArn,
      timings,
      stop,
      groups,
      quota: options.quota,
      // The workers also wait while the page workflows they started are this many behind (one process's CPU, not AWS's).
      paused: () => options.paused?.() === true || (options.maxPendingPages !== undefined && pending.size >= options.maxPendingPages),
    }),
  );
  const started = performance.now();
  const close = () => new Promise<void>((r) => page.server.close(() => r()));
  let keep = false;
  try {
    let jobId: string | undefined;
    if (options.startWith) jobId = await options.startWith();
    else if (options.throughApi) {
      // As an integrator would: POST /crawls on the search API, which starts the run machine.
      const answer = await callSearchApi('/crawls', { method: 'POST', body: { seeds: input.seeds } });
      if (answer.status !== 202) throw new Error(`POST /crawls answered ${answer.status}: ${answer.body}`);
      jobId = String(answer.json().id);
    } else startRun('direct', input);
    const run = runs.get(jobId ?? 'direct');
    if (!run) throw new Error(`no run machine execution was started for ${jobId ?? 'the crawl'}`);
    const timer = setTimeout(() => run.execution.abort(), options.timeoutMs);
    try {
      const beside = jobId && options.whileRunning ? options.whileRunning(jobId) : undefined;
      const output = (await run.execution.result) as Record<string, unknown>;
      await beside;
      await Promise.all(page.pending);
      assertIamAllows(synth);
      // Started through the API, the test goes on asking it about the job: the endpoint stays up until `close`.
      keep = jobId !== undefined;
      return {
        output,
        timings,
        pageExecutions: page.started(),
        progressChecks,
        textRebuilds: rebuilds,
        elapsedMs: performance.now() - started,
        ...(jobId ? { jobId } : {}),
        close,
      };
    } finally {
      clearTimeout(timer);
    }
  } finally {
    stop.done = true;
    await Promise.allSettled(pollers);
    await Promise.all(page.pending);
    if (!keep) await close();
  }
}

/**
 * Fails when a handler made an SDK call its role in the synthesized template does not allow (what
 * a real deploy would deny and no emulator checks), naming the function, the action and the resource.
 */
export function assertIamAllows(synth: Synthesized): number {
  const calls = takeRecorded();
  const report = checkCalls(synth.template, calls);
  // The same calls in a deployment whose bucket and table use customer-managed keys: the KMS calls AWS makes as each role.
  const kms = checkCalls(keyedTemplate(), calls, process.env, { only: 'kms' });
  const denied = [...report.denied, ...kms.denied];
  if (denied.length > 0) {
    throw new Error(`IAM: ${denied.length} call(s) a real deploy would deny:\n${denied.map((d) => `  ${d.why}`).join('\n')}`);
  }
  return report.checked + kms.checked;
}

let keyed: Synthesized['template'] | undefined;
/** The default app with customer-managed keys on its bucket and table (`-c customerManagedKeys=true`), synthesized once a process. */
function keyedTemplate(): Synthesized['template'] {
  if (!keyed) {
    const synth = synthApp({ bundle: false, context: { customerManagedKeys: true } });
    keyed = synth.template;
    synth.cleanup();
  }
  return keyed;
}

/** Every item of a table (paged scan), as a downstream reader of the table sees them. */
export async function tableItems(emu: Emulators, table: string): Promise<Array<Record<string, unknown>>> {
  const items: Array<Record<string, unknown>> = [];
  let start: Record<string, unknown> | undefined;
  do {
    const res = await emu.clients.doc.send(new ScanCommand({ TableName: table, ExclusiveStartKey: start }));
    items.push(...(res.Items ?? []));
    start = res.LastEvaluatedKey;
  } while (start);
  return items;
}
