// The port contracts, run against the AWS adapters on in-process emulators (DynamoDB, S3, SQS) and a
// local endpoint speaking the Step Functions JSON protocol.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { SFNClient } from '@aws-sdk/client-sfn';
import { DynamoCrawlStore } from '../../shared/store/aws/dynamo-store.js';
import { DynamoGraph } from '../../shared/store/aws/dynamo-graph.js';
import { S3BlobStore, S3Objects } from '../../shared/store/aws/s3-store.js';
import { SqsFrontier } from '../../shared/store/aws/sqs-frontier.js';
import { SfnWorkflow } from '../../shared/store/aws/sfn-workflow.js';
import { startEmulators, type Emulators } from '../../support/cloud/emulators.js';
import { blobStoreContract } from './blob-store.contract.js';
import { crawlStoreContract } from './crawl-store.contract.js';
import { frontierQueueContract } from './frontier-queue.contract.js';
import { graphStoreContract } from './graph-store.contract.js';
import { objectStoreContract } from './object-store.contract.js';
import { runLedgerContract } from './run-ledger.contract.js';
import { workflowStarterContract } from './workflow-starter.contract.js';
import { vectorIndexContract } from './vector-index.contract.js';
import { CreateIndexCommand, S3VectorsClient } from '@aws-sdk/client-s3vectors';
import { S3VectorsIndex } from '../../shared/store/aws/s3-vectors.js';
import { startS3VectorsServer } from '../../support/cloud/s3-vectors-server.js';
import { DynamoEnrichStore } from '../../shared/store/aws/dynamo-enrich.js';
import { enrichmentRecord, enrichStoreContract } from './enrich-store.contract.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoTextManifest } from '../../shared/store/aws/dynamo-text-log.js';
import { RETIRE_AFTER_MS, S3TextIndex } from '../../shared/store/aws/s3-text-index.js';
import { SqliteCrawlStore } from '../../shared/store/local/sqlite-store.js';
import { SqliteEnrichStore } from '../../shared/store/local/sqlite-search.js';
import { DOCS, QUERIES } from '../../support/search/corpus.js';
import { queryTerms } from '../../shared/search/hybrid.js';
import { FAN_IN } from '../../shared/search/text-segments.js';
import type { EnrichStore } from '../../shared/ports/index.js';

let emu: Emulators;
let n = 0;
before(async () => {
  emu = await startEmulators();
});
after(() => emu.stop());

const fresh = () => emu.provision(`contract-${++n}`);
const dynamo = async () => {
  const names = await fresh();
  return { names, store: new DynamoCrawlStore(emu.clients.doc, names.table, { blobs: new S3BlobStore(new S3Objects(emu.clients.s3, names.bucket)) }) };
};

crawlStoreContract('dynamodb', { open: async () => (await dynamo()).store, close: (store) => store.close() });
runLedgerContract('dynamodb', { open: async () => (await dynamo()).store, close: (store) => store.close() });
graphStoreContract('dynamodb', {
  async open() {
    const { names, store } = await dynamo();
    return { store, graph: new DynamoGraph(emu.clients.doc, names.table) };
  },
  close: async () => {},
});
blobStoreContract('s3', { open: async () => new S3BlobStore(new S3Objects(emu.clients.s3, (await fresh()).bucket)), close: async () => {} });
// Parts of 64 KiB (S3 wants 5 MiB but for the last; s3rver takes any): the contract's 300 KB stream goes up in five.
objectStoreContract('s3', { open: async () => new S3Objects(emu.clients.s3, (await fresh()).bucket, 64 * 1024), close: async () => {} });
frontierQueueContract('sqs', {
  async open() {
    const { queueUrl, dlqUrl } = await fresh();
    const receive = async (url: string, visibilityS = 30) => {
      const res = await emu.clients.sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: url,
          MaxNumberOfMessages: 10,
          WaitTimeSeconds: 0,
          VisibilityTimeout: visibilityS,
          AttributeNames: ['All'],
          MessageSystemAttributeNames: ['All'],
          MessageAttributeNames: ['All'],
        }),
      );
      return res.Messages ?? [];
    };
    return {
      queue: new SqsFrontier(emu.clients.sqs, queueUrl, dlqUrl),
      receive: async (visibilityS) =>
        (await receive(queueUrl, visibilityS)).map((m) => ({ body: m.Body!, receipt: m.ReceiptHandle!, group: m.Attributes?.MessageGroupId })),
      deadLetters: async () =>
        (await receive(dlqUrl)).map((m) => ({ body: m.Body!, reason: m.MessageAttributes?.reason?.StringValue, group: m.Attributes?.MessageGroupId })),
    };
  },
  close: async () => {},
});
workflowStarterContract('step-functions', {
  async open() {
    const started: Array<{ name: string; input: unknown }> = [];
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        const parsed = JSON.parse(body) as { name: string; input: string };
        started.push({ name: parsed.name, input: JSON.parse(parsed.input) });
        res
          .writeHead(200, { 'content-type': 'application/x-amz-json-1.0' })
          .end(JSON.stringify({ executionArn: `arn:aws:states:us-east-1:1:execution:x:${parsed.name}`, startDate: 1 }));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const client = new SFNClient({
      region: 'us-east-1',
      endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
    });
    return Object.assign({ starter: new SfnWorkflow(client, 'arn:aws:states:us-east-1:1:stateMachine:page'), started: () => started }, { server, client });
  },
  async close(p) {
    const { server, client } = p as typeof p & { server: ReturnType<typeof createServer>; client: SFNClient };
    client.destroy();
    await new Promise<void>((r) => server.close(() => r()));
  },
});
vectorIndexContract('s3-vectors', {
  async open() {
    const server = await startS3VectorsServer();
    const client = new S3VectorsClient({ endpoint: server.origin, region: 'us-east-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } });
    await client.send(new CreateIndexCommand({ vectorBucketName: 'vectors', indexName: 'pages', dataType: 'float32', dimension: 4, distanceMetric: 'cosine' }));
    return Object.assign(new S3VectorsIndex(client, 'vectors', 'pages'), { server, client });
  },
  async close(index) {
    const { server, client } = index as unknown as { server: { close(): Promise<void> }; client: S3VectorsClient };
    client.destroy();
    await server.close();
  },
});
enrichStoreContract('dynamodb+s3', {
  async open() {
    const { names, store } = await dynamo();
    const objects = new S3Objects(emu.clients.s3, names.bucket);
    const enrich = new DynamoEnrichStore(emu.clients.doc, names.table, new S3BlobStore(objects), objects);
    return {
      store,
      enrich,
      rebuild: () => enrich.indexTextChanges(),
      rank: (runId: number) => new DynamoGraph(emu.clients.doc, names.table).computeRanks(runId),
    };
  },
  close: (pair) => pair.store.close(),
});

test('the cloud full-text index: the log past the last fold is counted up to a bound, and a fold that read an older manifest commits nothing', async () => {
  const { names, store } = await dynamo();
  try {
    const objects = new S3Objects(emu.clients.s3, names.bucket);
    const enrich = new DynamoEnrichStore(emu.clients.doc, names.table, new S3BlobStore(objects), objects, 0);
    for (let i = 0; i < 7; i++) await enrich.putEnrichment(enrichmentRecord(`p${i}`, `Page ${i}`, []), `harbour page ${i}`);
    assert.equal(await enrich.textLogBacklog(100), 7, 'no fold yet: every change counts');
    assert.equal(await enrich.textLogBacklog(3), 3, 'counted up to the bound asked');
    await new Promise((r) => setTimeout(r, 5)); // the log's clock is milliseconds: the fold starts after the last change
    const stale = await enrich.textIndex.manifest();
    const folded = await enrich.indexTextChanges();
    assert.deepEqual([folded.committed, folded.folded, folded.segments], [true, 7, 1]);
    assert.equal(await enrich.textLogBacklog(100), 0, 'folded in');
    await enrich.putEnrichment(enrichmentRecord('p7', 'Page 7', []), 'harbour page 7');
    assert.equal(await enrich.textLogBacklog(100), 1);
    // A fold that read the manifest before the one above committed (another run's FinalizeRun).
    const late = await enrich.textIndex.fold(stale, [], ['p0'], Date.now());
    assert.equal(late.committed, false);
    assert.equal((await enrich.textIndex.manifest())!.manifest.segments.length, 1, 'the late fold added no segment');
    assert.deepEqual(
      (await enrich.textSearch(['harbour'], {}, 10)).map((h) => h.urlId).sort(),
      ['p0', 'p1', 'p2', 'p3', 'p4', 'p5', 'p6', 'p7'],
      'every page still found: the segment and the log since',
    );
  } finally {
    await store.close();
  }
});

test('the cloud full-text index in segments: many small folds merged in tiers score as one fold of everything and rank as the embedded index; merged-away segments are deleted after the grace time', async () => {
  const segmented = await dynamo();
  const whole = await dynamo();
  const dir = mkdtempSync(join(tmpdir(), 'trawl-segments-'));
  const local = new SqliteCrawlStore(dir);
  try {
    const objects = new S3Objects(emu.clients.s3, segmented.names.bucket);
    const enrich = new DynamoEnrichStore(emu.clients.doc, segmented.names.table, new S3BlobStore(objects), objects, 0);
    const wholeObjects = new S3Objects(emu.clients.s3, whole.names.bucket);
    const once = new DynamoEnrichStore(emu.clients.doc, whole.names.table, new S3BlobStore(wholeObjects), wholeObjects, 0);
    const embedded = new SqliteEnrichStore(local.db);
    const page = (i: number, text = DOCS[i]!.paragraphs.join('\n\n')) =>
      [enrichmentRecord(`d${String(i).padStart(2, '0')}`, DOCS[i]!.title, [], { summary: DOCS[i]!.paragraphs[0]!.slice(0, 120) }), text] as const;
    const tick = () => new Promise((r) => setTimeout(r, 3)); // the log's clock is milliseconds
    // Two pages a fold; some pages rewritten later (their first text is dead in an older segment), one deleted.
    let merges = 0;
    for (let i = 0; i < DOCS.length; i++) {
      await enrich.putEnrichment(...page(i, i % 5 === 0 ? 'placeholder text about nothing in particular' : undefined));
      if (i % 2 === 1) {
        await tick();
        merges += (await enrich.indexTextChanges()).merges;
        await tick();
      }
    }
    for (let i = 0; i < DOCS.length; i += 5) {
      await enrich.putEnrichment(...page(i));
      await tick();
      merges += (await enrich.indexTextChanges()).merges;
      await tick();
    }
    await enrich.deleteEnrichment('d01');
    await tick();
    const last = await enrich.indexTextChanges();
    merges += last.merges;
    assert.ok(merges >= 2, `${merges} merges`);
    const folds = Math.floor(DOCS.length / 2) + Math.ceil(DOCS.length / 5) + 1;
    assert.ok(last.segments <= 2 * (FAN_IN - 1) && last.segments < folds / 2, `${last.segments} segments left after ${folds} folds`);
    for (let i = 0; i < DOCS.length; i++) {
      if (i === 1) continue;
      for (const store of [once, embedded] as EnrichStore[]) await store.putEnrichment(...page(i));
    }
    await tick();
    assert.equal((await once.indexTextChanges()).segments, 1);
    enrich.textIndex.refresh();
    const snapshot = (await enrich.textIndex.snapshot())!;
    assert.equal(snapshot.docs, DOCS.length - 1, 'each page once, the deleted one gone');
    let agreeing = 0;
    for (const { q } of QUERIES) {
      const terms = queryTerms(q);
      const got = await enrich.textSearch(terms, {}, 10);
      const want = await once.textSearch(terms, {}, 10);
      assert.deepEqual(
        got.map((h) => [h.urlId, h.score.toFixed(9)]),
        want.map((h) => [h.urlId, h.score.toFixed(9)]),
        q,
      );
      assert.ok(!got.some((h) => h.urlId === 'd01'), q);
      const sqlite = await embedded.textSearch(terms, {}, 10);
      if (got[0]?.urlId === sqlite[0]?.urlId) agreeing += 1;
    }
    assert.ok(agreeing >= QUERIES.length - 1, `the best hit agrees with the embedded index on ${agreeing} of ${QUERIES.length} queries`);
    // Merged-away segments stay for queries that read the manifest before the merge, then go.
    const cell = new DynamoTextManifest(emu.clients.doc, segmented.names.table);
    const { manifest } = (await enrich.textIndex.manifest())!;
    assert.ok(manifest.retired.length > 0);
    const retiredKeys = async () => (await objects.list('search/text/')).filter((o) => manifest.retired.some((r) => o.key.startsWith(`search/text/${r.id}/`)));
    assert.ok((await retiredKeys()).length > 0);
    const later = new S3TextIndex(objects, cell, () => Date.now() + RETIRE_AFTER_MS);
    const swept = await later.fold(await later.manifest(), [], [], Date.now());
    assert.equal(swept.committed, true);
    assert.deepEqual(await retiredKeys(), []);
    assert.deepEqual((await later.manifest())!.manifest.retired, []);
    assert.deepEqual(
      (await enrich.textSearch(['compost'], {}, 3)).map((h) => h.urlId),
      (await once.textSearch(['compost'], {}, 3)).map((h) => h.urlId),
    );
  } finally {
    local.close();
    rmSync(dir, { recursive: true, force: true });
    await segmented.store.close();
    await whole.store.close();
  }
});
