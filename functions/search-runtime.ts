// What the search API Lambda builds once per container: only the adapters it reads through (the
// table, the bucket's full-text generations, the S3 Vectors index) and the query embedder, not the
// crawl runtime, whose fetcher and extraction would only slow its cold start.
import { QueryEmbeddingCache } from '../shared/enrich/query-cache.js';
import { lambdaEnvironment } from '../shared/config/lambda-environment.js';
import { handle } from 'hono/aws-lambda';
import { S3VectorsClient } from '@aws-sdk/client-s3vectors';
import { createApi, type ApiDeps } from '../shared/api/app.js';
import { mcpHttpHandler } from '../shared/api/mcp.js';
import { firecrawlRoutes, runJson } from '../shared/api/routes/firecrawl.js';
import { runWarcArchive } from '../shared/pipeline/cloud/run-archive.js';
import { loadUiAssets } from '../shared/api/ui-assets.js';
import { adaptPowertools, functionLogger } from './powertools-logger.js';
import { awsClients } from '../shared/store/aws/clients.js';
import { DynamoEnrichStore } from '../shared/store/aws/dynamo-enrich.js';
import { DynamoGraph } from '../shared/store/aws/dynamo-graph.js';
import { DynamoCrawlStore } from '../shared/store/aws/dynamo-store.js';
import { S3BlobStore, S3Objects } from '../shared/store/aws/s3-store.js';
import { S3VectorsIndex } from '../shared/store/aws/s3-vectors.js';
import type { VectorIndex } from '../shared/ports/index.js';
import { resolveSettings } from '../shared/config/resolve.js';
import { ApiCrawls } from '../shared/pipeline/cloud/api-crawls.js';
import { SfnWorkflow } from '../shared/store/aws/sfn-workflow.js';
import { createEmbedder } from '../shared/enrich/embedder-factory.js';
import { indexSearch } from '../shared/search/hybrid.js';
import { chatClient } from '../shared/enrich/chat-client.js';
import { chatQuestions } from '../shared/api/firecrawl-question.js';

export type Handler = ReturnType<typeof handle>;

const NO_VECTORS: VectorIndex = {
  upsert: () => Promise.reject(new Error('this deployment has no vector index (enrichment: false)')),
  delete: () => Promise.reject(new Error('this deployment has no vector index (enrichment: false)')),
  query: async () => [],
  list: async () => ({ entries: [] }),
  entriesOf: async () => [],
};

const handlers = new Map<string, Handler>();

/** How long a Firecrawl scrape or map waits for its page: inside the function's timeout (`search-api` in the construct's sizing). */
export const FIRECRAWL_WAIT_MS = 75_000;

/** The search API of this container's table, bucket and vector index, as a Lambda handler (built once). */
export function searchApi(): Handler {
  const env = process.env;
  const key = [
    env.TABLE_NAME,
    env.BUCKET_NAME,
    env.VECTOR_BUCKET_NAME,
    env.VECTOR_INDEX_NAME,
    env.API_KEY_SHA256,
    env.AWS_ENDPOINT_URL_S3VECTORS,
    env.RUN_MACHINE_ARN,
    env.API_CRAWL_SETTINGS,
    env.API_CRAWL_LIMITS,
    env.TRAWL_PROVIDER,
  ].join('|');
  let h = handlers.get(key);
  if (!h) {
    const config = lambdaEnvironment(env);
    const table = config.table;
    const clients = awsClients({ dynamodb: env.AWS_ENDPOINT_URL_DYNAMODB, s3: env.AWS_ENDPOINT_URL_S3, sfn: env.AWS_ENDPOINT_URL_SFN });
    const objects = new S3Objects(clients.s3, config.bucket);
    const blobs = new S3BlobStore(objects);
    // With enrichment off there is no vector index: searches find nothing, every other route works.
    const vectors: VectorIndex = config.vectorBucket
      ? new S3VectorsIndex(new S3VectorsClient({ endpoint: env.AWS_ENDPOINT_URL_S3VECTORS }), config.vectorBucket, config.vectorIndex)
      : NO_VECTORS;
    const store = new DynamoCrawlStore(clients.doc, table, { blobs });
    // The deployment's provider settings (TRAWL_PROVIDER, TRAWL_CHAT_MODEL, TRAWL_EMBED_MODEL, TRAWL_EMBED_DIMENSION).
    const providers = resolveSettings({}, env, (name) => `the function's environment (${name})`);
    // The deployment's enrichment has a chat model: a crawl's extract schema and Firecrawl's json need one.
    const chatModel = env.TRAWL_PROVIDER === 'bedrock';
    // With `api.startCrawls` the construct names the run state machine: POST /crawls starts it (IAM-authorised).
    const crawls = config.runMachineArn
      ? {
          jobs: new ApiCrawls({
            store,
            runs: new SfnWorkflow(clients.sfn, config.runMachineArn),
            defaults: config.apiCrawlSettings,
            limits: config.apiCrawlLimits,
            admins: config.apiAdmins,
            chatModel,
          }),
          allowPrivateNetwork: config.apiCrawlSettings.allowPrivateNetwork === true,
        }
      : undefined;
    const deps: ApiDeps = {
      store,
      changes: store.changes,
      graph: new DynamoGraph(clients.doc, table),
      enrich: new DynamoEnrichStore(clients.doc, table, blobs, objects),
      vectors,
      // Queries are embedded as the pages were.
      embedder: new QueryEmbeddingCache(createEmbedder(providers, env)),
    };
    const api = createApi(deps, {
      apiKey: config.apiKeySha256 ? { header: config.apiKeyHeader, sha256: config.apiKeySha256 } : undefined,
      // The Function URL's own host (`<id>.lambda-url.<region>.on.aws`), plus any custom domain in front of it.
      allowedHosts: [`.lambda-url.${env.AWS_REGION ?? 'us-east-1'}.on.aws`, ...config.apiAllowedHosts],
      ui: loadUiAssets(),
      logger: adaptPowertools(functionLogger('search-api')),
      crawls,
      // Behind IAM auth the signed request authorises writes (AWS checked lambda:InvokeFunctionUrl before
      // it arrived); a public URL's shared key never writes.
      writeAuth: config.apiKeySha256 ? 'token' : 'iam',
      writers: config.apiWriters,
      // Firecrawl's routes over the same crawls and stores: `json` answers from the extraction a run's page workflow stored.
      ...(crawls
        ? {
            firecrawl: firecrawlRoutes({
              jobs: crawls.jobs,
              read: (use) => use({ store, graph: deps.graph, blobs, archive: runWarcArchive(objects), enrich: deps.enrich }),
              json: runJson(chatModel),
              // The question format: the deployment's Bedrock chat model, from the page's passages.
              questions: chatQuestions(chatModel ? chatClient(providers, env) : undefined),
              // POST /search: the deployment's own hybrid index (the table's full text and the vector index).
              search: (q, limit) => indexSearch({ enrich: deps.enrich, vectors: deps.vectors, embedder: deps.embedder }, q, limit),
              allowPrivateNetwork: crawls.allowPrivateNetwork,
              waitMs: FIRECRAWL_WAIT_MS,
              webhookRefusal:
                "a crawl's own webhook is not served by the cloud API: every crawl's start and end go on the construct's event bus (trawl.crawl.started, trawl.crawl.finished); route them to your receiver with an EventBridge rule",
            }),
          }
        : {}),
      // The MCP tools on the same URL and auth: search, pages and links; crawl and crawl_status with api.startCrawls.
      mcp: mcpHttpHandler({
        read: (use) => use(deps),
        ...(crawls ? { jobs: crawls.jobs } : {}),
        allowPrivateNetwork: crawls?.allowPrivateNetwork ?? false,
      }),
    });
    h = handle(api);
    handlers.set(key, h);
  }
  return h;
}
