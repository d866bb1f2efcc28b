// Runs the first crawl of crawls.json on the stack deploy.sh put into LocalStack: starts the run
// state machine, waits for the execution to end, then prints what the run stored (DynamoDB items
// by type, S3 objects by prefix). Usage: node localstack/crawl.mjs [endpoint]
import { readFileSync } from 'node:fs';
import { DescribeExecutionCommand, SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { DynamoDBClient, ScanCommand } from '@aws-sdk/client-dynamodb';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';

const endpoint = process.argv[2] ?? 'http://localhost:4566';
const client = { endpoint, region: process.env.AWS_REGION ?? 'us-east-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } };
const outputs = Object.values(JSON.parse(readFileSync(new URL('./outputs.json', import.meta.url), 'utf8')))[0];
const output = (part) => {
  const hit = Object.entries(outputs).find(([k]) => k.includes(part));
  if (!hit) throw new Error(`localstack/outputs.json has no output named like ${part}: deploy again with ./localstack/deploy.sh`);
  return hit[1];
};
const crawl = JSON.parse(readFileSync(new URL('../crawls.json', import.meta.url), 'utf8')).crawls[0];
const input = { crawl: crawl.name, seeds: crawl.seeds, settings: crawl.limits ?? {}, maxMinutes: crawl.maxMinutes };

const sfn = new SFNClient(client);
const { executionArn } = await sfn.send(new StartExecutionCommand({ stateMachineArn: output('RunStateMachineArn'), input: JSON.stringify(input) }));
console.log(`started ${crawl.name}: ${executionArn}`);
let status = 'RUNNING';
for (;;) {
  const d = await sfn.send(new DescribeExecutionCommand({ executionArn }));
  if (d.status !== status || d.status !== 'RUNNING') console.log(`execution ${d.status}`);
  status = d.status;
  if (status !== 'RUNNING') {
    if (d.output) console.log(d.output);
    if (d.error) console.log(`${d.error}: ${d.cause ?? ''}`);
    break;
  }
  await new Promise((r) => setTimeout(r, 10_000));
}

const types = new Map();
const dynamo = new DynamoDBClient(client);
let key;
do {
  const page = await dynamo.send(
    new ScanCommand({ TableName: output('TableName'), ExclusiveStartKey: key, ProjectionExpression: '#t', ExpressionAttributeNames: { '#t': 'type' } }),
  );
  for (const item of page.Items ?? []) types.set(item.type?.S ?? '?', (types.get(item.type?.S ?? '?') ?? 0) + 1);
  key = page.LastEvaluatedKey;
} while (key);
console.log('DynamoDB items by type:', Object.fromEntries([...types].sort()));

const prefixes = new Map();
const s3 = new S3Client({ ...client, forcePathStyle: true });
let token;
do {
  const page = await s3.send(new ListObjectsV2Command({ Bucket: output('BucketName'), ContinuationToken: token }));
  for (const o of page.Contents ?? []) prefixes.set(o.Key.split('/')[0], (prefixes.get(o.Key.split('/')[0]) ?? 0) + 1);
  token = page.NextContinuationToken;
} while (token);
console.log('S3 objects by prefix:', Object.fromEntries([...prefixes].sort()));
process.exit(status === 'SUCCEEDED' ? 0 : 1);
