// Crawls started over the cloud's API are capped by the deployment, whatever a request asks for:
// more pages or minutes than its caps is a 400 before any execution starts, and a start past its
// running API crawls a 429.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiCrawls, apiCrawlName } from '../../shared/pipeline/cloud/api-crawls.js';
import { JobQueueFullError, UsageError } from '../../shared/errors.js';
import { DynamoCrawlStore } from '../../shared/store/aws/dynamo-store.js';
import { S3BlobStore, S3Objects } from '../../shared/store/aws/s3-store.js';
import type { WorkflowExecution, WorkflowRunner } from '../../shared/store/ports/index.js';
import { startEmulators, type Emulators } from '../cloud/emulators.js';

let emu: Emulators;
before(async () => {
  emu = await startEmulators();
});
after(() => emu.stop());

/** The run machine as far as ApiCrawls.start sees it: the executions it was asked to start. */
class StartedExecutions implements WorkflowRunner {
  readonly started: string[] = [];
  async start(name: string): Promise<void> {
    this.started.push(name);
  }
  async describe(): Promise<WorkflowExecution | undefined> {
    return undefined;
  }
}

test('a request over the caps is refused before an execution starts; past the running API crawls it is a queue-full error', async () => {
  const names = await emu.provision('api-crawls');
  const store = new DynamoCrawlStore(emu.clients.doc, names.table, { blobs: new S3BlobStore(new S3Objects(emu.clients.s3, names.bucket)) });
  const runs = new StartedExecutions();
  const crawls = new ApiCrawls({ store, runs, defaults: { allowPrivateNetwork: true }, limits: { maxPages: 500, maxMinutes: 60, concurrentRuns: 2 } });
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
