// In-process AWS emulators on loopback, speaking the real wire protocols: dynalite (DynamoDB),
// s3rver (S3) and local-aws-sqs (SQS). The table, bucket and queues are made as the stack makes them.
import type { IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { CreateTableCommand } from '@aws-sdk/client-dynamodb';
import { CreateBucketCommand } from '@aws-sdk/client-s3';
import { CreateQueueCommand, GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import dynalite from 'dynalite';
import S3rver from 's3rver';
import { createSqsServer } from 'local-aws-sqs';
import { awsClients, type AwsClients, type AwsEndpoints } from '../../shared/store/aws/clients.js';
import { FRONTIER_QUEUE } from '../../shared/store/aws/sqs-frontier.js';
import { TABLE_DEFINITION } from '../../shared/store/aws/table-layout.js';
import { CreateIndexCommand, S3VectorsClient } from '@aws-sdk/client-s3vectors';
import { tempDir } from '../helpers.js';
import { startS3VectorsServer } from './s3-vectors-server.js';
import { atomicObjects, type S3rverStore } from './s3rver-atomic.js';
import { startEventBridgeServer, type EventBridgeServer } from './eventbridge-server.js';

/** Requests the emulators served, by service and operation, with the DynamoDB capacity they would use. */
export interface Meter {
  requests: Map<string, number>;
  /** DynamoDB write request units: one per started KB of each item written. */
  writeUnits: number;
  /** DynamoDB read request units: one per strongly consistent read of an item up to 4 KB (approximated per request). */
  readUnits: number;
  reset(): void;
}

export interface Emulators {
  endpoints: AwsEndpoints & { s3vectors: string; eventbridge: string };
  /** What the handlers put on EventBridge (the stand-in of eventbridge-server.ts). */
  bus: EventBridgeServer;
  meter: Meter;
  /** A client of the local S3 Vectors server (the vector bucket of a provisioned name is that name, its index `pages`). */
  vectors: S3VectorsClient;
  clients: AwsClients;
  /** Makes a fresh table, bucket and FIFO queue (with its DLQ) with names unique to the caller. */
  provision(
    name: string,
  ): Promise<{ table: string; bucket: string; queueUrl: string; queueArn: string; dlqUrl: string; vectorBucket: string; vectorIndex: string }>;
  stop(): Promise<void>;
}

const close = (server: Server) =>
  new Promise<void>((resolve) => {
    server.closeAllConnections?.();
    server.close(() => resolve());
  });

let sqsPort = 0;

/** DynamoDB (dynalite) and S3 (s3rver) on free loopback ports, and how to stop them. */
export interface StoreEmulators {
  dynamodb: string;
  s3: string;
  /** The servers, when they run in this process (a meter counts their requests). */
  servers?: { dynamo: Server; s3: Server };
  stop(): Promise<void>;
}

/** Starts dynalite and s3rver in this process. */
export async function startStoreEmulators(): Promise<StoreEmulators> {
  const dynamo = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 }) as Server;
  await new Promise<void>((r) => dynamo.listen(0, '127.0.0.1', r));
  const s3dir = tempDir('trawl-s3-');
  const s3 = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: s3dir.dir });
  // S3 replaces an object whole, and reads it after the write's answer: s3rver needs help for both.
  atomicObjects(s3.store as S3rverStore);
  const s3Address = (await s3.run()) as AddressInfo;
  return {
    dynamodb: `http://127.0.0.1:${(dynamo.address() as AddressInfo).port}`,
    s3: `http://127.0.0.1:${s3Address.port}`,
    servers: { dynamo, s3: s3.httpServer },
    async stop() {
      await close(dynamo);
      await s3.close();
      s3dir.cleanup();
    },
  };
}

/**
 * Starts dynalite and s3rver in a child process (support/cloud/store-emulators-child.ts): a long run
 * then uses both cores, the handlers on one and the emulated stores on the other.
 */
async function childStoreEmulators(): Promise<StoreEmulators> {
  // s3rver's ListObjectsV2 continuation tokens are DES-encrypted, which OpenSSL 3 keeps in its
  // legacy provider: without it every listing past 1,000 keys answers InternalError.
  const child = spawn(process.execPath, ['--openssl-legacy-provider', '--import', 'tsx', join(import.meta.dirname, 'store-emulators-child.ts')], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const line = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('\n')) resolve(out.split('\n')[0]!);
    });
    child.once('exit', (code) => reject(new Error(`the store emulators' process exited with ${code} before it started`)));
  });
  const { dynamodb, s3 } = JSON.parse(line) as { dynamodb: string; s3: string };
  return {
    dynamodb,
    s3,
    stop: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.stdin.end();
      }),
  };
}

/** Starts the emulators on free loopback ports (`stores: 'child'`: DynamoDB and S3 in a process of their own). */
export async function startEmulators(options: { stores?: 'here' | 'child' } = {}): Promise<Emulators> {
  const stores = options.stores === 'child' ? await childStoreEmulators() : await startStoreEmulators();
  // local-aws-sqs needs a port up front: take one the OS just handed out and released.
  sqsPort = await freePort();
  const sqs = await createSqsServer({ port: sqsPort, hostname: '127.0.0.1', emulateQueueCreationLifecycle: false });
  const s3vectors = await startS3VectorsServer();
  const bus = await startEventBridgeServer();
  const endpoints: AwsEndpoints & { s3vectors: string; eventbridge: string } = {
    s3vectors: s3vectors.origin,
    eventbridge: bus.origin,
    region: 'us-east-1',
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' }, // s3rver's fixed key; the others accept any
    dynamodb: stores.dynamodb,
    s3: stores.s3,
    sqs: `http://127.0.0.1:${sqsPort}`,
  };
  const clients = awsClients(endpoints);
  const meter = metering(stores.servers, sqs);
  const vectors = new S3VectorsClient({ endpoint: s3vectors.origin, region: endpoints.region, credentials: endpoints.credentials });
  return {
    endpoints,
    bus,
    meter,
    clients,
    vectors,
    async provision(name) {
      const safe = name
        .replace(/[^a-z0-9-]/gi, '-')
        .toLowerCase()
        .slice(0, 40);
      await clients.dynamo.send(new CreateTableCommand({ TableName: safe, ...TABLE_DEFINITION }));
      await clients.s3.send(new CreateBucketCommand({ Bucket: safe }));
      const dlq = await clients.sqs.send(new CreateQueueCommand({ QueueName: `${safe}-dlq.fifo`, Attributes: { FifoQueue: 'true' } }));
      const dlqArn = (await clients.sqs.send(new GetQueueAttributesCommand({ QueueUrl: dlq.QueueUrl, AttributeNames: ['QueueArn'] }))).Attributes!.QueueArn!;
      const queue = await clients.sqs.send(
        new CreateQueueCommand({
          QueueName: `${safe}.fifo`,
          Attributes: {
            FifoQueue: 'true',
            ContentBasedDeduplication: 'false',
            // The template's own visibility, retention and redrive (the stack test holds the template to them).
            VisibilityTimeout: String(FRONTIER_QUEUE.visibilityTimeoutSeconds),
            MessageRetentionPeriod: String(FRONTIER_QUEUE.retentionSeconds),
            RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlqArn, maxReceiveCount: FRONTIER_QUEUE.maxReceiveCount }),
          },
        }),
      );
      const queueArn = (await clients.sqs.send(new GetQueueAttributesCommand({ QueueUrl: queue.QueueUrl, AttributeNames: ['QueueArn'] }))).Attributes!
        .QueueArn!;
      // The index the construct creates: cosine, the local provider's dimension.
      await vectors.send(new CreateIndexCommand({ vectorBucketName: safe, indexName: 'pages', dataType: 'float32', dimension: 512, distanceMetric: 'cosine' }));
      return { table: safe, bucket: safe, queueUrl: queue.QueueUrl!, queueArn, dlqUrl: dlq.QueueUrl!, vectorBucket: safe, vectorIndex: 'pages' };
    },
    async stop() {
      clients.dynamo.destroy();
      clients.s3.destroy();
      clients.sqs.destroy();
      clients.sfn.destroy();
      vectors.destroy();
      await s3vectors.close();
      await bus.close();
      await stores.stop();
      await close(sqs);
    },
  };
}

const count = (m: Map<string, number>, key: string, n = 1) => m.set(key, (m.get(key) ?? 0) + n);

function metering(stores: StoreEmulators['servers'], sqs: Server): Meter {
  const meter: Meter = {
    requests: new Map(),
    writeUnits: 0,
    readUnits: 0,
    reset() {
      meter.requests.clear();
      meter.writeUnits = 0;
      meter.readUnits = 0;
    },
  };
  stores?.dynamo.on('request', (req: IncomingMessage) => {
    const op = String(req.headers['x-amz-target'] ?? '').split('.')[1] ?? 'unknown';
    count(meter.requests, `dynamodb:${op}`);
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      if (op === 'PutItem' || op === 'UpdateItem' || op === 'DeleteItem') meter.writeUnits += Math.max(1, Math.ceil(body.length / 1024));
      else if (op === 'BatchWriteItem') {
        const items = Object.values((JSON.parse(body.toString()) as { RequestItems: Record<string, unknown[]> }).RequestItems).flat();
        for (const item of items) meter.writeUnits += Math.max(1, Math.ceil(JSON.stringify(item).length / 1024));
      } else if (op === 'BatchGetItem') {
        meter.readUnits += Object.values((JSON.parse(body.toString()) as { RequestItems: Record<string, { Keys: unknown[] }> }).RequestItems).reduce(
          (n, r) => n + r.Keys.length,
          0,
        );
      } else if (op === 'GetItem' || op === 'Query' || op === 'Scan') meter.readUnits += 1;
    });
  });
  stores?.s3.on('request', (req: IncomingMessage) => count(meter.requests, `s3:${req.method === 'PUT' ? 'PUT' : 'GET'}`));
  sqs.on('request', (req: IncomingMessage) => count(meter.requests, `sqs:${String(req.headers['x-amz-target'] ?? 'query').split('.')[1] ?? 'unknown'}`));
  return meter;
}

async function freePort(): Promise<number> {
  const { createServer } = await import('node:net');
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}
