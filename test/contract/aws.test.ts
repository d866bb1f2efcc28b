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
import { startEmulators, type Emulators } from '../cloud/emulators.js';
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
import { startS3VectorsServer } from '../cloud/s3-vectors-server.js';
import { DynamoEnrichStore } from '../../shared/store/aws/dynamo-enrich.js';
import { S3TextIndex } from '../../shared/store/aws/s3-text-index.js';
import { enrichmentRecord, enrichStoreContract } from './enrich-store.contract.js';

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
    const enrich = new DynamoEnrichStore(emu.clients.doc, names.table, new S3BlobStore(objects), new S3TextIndex(objects));
    return {
      store,
      enrich,
      rebuild: () => enrich.rebuildTextIndex(),
      rank: (runId: number) => new DynamoGraph(emu.clients.doc, names.table).computeRanks(runId),
    };
  },
  close: (pair) => pair.store.close(),
});

test('the cloud full-text index: the log past the generation is counted up to a bound, and an older build never replaces a newer generation', async () => {
  const { names, store } = await dynamo();
  try {
    const objects = new S3Objects(emu.clients.s3, names.bucket);
    const text = new S3TextIndex(objects);
    const enrich = new DynamoEnrichStore(emu.clients.doc, names.table, new S3BlobStore(objects), text, 0);
    for (let i = 0; i < 7; i++) await enrich.putEnrichment(enrichmentRecord(`p${i}`, `Page ${i}`, []), `harbour page ${i}`);
    assert.equal(await enrich.textLogBacklog(100), 7, 'no generation yet: every change counts');
    assert.equal(await enrich.textLogBacklog(3), 3, 'counted up to the bound asked');
    await new Promise((r) => setTimeout(r, 5)); // the log's clock is milliseconds: the build starts after the last change
    const built = await enrich.rebuildTextIndex();
    assert.equal(built.docs, 7);
    assert.equal(await enrich.textLogBacklog(100), 0, 'folded in');
    await enrich.putEnrichment(enrichmentRecord('p7', 'Page 7', []), 'harbour page 7');
    assert.equal(await enrich.textLogBacklog(100), 1);
    // A build that started before the current one and ends after it (another run's FinalizeRun).
    const manifest = (await text.manifest())!;
    const older = await text.build((async function* () {})(), manifest.builtAt - 1000);
    assert.equal((await text.manifest())!.generation, manifest.generation, `the older build (${older.generation}) left the current generation`);
    assert.deepEqual(
      (await enrich.textSearch(['harbour'], {}, 10)).map((h) => h.urlId).sort(),
      ['p0', 'p1', 'p2', 'p3', 'p4', 'p5', 'p6', 'p7'],
      'every page still found: the generation and the log since',
    );
  } finally {
    await store.close();
  }
});
