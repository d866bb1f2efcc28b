// The run ledger of the DynamoDB store (claims and counters many workers share), on dynalite.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { DynamoCrawlStore } from '../../../shared/store/aws/dynamo-store.js';
import { DynamoGraph } from '../../../shared/store/aws/dynamo-graph.js';
import { S3BlobStore, S3Objects } from '../../../shared/store/aws/s3-store.js';
import { SqsFrontier } from '../../../shared/store/aws/sqs-frontier.js';
import { ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import type { FrontierRow } from '../../../shared/store/ports.js';
import { startEmulators, type Emulators } from '../../cloud/emulators.js';

let emu: Emulators;
let n = 0;
before(async () => {
  emu = await startEmulators();
});
after(() => emu.stop());

async function fresh(): Promise<{ store: DynamoCrawlStore; table: string; queueUrl: string; objects: S3Objects }> {
  const names = await emu.provision(`ledger-${++n}`);
  const objects = new S3Objects(emu.clients.s3, names.bucket);
  return { store: new DynamoCrawlStore(emu.clients.doc, names.table, { blobs: new S3BlobStore(objects) }), table: names.table, queueUrl: names.queueUrl, objects };
}

const row = (runId: number, id: string, host = 'a.test'): FrontierRow => ({
  runId, urlId: id, url: `http://${host}/${id}`, host, depth: 0, priority: 1, kind: 'page', state: 'queued', inlinks: 0, fresh: false, redirects: 0, attempts: 0, notBefore: 0,
});

test('a host is claimed by one worker at a time, and not before its next allowed time', async () => {
  const { store } = await fresh();
  const first = await store.claimHost('a.test', 'w1', 1000, 60_000);
  assert.equal(first.claimed, true);
  assert.deepEqual(await store.claimHost('a.test', 'w2', 1001, 60_000), { claimed: false, readyAt: 0, leased: true });
  await store.releaseHost({ host: 'a.test', nextAllowedAt: 3000, backoffUntil: 5000, backoffStep: 1, consecutiveFailures: 1, crawlDelayMs: 0 }, 'w1');
  assert.deepEqual(await store.claimHost('a.test', 'w2', 4000, 60_000), { claimed: false, readyAt: 5000, leased: false });
  const later = await store.claimHost('a.test', 'w2', 5000, 60_000);
  assert.ok(later.claimed && later.record.state.backoffUntil === 5000);
  // A crashed worker's lease lapses.
  assert.equal((await store.claimHost('a.test', 'w3', 5000 + 60_001, 60_000)).claimed, true);
});

test('a URL is claimed once; a lapsed claim can be taken over; a settled URL never', async () => {
  const { store } = await fresh();
  const run = await store.createRun([], {}, 1);
  await store.addUrls([row(run.id, 'u')]);
  assert.equal((await store.claimUrl(run.id, 'u', 100, 1000))?.urlId, 'u');
  assert.equal(await store.claimUrl(run.id, 'u', 200, 1000), undefined);
  assert.equal((await store.claimUrl(run.id, 'u', 1101, 1000))?.urlId, 'u');
  await store.commitFetch({ runId: run.id, urlId: 'u', state: 'done', attempts: 1 });
  assert.equal(await store.claimUrl(run.id, 'u', 99_999, 1000), undefined);
  assert.equal(await store.claimUrl(run.id, 'missing', 1, 1000), undefined);
});

test('run counters: enqueued and settled move once per URL, redelivered commits change nothing', async () => {
  const { store } = await fresh();
  const run = await store.createRun(['http://a.test/'], {}, 1);
  await store.addUrls([row(run.id, 'a'), row(run.id, 'b'), { ...row(run.id, 'c'), state: 'skipped', reason: 'out-of-scope' }]);
  await store.addUrls([row(run.id, 'a')]);
  const fetch = { runId: run.id, urlId: 'a', url: 'http://a.test/a', kind: 'page' as const, fetcher: 'http' as const, status: 200, fetchedAt: 5, durationMs: 1, bytes: 7, truncated: false, notModified: false };
  for (let i = 0; i < 2; i++) await store.commitFetch({ runId: run.id, urlId: 'a', state: 'done', attempts: 1, fetch, discovered: [row(run.id, 'd')] });
  assert.deepEqual(await store.runProgress(run.id), { status: 'running', enqueued: 4, settled: 2, pages: 0, startedAt: 1 });
  const summary = await store.summary(run.id);
  assert.equal(summary.requests, 1);
  assert.equal(summary.bytes, 7);
  assert.deepEqual(summary.fetchesByStatus, { 200: 1 });
  assert.equal((await store.fetchHistory('a')).length, 1);
});

test('page and per-host budgets are claimed slot by slot', async () => {
  const { store } = await fresh();
  const run = await store.createRun([], {}, 1);
  assert.deepEqual(await Promise.all([1, 2, 3].map(() => store.claimPageSlot(run.id, 2))).then((r) => r.filter(Boolean).length), 2);
  await store.releasePageSlot(run.id);
  assert.equal(await store.claimPageSlot(run.id, 2), true);
  assert.equal(await store.claimHostSlot(run.id, 'a.test', 1), true);
  assert.equal(await store.claimHostSlot(run.id, 'a.test', 1), false);
  assert.equal(await store.claimHostSlot(run.id, 'b.test', 1), true);
});

test('trap counters are shared by every worker of a run', async () => {
  const { store } = await fresh();
  assert.equal(await store.rememberVariant(1, 'calendar:x', '2026-01', 2), true);
  assert.equal(await store.rememberVariant(1, 'calendar:x', '2026-02', 2), true);
  assert.equal(await store.rememberVariant(1, 'calendar:x', '2026-01', 2), true);
  assert.equal(await store.rememberVariant(1, 'calendar:x', '2026-03', 2), false);
  assert.equal(await store.rememberVariant(2, 'calendar:x', '2026-03', 2), true);
});

test('texts too large for an item go to S3 and come back whole', async () => {
  const { store } = await fresh();
  const big = 'word '.repeat(60_000);
  await store.saveExtraction([], { urlId: 'p', runId: 1, snapshot: 's', wordCount: 60_000, readingMinutes: 200, method: 'readability', markdown: big, textHash: 't', simhash: '0123456789abcdef', metadata: {} }, []);
  assert.equal((await store.getExtract('p'))?.markdown, big);
  await store.putHost({ host: 'h', state: { host: 'h', nextAllowedAt: 0, backoffUntil: 0, backoffStep: 0, consecutiveFailures: 0, crawlDelayMs: 0 }, robotsStatus: 200, robotsBody: `User-agent: *\n${'Disallow: /x\n'.repeat(20_000)}` });
  assert.equal((await store.getHost('h'))?.robotsBody?.length, 'User-agent: *\n'.length + 'Disallow: /x\n'.length * 20_000);
});

test('the graph: inlinks through the index, PageRank written onto the pages', async () => {
  const { store, table } = await fresh();
  const graph = new DynamoGraph(emu.clients.doc, table);
  const run = await store.createRun([], {}, 1);
  const page = (id: string) => ({ urlId: id, url: `http://a.test/${id}`, host: 'a.test', runId: run.id, status: 200, mime: 'text/html', bytes: 1, truncated: false, fetchedAt: 1, indexable: true, nofollow: false, contentHash: `h-${id}` });
  const edge = (from: string, to: string) => ({ fromId: from, snapshot: `h-${from}`, toId: to, toUrl: `http://a.test/${to}`, anchor: to, context: '', section: 'body' as const, rel: '', internal: true, nofollow: false });
  await store.addUrls([row(run.id, 'x'), row(run.id, 'y'), row(run.id, 'z')]);
  await store.commitFetch({ runId: run.id, urlId: 'x', state: 'done', attempts: 1, page: page('x'), edges: [edge('x', 'y'), edge('x', 'z')] });
  await store.commitFetch({ runId: run.id, urlId: 'y', state: 'done', attempts: 1, page: page('y'), edges: [edge('y', 'z'), edge('y', 'gone')] });
  await store.commitFetch({ runId: run.id, urlId: 'z', state: 'done', attempts: 1, page: page('z'), edges: [] });
  assert.deepEqual((await graph.inlinks('z')).map((l) => l.fromUrl).sort(), ['http://a.test/x', 'http://a.test/y']);
  assert.equal(await graph.computeRanks(run.id), 3);
  const top = await graph.top(3);
  assert.equal(top[0]!.urlId, 'z');
  assert.equal(top[0]!.inlinks, 2);
  assert.deepEqual(await graph.unfetched(5), [{ url: 'http://a.test/gone', inlinks: 1, hosts: 1 }]);
});

test('the SQS frontier: one message group per host, deduplicated per run, URL and attempt', async () => {
  const { queueUrl } = await fresh();
  const frontier = new SqsFrontier(emu.clients.sqs, queueUrl);
  await frontier.send([row(1, 'a', 'h1.test'), row(1, 'b', 'h2.test'), row(1, 'a', 'h1.test'), { ...row(1, 'a', 'h1.test'), attempts: 1 }]);
  const bodies: FrontierRow[] = [];
  for (let i = 0; i < 5; i++) {
    const res = await emu.clients.sqs.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 0, VisibilityTimeout: 60 }));
    bodies.push(...(res.Messages ?? []).map((m) => JSON.parse(m.Body!) as FrontierRow));
  }
  assert.deepEqual(bodies.map((b) => `${b.host}/${b.urlId}#${b.attempts}`).sort(), ['h1.test/a#0', 'h1.test/a#1', 'h2.test/b#0']);
});
