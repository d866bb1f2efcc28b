// The CDK app: one user of the Crawler construct, with the crawls of crawls.json.
import { join } from 'node:path';
import { App, Stack, Validations } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { AwsSolutionsChecks } from 'cdk-nag';
import { loadCrawls } from './crawls-config.js';
import { Crawler } from './crawler.js';
import type { EnrichmentProps } from './search-index.js';
import { ROOT } from './stages.js';

export function buildApp(
  options: {
    crawlsFile?: string;
    outdir?: string;
    context?: Record<string, unknown>;
    /** The stack's account and region; the CDK CLI's (`CDK_DEFAULT_ACCOUNT`, `CDK_DEFAULT_REGION`) when not given. */
    env?: { account?: string; region?: string };
  } = {},
): {
  app: App;
  stack: Stack;
  crawler: Crawler;
} {
  const app = new App({ outdir: options.outdir, context: options.context });
  const stack = new Stack(app, app.node.tryGetContext('stackName') ?? 'Trawl', {
    env: options.env ?? { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
    description: 'trawl: a polite web crawler (archive, link graph, clean content)',
  });
  // For LocalStack (localstack/deploy.sh): `-c enrichment=false` leaves out Summarize, Index and the
  // S3 Vectors index (LocalStack has no S3 Vectors), `-c dashboard=false` the CloudWatch dashboard.
  // `-c enrichment='{"provider":"bedrock","extractSchema":{…}}'` gives the enrichment props.
  const enrichment = enrichmentContext(app);
  // `-c customerManagedKeys=true`: the bucket and the table under keys of their own (rotated), for accounts that require them.
  const keyed = contextFlag(app, 'customerManagedKeys') === true;
  const crawler = new Crawler(stack, 'Crawler', {
    crawls: loadCrawls(options.crawlsFile ?? join(ROOT, 'crawls.json')),
    ...(enrichment === false ? { enrichment: false as const } : typeof enrichment === 'object' ? { enrichment } : {}),
    dashboard: contextFlag(app, 'dashboard') ?? true,
    ...(keyed
      ? {
          tableProps: { encryption: dynamodb.TableEncryption.CUSTOMER_MANAGED, encryptionKey: new kms.Key(stack, 'TableKey', { enableKeyRotation: true }) },
          bucketProps: { encryption: s3.BucketEncryption.KMS, encryptionKey: new kms.Key(stack, 'BucketKey', { enableKeyRotation: true }) },
        }
      : {}),
    // `-c startCrawls=true` lets the API start crawls; `-c startCrawlSettings='{"maxRps":5}'` gives them settings.
    ...(contextFlag(app, 'startCrawls') ? { api: { startCrawls: { settings: contextObject(app, 'startCrawlSettings') } } } : {}),
  });
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  return { app, stack, crawler };
}

/** A boolean context value (`-c name=false` arrives as the string "false"); undefined when unset. */
export function contextFlag(app: App, name: string): boolean | undefined {
  const v: unknown = app.node.tryGetContext(name);
  if (v === undefined) return undefined;
  if (v === true || v === 'true') return true;
  if (v === false || v === 'false') return false;
  throw new Error(`context ${name}=${String(v)}: use true or false (cdk deploy -c ${name}=false)`);
}

if (import.meta.url === `file://${process.argv[1]}`) buildApp().app.synth();

/** The `enrichment` context: true or false, or the enrichment props as a JSON object; undefined when unset. */
function enrichmentContext(app: App): boolean | EnrichmentProps | undefined {
  const v: unknown = app.node.tryGetContext('enrichment');
  if ((typeof v === 'string' && v.trim().startsWith('{')) || (v !== null && typeof v === 'object')) return contextObject(app, 'enrichment') as EnrichmentProps;
  return contextFlag(app, 'enrichment');
}

/** A JSON object context value (a string from the command line, an object from code); {} when unset. */
export function contextObject(app: App, name: string): Record<string, unknown> {
  const v: unknown = app.node.tryGetContext(name);
  if (v === undefined) return {};
  const parsed: unknown = typeof v === 'string' ? JSON.parse(v) : v;
  if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  throw new Error(`context ${name}: give a JSON object (cdk deploy -c ${name}='{"maxPages":100}')`);
}
