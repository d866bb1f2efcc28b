// The enrichment store of a function's table and bucket, with its full-text index in S3: for the
// Summarize and Index steps (through enrich-runtime.ts) and for Progress, which counts the text log
// and so needs no S3 Vectors or Bedrock client in its bundle.
import { lambdaEnvironment } from '../shared/config/lambda-environment.js';
import { DynamoEnrichStore } from '../shared/store/aws/dynamo-enrich.js';
import type { S3Objects } from '../shared/store/aws/s3-store.js';
import type { Runtime } from './runtime.js';

/** The enrichment store of this container's table and bucket, with its full-text index. */
export function enrichStore(rt: Runtime): DynamoEnrichStore {
  const objects = rt.objects as S3Objects;
  return new DynamoEnrichStore(rt.clients.doc, lambdaEnvironment().table, rt.blobs, objects);
}
