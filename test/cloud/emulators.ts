// In-process AWS emulators on loopback, speaking the real wire protocols: dynalite (DynamoDB),
// s3rver (S3) and local-aws-sqs (SQS). The table, bucket and queues are made as the stack makes them.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CreateTableCommand } from '@aws-sdk/client-dynamodb';
import { CreateBucketCommand } from '@aws-sdk/client-s3';
import { CreateQueueCommand, GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import dynalite from 'dynalite';
import S3rver from 's3rver';
import { createSqsServer } from 'local-aws-sqs';
import { awsClients, type AwsClients, type AwsEndpoints } from '../../shared/store/aws/clients.js';
import { TABLE_DEFINITION } from '../../shared/store/aws/table.js';
import { tempDir } from '../helpers.js';

export interface Emulators {
  endpoints: AwsEndpoints;
  clients: AwsClients;
  /** Makes a fresh table, bucket and FIFO queue (with its DLQ) with names unique to the caller. */
  provision(name: string): Promise<{ table: string; bucket: string; queueUrl: string; queueArn: string; dlqUrl: string }>;
  stop(): Promise<void>;
}

const close = (server: Server) => new Promise<void>((resolve) => {
  server.closeAllConnections?.();
  server.close(() => resolve());
});

let sqsPort = 0;

/** Starts the three emulators on free loopback ports. */
export async function startEmulators(): Promise<Emulators> {
  const dynamo = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 }) as Server;
  await new Promise<void>((r) => dynamo.listen(0, '127.0.0.1', r));
  const s3dir = tempDir('trawl-s3-');
  const s3 = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: s3dir.dir });
  const s3Address = (await s3.run()) as AddressInfo;
  // local-aws-sqs needs a port up front: take one the OS just handed out and released.
  sqsPort = await freePort();
  const sqs = await createSqsServer({ port: sqsPort, hostname: '127.0.0.1', emulateQueueCreationLifecycle: false });
  const endpoints: AwsEndpoints = {
    region: 'us-east-1',
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' }, // s3rver's fixed key; the others accept any
    dynamodb: `http://127.0.0.1:${(dynamo.address() as AddressInfo).port}`,
    s3: `http://127.0.0.1:${s3Address.port}`,
    sqs: `http://127.0.0.1:${sqsPort}`,
  };
  const clients = awsClients(endpoints);
  return {
    endpoints,
    clients,
    async provision(name) {
      const safe = name.replace(/[^a-z0-9-]/gi, '-').toLowerCase().slice(0, 40);
      await clients.dynamo.send(new CreateTableCommand({ TableName: safe, ...TABLE_DEFINITION }));
      await clients.s3.send(new CreateBucketCommand({ Bucket: safe }));
      const dlq = await clients.sqs.send(new CreateQueueCommand({ QueueName: `${safe}-dlq.fifo`, Attributes: { FifoQueue: 'true' } }));
      const dlqArn = (await clients.sqs.send(new GetQueueAttributesCommand({ QueueUrl: dlq.QueueUrl, AttributeNames: ['QueueArn'] }))).Attributes!.QueueArn!;
      const queue = await clients.sqs.send(new CreateQueueCommand({
        QueueName: `${safe}.fifo`,
        Attributes: { FifoQueue: 'true', ContentBasedDeduplication: 'false', VisibilityTimeout: '30', RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlqArn, maxReceiveCount: 5 }) },
      }));
      const queueArn = (await clients.sqs.send(new GetQueueAttributesCommand({ QueueUrl: queue.QueueUrl, AttributeNames: ['QueueArn'] }))).Attributes!.QueueArn!;
      return { table: safe, bucket: safe, queueUrl: queue.QueueUrl!, queueArn, dlqUrl: dlq.QueueUrl! };
    },
    async stop() {
      clients.dynamo.destroy();
      clients.s3.destroy();
      clients.sqs.destroy();
      await close(dynamo);
      await s3.close();
      await close(sqs);
      s3dir.cleanup();
    },
  };
}

async function freePort(): Promise<number> {
  const { createServer } = await import('node:net');
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}
