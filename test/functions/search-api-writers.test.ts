// Behind IAM auth, the deployment's writers start and stop crawls and every other caller only
// reads: the search API Lambda reads the signed caller off the Function URL's request context.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startEmulators, type Emulators } from '../../support/cloud/emulators.js';
import { cloudEnvironment, RUN_MACHINE_ARN } from '../../support/cloud/harness.js';
import { callSearchApi } from '../../support/cloud/api-call.js';
import { callerIsWriter } from '../../shared/api/write-access.js';
import { apiCrawlName } from '../../shared/pipeline/cloud/api-crawls.js';
import { DynamoCrawlStore } from '../../shared/store/aws/dynamo-store.js';
import { S3BlobStore, S3Objects } from '../../shared/store/aws/s3-store.js';

const WRITER_ROLE = 'arn:aws:iam::123456789012:role/ops/crawl-starter';
const READER = 'arn:aws:sts::123456789012:assumed-role/search-reader/alice';
/** How a session of the writer role is counted: as the role (IAM's role ARN has no path in a session's ARN). */
const WRITER_ROLE_AS_CALLER = 'arn:aws:iam::123456789012:role/crawl-starter';

let emu: Emulators;
let names: Awaited<ReturnType<Emulators['provision']>>;
before(async () => {
  emu = await startEmulators();
  names = await emu.provision('search-writers');
  // The machine's endpoint is closed: a writer's start fails after the write check, a reader's never gets that far.
  cloudEnvironment(emu, names, 'http://127.0.0.1:9');
  Object.assign(process.env, { RUN_MACHINE_ARN, API_CRAWL_SETTINGS: '{}', API_WRITERS: WRITER_ROLE });
});
after(async () => {
  for (const name of ['RUN_MACHINE_ARN', 'API_CRAWL_SETTINGS', 'API_WRITERS']) delete process.env[name];
  await emu.stop();
});

test("a role's sessions count as the role; other principals and other accounts do not", () => {
  assert.equal(callerIsWriter('arn:aws:sts::123456789012:assumed-role/crawl-starter/ci-job', [WRITER_ROLE]), true);
  assert.equal(callerIsWriter(WRITER_ROLE, [WRITER_ROLE]), true);
  assert.equal(callerIsWriter('arn:aws:sts::999999999999:assumed-role/crawl-starter/x', [WRITER_ROLE]), false);
  assert.equal(callerIsWriter('arn:aws:sts::123456789012:assumed-role/crawl-starter-2/x', [WRITER_ROLE]), false);
  assert.equal(callerIsWriter(READER, [WRITER_ROLE]), false);
  assert.equal(callerIsWriter(undefined, [WRITER_ROLE]), false);
  assert.equal(callerIsWriter('arn:aws:iam::123456789012:user/bob', ['arn:aws:iam::123456789012:user/bob']), true);
});

test('a caller who is no writer reads but cannot start, stop or crawl over MCP; a writer passes the write check', async () => {
  const body = { seeds: ['https://example.com/'] };
  const refused = await callSearchApi('/crawls', { method: 'POST', body, caller: READER });
  assert.equal(refused.status, 403);
  assert.match(String(refused.json().error), /assumed-role\/search-reader\/alice may read but not write.*api\.startCrawls\.writers/);
  assert.equal((await callSearchApi('/crawls/00000000-0000-4000-8000-000000000000', { method: 'DELETE', caller: READER })).status, 403);
  const mcp = await callSearchApi('/mcp', {
    method: 'POST',
    headers: { accept: 'application/json, text/event-stream' },
    body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'crawl', arguments: body } },
    caller: READER,
  });
  assert.match(mcp.body, /may read but not write/);
  // Reads stay open to the reader.
  assert.equal((await callSearchApi('/healthz', { caller: READER })).status, 200);
  // The writer's request goes past the write check (to the run machine, whose endpoint is closed here).
  const started = await callSearchApi('/crawls', { method: 'POST', body, caller: 'arn:aws:sts::123456789012:assumed-role/crawl-starter/ci-job' });
  assert.notEqual(started.status, 403, started.body);
  assert.notEqual(started.status, 401, started.body);
});

test("a writer's running API crawls are capped per caller: a role's sessions count as the role", async () => {
  const store = new DynamoCrawlStore(emu.clients.doc, names.table, { blobs: new S3BlobStore(new S3Objects(emu.clients.s3, names.bucket)) });
  // Two API crawls the role's other sessions started, as InitRun records them (the default cap is two a caller).
  for (const id of ['one', 'two']) await store.createRun(['https://example.com/'], { crawl: apiCrawlName(id), startedBy: WRITER_ROLE_AS_CALLER }, Date.now());
  const body = { seeds: ['https://example.com/'], maxPages: 10 };
  const refused = await callSearchApi('/crawls', { method: 'POST', body, caller: 'arn:aws:sts::123456789012:assumed-role/crawl-starter/nightly' });
  assert.equal(refused.status, 429, refused.body);
  assert.match(String(refused.json().error), /role\/crawl-starter has 2 crawls running \(at most 2 a caller: api\.startCrawls\.limits\.runsPerCaller\)/);
});
