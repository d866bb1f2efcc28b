import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { SQSClient } from '@aws-sdk/client-sqs';
import { SFNClient } from '@aws-sdk/client-sfn';

/** Where the AWS clients talk: the region's endpoints by default, emulators in tests. */
export interface AwsEndpoints {
  region?: string;
  dynamodb?: string;
  s3?: string;
  sqs?: string;
  sfn?: string;
  credentials?: { accessKeyId: string; secretAccessKey: string };
}

export interface AwsClients {
  dynamo: DynamoDBClient;
  doc: DynamoDBDocumentClient;
  s3: S3Client;
  sqs: SQSClient;
  sfn: SFNClient;
}

export function awsClients(e: AwsEndpoints = {}): AwsClients {
  const common = { region: e.region ?? process.env.AWS_REGION ?? 'us-east-1', credentials: e.credentials };
  const dynamo = new DynamoDBClient({ ...common, endpoint: e.dynamodb });
  return {
    dynamo,
    doc: DynamoDBDocumentClient.from(dynamo, { marshallOptions: { removeUndefinedValues: true } }),
    // Checksums only where S3 requires them: streamed bodies with flexible checksums break S3-compatible servers.
    s3: new S3Client({
      ...common,
      endpoint: e.s3,
      forcePathStyle: e.s3 !== undefined,
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    }),
    sqs: new SQSClient({ ...common, endpoint: e.sqs }),
    sfn: new SFNClient({ ...common, endpoint: e.sfn }),
  };
}
