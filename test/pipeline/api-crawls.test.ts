// Crawls started over the cloud's API are capped by the deployment, whatever a request asks for:
// more pages or minutes than its caps is a 400 before any execution starts, and a start past its
// running API crawls a 429.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiCrawls, apiCrawlName } from '../../shared/pipeline/cloud/api-crawls.js';
import { ForbiddenError, JobQueueFullError, UsageError } from '../../shared/errors.js';
import { DynamoCrawlStore } from '../../shared/store/aws/dynamo-store.js';
import { S3BlobStore, S3Objects } from '../../shared/store/aws/s3-store.js';
import type { WorkflowExecution, WorkflowRunner } from '../../shared/ports/index.js';
import { startEmulators, type Emulators } from '../../support/cloud/emulators.js';
import { initRun, type RunInput } from '../../shared/pipeline/cloud/run-control.js';
import type { CloudDeps } from '../../shared/pipeline/cloud/cloud-context.js';
import { SqsFrontier } from '../../shared/store/aws/sqs-frontier.js';
import { createLogger } from '../../shared/log/logger.js';

let emu: Emulators;
before(async () => {
  emu = await startEmulators();
});
after(() => emu.stop());

/** The run machine as far as ApiCrawls.start sees it: the executions it was asked to start. */
class StartedExecutions implements WorkflowRunner {
  readonly started: string[] = [];
  readonly inputs: unknown[] = [];
  /** How each execution stands (RUNNING once started). */
  readonly statuses = new Map<string, WorkflowExecution['status']>();
  async start(name: string, input: unknown): Promise<void> {
    this.started.push(name);
    this.inputs.push(input);
    this.statuses.set(name, 'RUNNING');
  }
  async describe(name: string): Promise<WorkflowExecution | undefined> {
    const status = this.statuses.get(name);
    return status && { status, startedAt: 0 };
  }
}

/** A fresh table and bucket, and ApiCrawls over them with these caps (500 pages and 60 minutes a crawl). */
async function setup(name: string, caps: { concurrentRuns: number; runsPerCaller: number }) {
  const names = await emu.provision(name);
  const objects = new S3Objects(emu.clients.s3, names.bucket);
  const store = new DynamoCrawlStore(emu.clients.doc, names.table, { blobs: new S3BlobStore(objects) });
  const runs = new StartedExecutions();
  const crawls = new ApiCrawls({ store, runs, defaults: { allowPrivateNetwork: true }, limits: { maxPages: 500, maxMinutes: 60, ...caps } });
  return { names, objects, store, runs, crawls };
}

test('a request over the caps is refused before an execution starts; past the running API crawls it is a queue-full error', async () => {
  const { store, runs, crawls } = await setup('api-crawls', { concurrentRuns: 2, runsPerCaller: 2 });
  await assert.rejects(
    crawls.start(['https://example.com/'], { maxPages: 501 }),
    (e: unknown) => e instanceof UsageError && /maxPages 501 is over this deployment's cap of 500/.test(e.message),
  );
  await assert.rejects(crawls.start(['https://example.com/'], { maxPages: 10, maxMinutes: 61 }), /maxMinutes 61 is over this deployment's cap of 60/);
  // Neither the request nor the deployment names maxMinutes: a crawl's default day is over a 60-minute cap.
  await assert.rejects(crawls.start(['https://example.com/'], { maxPages: 10 }), /maxMinutes 1440 is over/);
  assert.deepEqual(runs.started, [], 'nothing was started');

  const job = await crawls.start(['https://example.com/'], { maxPages: 10, maxMinutes: 30 });
  assert.equal(runs.started.length, 1);
  // Two API crawls running (as InitRun records them), and another crawl's run, which does not count.
  for (const crawl of [apiCrawlName(job.id), apiCrawlName('other'), 'nightly']) await store.createRun(['https://example.com/'], { crawl }, Date.now());
  await assert.rejects(
    crawls.start(['https://example.com/'], { maxPages: 10, maxMinutes: 30 }),
    (e: unknown) => e instanceof JobQueueFullError && /2 crawls started over the API are running \(at most 2/.test(e.message),
  );
  assert.equal(runs.started.length, 1);
});

test("one caller's running API crawls are capped: a role's sessions count as the role, another caller still starts", async () => {
  const { names, objects, store, runs, crawls } = await setup('api-crawls-callers', { concurrentRuns: 10, runsPerCaller: 2 });
  const deps: CloudDeps = {
    store,
    blobs: new S3BlobStore(objects),
    objects,
    frontier: new SqsFrontier(emu.clients.sqs, names.queueUrl),
    logger: createLogger('silent'),
  };
  const session = (name: string) => `arn:aws:sts::123456789012:assumed-role/indexer/${name}`;
  const settings = { maxPages: 10, maxMinutes: 30 };
  for (const who of [session('a'), session('b')]) {
    const job = await crawls.start(['https://example.com/'], settings, { caller: who });
    // What the execution's InitRun records: the caller travels in the run's input.
    const input = runs.inputs.at(-1) as RunInput;
    assert.equal(input.startedBy, 'arn:aws:iam::123456789012:role/indexer');
    assert.ok('runId' in (await initRun(deps, input)));
    assert.ok(job.id);
  }
  await assert.rejects(
    crawls.start(['https://example.com/'], settings, { caller: session('c') }),
    (e: unknown) => e instanceof JobQueueFullError && /arn:aws:iam::123456789012:role\/indexer has 2 crawls running \(at most 2 a caller/.test(e.message),
  );
  // Another principal, and the write token's holders, are callers of their own.
  await crawls.start(['https://example.com/'], settings, { caller: 'arn:aws:iam::123456789012:user/ops' });
  await crawls.start(['https://example.com/'], settings);
  assert.equal(runs.started.length, 4);
});

test("a crawl's own extract schema needs the deployment's chat model: refused before an execution starts without one, carried in the run's settings with one", async () => {
  const { store, runs } = await setup('api-crawls-schema', { concurrentRuns: 4, runsPerCaller: 4 });
  const schema = { type: 'object', properties: { price: { type: 'number' } } };
  const settings = { maxPages: 1, maxMinutes: 30, extractSchema: schema, extractPrompt: 'the price' };
  const local = new ApiCrawls({ store, runs, defaults: {}, limits: { maxPages: 500, maxMinutes: 60, concurrentRuns: 4, runsPerCaller: 4 } });
  await assert.rejects(local.start(['https://example.com/'], settings), /extractSchema needs a chat model: this deployment's enrichment has none/);
  // The cloud's launcher checks at its own door as the embedded one does: a misspelt setting is refused by name.
  await assert.rejects(local.start(['https://example.com/'], { maxPagez: 3 } as never), /"maxPagez" is not a setting a crawl job may choose/);
  assert.deepEqual(runs.started, []);
  const bedrock = new ApiCrawls({ store, runs, defaults: {}, limits: { maxPages: 500, maxMinutes: 60, concurrentRuns: 4, runsPerCaller: 4 }, chatModel: true });
  await bedrock.start(['https://example.com/'], settings);
  assert.deepEqual((runs.inputs[0] as RunInput).settings, { maxPages: 1, extractSchema: schema, extractPrompt: 'the price' });
});

test('a run its execution outlived is reconciled: the job reads failed, its run is marked failed, and it no longer holds a slot', async () => {
  const { store, runs, crawls } = await setup('api-crawls-dead', { concurrentRuns: 2, runsPerCaller: 2 });
  const settings = { maxPages: 10, maxMinutes: 30 };
  const jobs = [await crawls.start(['https://example.com/'], settings), await crawls.start(['https://example.com/'], settings)];
  for (const job of jobs) await store.createRun(['https://example.com/'], { crawl: apiCrawlName(job.id) }, Date.now());
  await assert.rejects(crawls.start(['https://example.com/'], settings), JobQueueFullError);
  // The first job's execution ended with its run still recorded running (its end never written).
  runs.statuses.set(jobs[0]!.id, 'SUCCEEDED');
  assert.equal((await crawls.get(jobs[0]!.id))?.status, 'failed');
  assert.equal((await store.latestRunOf(apiCrawlName(jobs[0]!.id)))?.status, 'failed');
  assert.equal((await crawls.get(jobs[1]!.id))?.status, 'running');
  // The second one's execution failed; the run list reconciles it when a start counts the slots.
  runs.statuses.set(jobs[1]!.id, 'FAILED');
  await crawls.start(['https://example.com/'], settings);
  assert.equal((await store.latestRunOf(apiCrawlName(jobs[1]!.id)))?.status, 'failed');
  assert.equal(runs.started.length, 3);
});

test("a caller stops only its own crawls; the deployment's admins stop any", async () => {
  const { store, runs } = await setup('api-crawls-stop', { concurrentRuns: 4, runsPerCaller: 4 });
  const role = (name: string, session: string) => `arn:aws:sts::123456789012:assumed-role/${name}/${session}`;
  const admin = 'arn:aws:iam::123456789012:role/ops';
  const crawls = new ApiCrawls({ store, runs, defaults: {}, limits: { maxPages: 500, maxMinutes: 60, concurrentRuns: 4, runsPerCaller: 4 }, admins: [admin] });
  const settings = { maxPages: 10, maxMinutes: 30 };
  const mine = await crawls.start(['https://example.com/'], settings, { caller: role('indexer', 'a') });
  const other = await crawls.start(['https://example.com/'], settings, { caller: role('indexer', 'b') });
  for (const [job, input] of [mine, other].map((j, i) => [j, runs.inputs[i] as RunInput] as const))
    await store.createRun(['https://example.com/'], { crawl: apiCrawlName(job.id), startedBy: input.startedBy }, Date.now());
  // Another role's session may not stop it; a session of the role that started it may.
  await assert.rejects(
    crawls.stop(mine.id, { caller: role('analyst', 'x') }),
    (e: unknown) => e instanceof ForbiddenError && /was started by arn:aws:iam::123456789012:role\/indexer: a caller stops only its own/.test(e.message),
  );
  await assert.rejects(crawls.stop(mine.id), ForbiddenError, 'the write token is not the role that started it');
  assert.equal(await crawls.stop(mine.id, { caller: role('indexer', 'c') }), true);
  // An admin (a session of the admin role) stops any.
  assert.equal(await crawls.stop(other.id, { caller: role('ops', 'night') }), true);
  for (const job of [mine, other]) assert.equal((await store.latestRunOf(apiCrawlName(job.id)))?.status, 'interrupted');
});
