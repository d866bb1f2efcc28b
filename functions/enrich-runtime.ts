// What the Summarize and Index handlers add to the runtime: the enrichment store (DynamoDB, the
// full-text index in S3), the vector index (S3 Vectors) and the providers the construct configured.
// Only these stages import it, so only their bundles carry the S3 Vectors and Bedrock clients.
import { ENV, lambdaEnvironment } from '../shared/config/lambda-environment.js';
import { S3VectorsClient } from '@aws-sdk/client-s3vectors';
import { resolveSettings } from '../shared/config/resolve.js';
import { createProviders, type Providers } from '../shared/enrich/provider-factory.js';
import type { EnrichDeps } from '../shared/pipeline/stages/enrich-stage.js';
import type { DynamoEnrichStore } from '../shared/store/aws/dynamo-enrich.js';
import { S3VectorsIndex } from '../shared/store/aws/s3-vectors.js';
import { enrichStore } from './enrich-store.js';
import type { RunSpecs } from '../shared/pipeline/cloud/enrich-workflow.js';
import { runSpecs } from '../shared/pipeline/cloud/run-specs.js';
import type { Runtime } from './runtime.js';

/** The Summarize and Index steps' dependencies, and each run's own extract schema (read once a container). */
type EnrichRuntime = EnrichDeps & { enrich: DynamoEnrichStore; runSpecs: RunSpecs };

const cache = new Map<string, EnrichRuntime>();

/** The providers of the deployment: TRAWL_PROVIDER, TRAWL_CHAT_MODEL, TRAWL_EMBED_MODEL, TRAWL_EMBED_DIMENSION (set by the construct). */
export function deploymentProviders(env: NodeJS.ProcessEnv = process.env): Providers {
  const settings = resolveSettings({}, env, (name) => `the function's environment (${name})`);
  return createProviders(settings, env);
}

/** Store, vector index and providers for the Summarize and Index steps (once per container). */
export function enrichRuntime(rt: Runtime): EnrichRuntime {
  const env = process.env;
  const key = [env.TABLE_NAME, env.BUCKET_NAME, env.VECTOR_BUCKET_NAME, env.VECTOR_INDEX_NAME, env.AWS_ENDPOINT_URL_S3VECTORS, env.TRAWL_PROVIDER].join('|');
  let deps = cache.get(key);
  if (!deps) {
    const client = new S3VectorsClient({ endpoint: env.AWS_ENDPOINT_URL_S3VECTORS });
    const providers = deploymentProviders(env);
    deps = {
      enrich: enrichStore(rt),
      vectors: new S3VectorsIndex(client, vectorBucketOf(), lambdaEnvironment().vectorIndex),
      providers,
      // A run's own schema (its crawl's or request's settings) over the deployment's: a run id is its table's.
      runSpecs: runSpecs((runId) => rt.store.getRun(runId), providers),
      clock: Date.now,
      // Step Functions retries a throttled step with back-off: one quick retry here, not a long wait inside a paid invocation.
      retry: { attempts: 2 },
    };
    cache.set(key, deps);
  }
  return deps;
}

/** The vector bucket (the enrichment stages only exist where the construct made one). */
function vectorBucketOf(): string {
  const bucket = lambdaEnvironment().vectorBucket;
  if (!bucket) throw new Error(`environment variable ${ENV.vectorBucket} is not set: deploy the function with the Crawler construct, which sets it`);
  return bucket;
}
