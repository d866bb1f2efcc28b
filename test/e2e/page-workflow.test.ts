// The page workflow from the synthesized template, run by aws-local-stepfunctions with its real
// handlers: a page is extracted once however often the workflow starts, and a failing step
// ends in RecordFailure, which keeps the fetch in the archive with the error.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { StateMachine } from 'aws-local-stepfunctions';
import { handler as extractPage } from '../../functions/extract-page/index.js';
import { handler as recordFailure } from '../../functions/record-failure/index.js';
import type { PageTask } from '../../shared/pipeline/cloud/fetch-worker.js';
import { DynamoCrawlStore } from '../../shared/store/aws/dynamo-store.js';
import { S3BlobStore, S3Objects } from '../../shared/store/aws/s3-store.js';
import { cloudEnvironment } from '../../support/cloud/harness.js';
import { startEmulators, type Emulators } from '../../support/cloud/emulators.js';
import { stateMachines, synthApp } from '../../support/synth.js';
import { handler as summarizePage } from '../../functions/summarize-page/index.js';
import { handler as indexPage } from '../../functions/index-page/index.js';
import { frontierRow } from '../../support/helpers.js';

let emu: Emulators;
let store: DynamoCrawlStore;
let blobs: S3BlobStore;
let objects: S3Objects;
type Results = { Extract: { state: string; links: number; extracted?: string }; Summarize: { status: string }; Index: { status: string } };
let machine: StateMachine;
let runId: number;

before(async () => {
  emu = await startEmulators();
  const names = await emu.provision('page-workflow');
  cloudEnvironment(emu, names, 'http://127.0.0.1:9');
  objects = new S3Objects(emu.clients.s3, names.bucket);
  blobs = new S3BlobStore(objects);
  store = new DynamoCrawlStore(emu.clients.doc, names.table, { blobs });
  const synth = synthApp({ bundle: false });
  machine = new StateMachine(stateMachines(synth.template).EXPRESS.definition as never, { validationOptions: { noValidate: true } });
  synth.cleanup();
  runId = (await store.createRun(['http://a.test/'], { allowPrivateNetwork: true }, Date.now())).id;
});
after(() => emu.stop());

const run = (task: PageTask) =>
  machine.run(task as never, {
    overrides: {
      taskResourceLocalHandlers: {
        Extract: extractPage as never,
        Summarize: summarizePage as never,
        Index: indexPage as never,
        RecordFailure: recordFailure as never,
      },
    },
    // The emulator's context object has no State; Step Functions sets State.RetryCount on every attempt.
    context: { State: { RetryCount: 0 } },
  }).result;

async function taskFor(path: string, body: Buffer | undefined): Promise<PageTask> {
  const row = frontierRow({ runId, urlId: `id-${path}`, url: `http://a.test/${path}` });
  await store.addUrls([row]);
  await store.claimUrl(runId, row.urlId, Date.now(), 60_000);
  const contentHash = body ? await blobs.put(body) : 'ab'.repeat(32);
  return {
    runId,
    row,
    contentHash,
    at: Date.now(),
    response: {
      url: row.url,
      status: 200,
      headers: { 'content-type': 'text/html' },
      truncated: false,
      mime: 'text/html',
      charset: 'utf-8',
      contentClass: 'html',
      wireBytes: 10,
      durationMs: 3,
    },
  };
}

test('extracts and enriches a page once, however often the workflow starts', async () => {
  const html = Buffer.from(
    '<html><head><title>Hello</title></head><body><article><h1>Hello</h1><p>Some words about a subject worth reading, with a <a href="/next">next page</a>.</p></article></body></html>',
  );
  const task = await taskFor('hello', html);
  const first = (await run(task)) as { results: Results };
  assert.equal(first.results.Extract.state, 'done');
  assert.equal(first.results.Extract.links, 1);
  assert.equal(first.results.Extract.extracted, undefined, 'no extracted/ snapshot unless the deployment keeps them');
  assert.deepEqual(await objects.list('extracted/'), []);
  assert.equal(first.results.Summarize.status, 'summarized');
  assert.equal(first.results.Index.status, 'indexed');
  const progress = await store.runProgress(runId);
  const again = (await run(task)) as { results: Results };
  assert.equal(again.results.Extract.state, 'done');
  assert.deepEqual([again.results.Summarize.status, again.results.Index.status], ['unchanged', 'unchanged'], 'the same text is not enriched again');
  assert.deepEqual(await store.runProgress(runId), progress, 'a second start changes no counter and enqueues nothing');
  assert.equal((await store.getExtract('id-hello'))?.title, 'Hello');
  assert.equal((await store.getUrl(runId, 'id-hello'))?.state, 'done');
});

test("a deployment that keeps extracted snapshots writes each page's extraction under extracted/", async () => {
  process.env.EXTRACTED_SNAPSHOTS = 'true';
  try {
    const html = Buffer.from(
      '<html><head><title>Kept</title></head><body><article><h1>Kept</h1><p>Words kept as a snapshot, with a <a href="/x">link</a>.</p></article></body></html>',
    );
    const out = (await run(await taskFor('kept', html))) as { results: Results };
    assert.match(out.results.Extract.extracted ?? '', /^extracted\/id-kept\/[0-9a-f]{64}\.json$/);
    const doc = JSON.parse((await objects.get(out.results.Extract.extracted!))!.toString()) as { url: string; markdown: string; links: unknown[] };
    assert.equal(doc.url, 'http://a.test/kept');
    assert.match(doc.markdown, /Words kept as a snapshot/);
    assert.equal(doc.links.length, 1);
  } finally {
    delete process.env.EXTRACTED_SNAPSHOTS;
  }
});

test('a failing step is caught: the URL fails and the fetch stays in the archive with the error', async () => {
  const task = await taskFor('lost', undefined);
  await assert.rejects(run(task), /a page step failed; the failure is recorded in the archive/);
  const url = await store.getUrl(runId, 'id-lost');
  assert.deepEqual([url?.state, url?.reason], ['failed', 'processing-failed']);
  const history = await store.fetchHistory('id-lost');
  assert.equal(history.length, 1);
  assert.match(history[0]!.error ?? '', /processing-failed: Error: the body of http:\/\/a\.test\/lost is missing from S3/);
});

test('a step after Extract that fails for good leaves the page done, its fetch recorded once; a late failure never undoes done', async () => {
  const html = Buffer.from(
    '<html><head><title>Kept</title></head><body><article><h1>Kept</h1><p>Words of a page that was stored before a later step failed.</p></article></body></html>',
  );
  const task = await taskFor('kept', html);
  const failingIndex = async () => {
    throw new Error('the vector index refused the write');
  };
  const result = machine.run(task as never, {
    overrides: {
      taskResourceLocalHandlers: {
        Extract: extractPage as never,
        Summarize: summarizePage as never,
        Index: failingIndex as never,
        RecordFailure: recordFailure as never,
      },
    },
    context: { State: { RetryCount: 0 } },
  }).result;
  await assert.rejects(result, /a page step failed/);
  const url = await store.getUrl(runId, 'id-kept');
  assert.equal(url?.state, 'done', 'Extract settled it; the failed Index step does not undo that');
  assert.equal((await store.fetchHistory('id-kept')).length, 1, 'the fetch is recorded once');
  assert.equal((await store.getExtract('id-kept'))?.title, 'Kept');
  // The store itself keeps done final: a failure committed late (a redelivered message) changes nothing.
  const settled = (await store.runProgress(runId))!.settled;
  await store.commitFetch({ runId, urlId: 'id-kept', state: 'failed', reason: 'processing-failed', attempts: 2 });
  assert.equal((await store.getUrl(runId, 'id-kept'))?.state, 'done');
  assert.equal((await store.runProgress(runId))!.settled, settled);
});

test('a Summarize that Lambda throttles is retried to success with back-off, and the page ends done with its summary', async () => {
  const html = Buffer.from(
    '<html><head><title>Busy</title></head><body><article><h1>Busy</h1><p>Words of a page whose summary waited for a free model slot.</p></article></body></html>',
  );
  const task = await taskFor('busy', html);
  // Three throttles in a row, as a Summarize capped at four concurrent meets in a burst: more than a
  // page step's own two retries, within the capped steps' throttle retrier.
  let throttles = 3;
  const attempts: number[] = [];
  const throttledSummarize = async (event: unknown) => {
    attempts.push(Date.now());
    if (throttles-- > 0) throw Object.assign(new Error('Rate Exceeded.'), { name: 'Lambda.TooManyRequestsException' });
    return summarizePage(event as never);
  };
  const out = (await machine.run(task as never, {
    overrides: {
      taskResourceLocalHandlers: {
        Extract: extractPage as never,
        Summarize: throttledSummarize as never,
        Index: indexPage as never,
        RecordFailure: recordFailure as never,
      },
    },
    context: { State: { RetryCount: 0 } },
  }).result) as { results: { Summarize: { status: string }; Index: { status: string } } };
  assert.equal(attempts.length, 4, 'three throttled attempts, then the one that ran');
  assert.deepEqual([out.results.Summarize.status, out.results.Index.status], ['summarized', 'indexed']);
  assert.equal((await store.getUrl(runId, 'id-busy'))?.state, 'done');
  assert.equal((await store.fetchHistory('id-busy')).length, 1, 'no failure was recorded');
});

test('an Extract throttled past its retries puts the URL back in its host queue with its page slot; one throttled after its commit leaves the page done', async () => {
  const throttled = () => Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' });
  const runWith = (task: PageTask, extract: (t: PageTask) => Promise<unknown>) =>
    machine.run(task as never, {
      overrides: {
        taskResourceLocalHandlers: {
          Extract: extract as never,
          Summarize: summarizePage as never,
          Index: indexPage as never,
          RecordFailure: recordFailure as never,
        },
      },
      context: { State: { RetryCount: 0 } },
    }).result;
  const html = Buffer.from(
    '<html><head><title>Busy</title></head><body><article><h1>Busy</h1><p>A page the table was too busy to take.</p></article></body></html>',
  );

  // Throttled before anything was written: the URL waits in its host's queue for a later turn, its page slot given back.
  const before = await taskFor('throttled', html);
  assert.ok(await store.claimPageSlot(runId, 100));
  const pagesBefore = (await store.runProgress(runId))!.pages;
  await runWith(before, async () => Promise.reject(throttled())).catch(() => undefined);
  const requeued = await store.getUrl(runId, 'id-throttled');
  assert.equal(requeued?.state, 'queued');
  assert.ok((requeued?.notBefore ?? 0) > Date.now(), 'it waits before it is fetched again');
  assert.equal((await store.runProgress(runId))!.pages, pagesBefore - 1, 'its page slot is given back');
  assert.match((await store.fetchHistory('id-throttled'))[0]?.error ?? '', /processing deferred: ThrottlingException/);

  // Throttled on a write after its commit settled the URL: it stays done and keeps its slot.
  const after = await taskFor('throttled-late', html);
  assert.ok(await store.claimPageSlot(runId, 100));
  const pagesAfter = (await store.runProgress(runId))!.pages;
  await runWith(after, async (t) => {
    await extractPage(t as never);
    throw throttled();
  }).catch(() => undefined);
  assert.equal((await store.getUrl(runId, 'id-throttled-late'))?.state, 'done');
  assert.equal((await store.runProgress(runId))!.pages, pagesAfter, 'a stored page keeps its slot');
});
