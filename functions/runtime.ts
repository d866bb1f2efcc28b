// What every handler shares: the adapters built once per container from the environment, and
// Powertools logging and metrics. A handler only parses its event, calls a stage, shapes the result.
import { lambdaEnvironment } from '../shared/config/lambda-environment.js';
import { Logger as PowertoolsLogger } from '@aws-lambda-powertools/logger';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { createLogger } from '../shared/log/logger.js';
import { adaptPowertools, functionLogger } from './powertools-logger.js';
import type { CrawlSettings } from '../shared/config/settings.js';
import { rendererFor } from '../shared/pipeline/stages/context.js';
import type { Renderer } from '../shared/render/renderer.js';
import type { CloudDeps } from '../shared/pipeline/cloud/cloud-context.js';
import { awsClients, type AwsClients } from '../shared/store/aws/clients.js';
import { DynamoGraph } from '../shared/store/aws/dynamo-graph.js';
import { DynamoCrawlStore } from '../shared/store/aws/dynamo-store.js';
import { S3BlobStore, S3Objects } from '../shared/store/aws/s3-store.js';
import { SqsFrontier } from '../shared/store/aws/sqs-frontier.js';
import { SfnWorkflow } from '../shared/store/aws/sfn-workflow.js';
import { DynamoArchivedPages } from '../shared/store/aws/dynamo-archived.js';
import { EventBridgeBus } from '../shared/store/aws/event-bus.js';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';

export { MetricUnit };

export interface Runtime extends CloudDeps {
  store: DynamoCrawlStore;
  clients: AwsClients;
  graph: DynamoGraph;
  frontier: SqsFrontier;
  /** The page workflow (set on the fetch worker, which starts it). */
  pageWorkflow: SfnWorkflow;
  metrics: Metrics;
  powertools: PowertoolsLogger;
}

const runtimes = new Map<string, Runtime>();
const renderers = new Map<string, Renderer>();

/** One browser per container and render settings: launched once, reused by every invocation. */
export function containerRenderer(settings: CrawlSettings): Renderer {
  const key = JSON.stringify([settings.userAgent, settings.allowPrivateNetwork, Object.entries(settings).filter(([k]) => k.startsWith('render'))]);
  let renderer = renderers.get(key);
  if (!renderer) {
    renderer = rendererFor(settings, {}, createLogger('warn'));
    renderers.set(key, renderer);
  }
  return renderer;
}

/** Closes the container's browsers (tests; a Lambda container is frozen instead). */
export async function closeRenderers(): Promise<void> {
  const all = [...renderers.values()];
  renderers.clear();
  await Promise.all(all.map((r) => r.close()));
}

/** The adapters for this container's table, bucket and queue (cached; tests with other names get their own). */
export function runtime(service: string): Runtime {
  const env = process.env;
  const config = lambdaEnvironment(env);
  const { table, bucket, queueUrl } = config;
  const key = [
    service,
    table,
    bucket,
    queueUrl,
    env.DEAD_LETTER_QUEUE_URL,
    env.PAGE_WORKFLOW_ARN,
    env.AWS_ENDPOINT_URL_DYNAMODB,
    env.AWS_ENDPOINT_URL_S3,
    env.AWS_ENDPOINT_URL_SQS,
    env.AWS_ENDPOINT_URL_SFN,
    env.URL_LEASE_MS,
    env.TURN_STALE_MS,
    env.EXTRACTED_SNAPSHOTS,
    env.EVENT_BUS_NAME,
    env.AWS_ENDPOINT_URL_EVENTBRIDGE,
  ].join('|');
  const cached = runtimes.get(key);
  if (cached) return cached;
  const clients = awsClients({
    dynamodb: env.AWS_ENDPOINT_URL_DYNAMODB,
    s3: env.AWS_ENDPOINT_URL_S3,
    sqs: env.AWS_ENDPOINT_URL_SQS,
    sfn: env.AWS_ENDPOINT_URL_SFN,
  });
  const objects = new S3Objects(clients.s3, bucket);
  const blobs = new S3BlobStore(objects);
  const powertools = functionLogger(service);
  const store = new DynamoCrawlStore(clients.doc, table, {
    blobs,
    frontierRetentionDays: config.frontierRetentionDays,
    fetchRetentionDays: config.fetchRetentionDays,
  });
  const rt: Runtime = {
    clients,
    objects,
    blobs,
    powertools,
    store,
    changes: store.changes,
    archivedPages: new DynamoArchivedPages(clients.doc, table),
    graph: new DynamoGraph(clients.doc, table),
    frontier: new SqsFrontier(clients.sqs, queueUrl, config.deadLetterUrl),
    pageWorkflow: new SfnWorkflow(clients.sfn, config.pageWorkflowArn),
    logger: adaptPowertools(powertools),
    urlLeaseMs: config.urlLeaseMs,
    extractedSnapshots: config.extractedSnapshots,
    turnStaleMs: config.turnStaleMs,
    ...(config.eventBusName
      ? { events: new EventBridgeBus(new EventBridgeClient({ region: env.AWS_REGION, endpoint: env.AWS_ENDPOINT_URL_EVENTBRIDGE }), config.eventBusName) }
      : {}),
    metrics: new Metrics({ namespace: 'trawl', serviceName: 'trawl', defaultDimensions: { function: service } }),
  };
  runtimes.set(key, rt);
  return rt;
}

/** Runs a handler body with the invocation's metrics flushed at the end, failure or not. */
export async function instrumented<T>(rt: Runtime, body: () => Promise<T>): Promise<T> {
  const started = Date.now();
  try {
    return await body();
  } catch (err) {
    rt.metrics.addMetric('HandlerErrors', MetricUnit.Count, 1);
    throw err;
  } finally {
    rt.metrics.addMetric('HandlerMs', MetricUnit.Milliseconds, Date.now() - started);
    rt.metrics.publishStoredMetrics();
  }
}
