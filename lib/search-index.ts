import { Fn, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import { environmentOf } from '../shared/config/lambda-environment.js';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as s3vectors from 'aws-cdk-lib/aws-s3vectors';
import { Construct } from 'constructs';
import { nagRef } from './nag.js';
import { DEFAULT_MODELS } from '../shared/config/enrich-settings.js';
import { CrawlConfigError, errorMessage } from '../shared/errors.js';
import { schemaValidator } from '../shared/enrich/extract-spec.js';
import { DEFAULT_HASHING } from '../shared/enrich/local-embedding.js';

/** Summarize and Index in the cloud: which provider, which models, how many calls at once. */
export interface EnrichmentProps {
  /**
   * `local`: the offline methods (extractive summary, keyphrase tags, hashed n-gram embeddings) inside the Lambdas;
   * `bedrock`: the Converse API and Titan Text Embeddings V2, with permissions for the two model ids only.
   * @default 'local'
   */
  readonly provider?: 'local' | 'bedrock';
  /**
   * Bedrock model for summaries and tags (a foundation-model id, or a cross-region inference profile such as `us.anthropic…`).
   * @default 'anthropic.claude-3-haiku-20240307-v1:0'
   */
  readonly chatModel?: string;
  /**
   * Bedrock embedding model.
   * @default 'amazon.titan-embed-text-v2:0'
   */
  readonly embedModel?: string;
  /**
   * Vector dimension (the S3 Vectors index is created with it; Titan V2 takes 256, 512 or 1024).
   * @default 512
   */
  readonly dimension?: number;
  /**
   * Reserved concurrency of the Summarize and of the Index function (1–1000): the most model calls in flight, so the
   * model's rate limits hold; a throttled call is retried by Step Functions with back-off.
   * @default 4 with bedrock; unreserved with local (no external limit)
   */
  readonly maxConcurrency?: number;
  /**
   * Pages indexed since the last full-text generation past which a running run builds a new one
   * (1–1,000,000). Each full-text query reads those pages' terms from the table: at 5,000 a query
   * took 1.6 s (`bench:cloud-search`); a rebuild reads every page's terms once.
   * @default 1000
   */
  readonly textRebuildLogEntries?: number;
  /**
   * A JSON Schema each page's values are extracted to by the Summarize step with the Bedrock chat
   * model, each value with the chunks it came from (see `--extract-schema`); needs `provider:
   * 'bedrock'`. It travels in the functions' environment: 2,048 characters at most.
   */
  readonly extractSchema?: Record<string, unknown>;
  /** What to look for beyond the schema (see `--extract-prompt`). */
  readonly extractPrompt?: string;
}

/** The longest extract schema the construct takes (a function's whole environment is 4 KB). */
export const MAX_EXTRACT_SCHEMA_CHARS = 2048;

/** See `EnrichmentProps.textRebuildLogEntries`. */
export const DEFAULT_TEXT_REBUILD_LOG_ENTRIES = 1000;

export interface SearchIndexProps extends EnrichmentProps {
  removalPolicy: RemovalPolicy;
}

/** Inference profiles put a geography before the model id (`us.`, `eu.`, `apac.`, `global.` …). */
const PROFILE = /^(us|eu|apac|us-gov|ca|jp|au|global)\.(.+)$/;

/** The settings the Summarize and Index functions read (the names of trawl's own settings' environment variables). */
export function enrichmentEnvironment(p: EnrichmentProps): Record<string, string> {
  const provider = p.provider ?? 'local';
  const env: Record<string, string> = { TRAWL_PROVIDER: provider, TRAWL_EMBED_DIMENSION: String(dimensionOf(p)) };
  if (provider === 'bedrock') {
    env.TRAWL_CHAT_MODEL = p.chatModel ?? DEFAULT_MODELS.bedrock.chat;
    env.TRAWL_EMBED_MODEL = p.embedModel ?? DEFAULT_MODELS.bedrock.embed;
  }
  if (p.extractSchema) env.TRAWL_EXTRACT_SCHEMA = JSON.stringify(p.extractSchema);
  if (p.extractPrompt) env.TRAWL_EXTRACT_PROMPT = p.extractPrompt;
  return env;
}

function dimensionOf(p: EnrichmentProps): number {
  return p.dimension ?? ((p.provider ?? 'local') === 'bedrock' ? DEFAULT_MODELS.bedrock.dimension : DEFAULT_HASHING.dimension);
}

/** Checks the enrichment props: a wrong one fails synthesis naming the prop and what to write. */
export function checkEnrichmentProps(where: string, p: EnrichmentProps): void {
  const provider = p.provider ?? 'local';
  if (!['local', 'bedrock'].includes(provider))
    throw new CrawlConfigError(`${where}: enrichment.provider is "${provider}"; write "local" or "bedrock" (an OpenAI-compatible endpoint is embedded-only)`);
  const d = dimensionOf(p);
  if (!Number.isInteger(d) || d < 1 || d > 4096) throw new CrawlConfigError(`${where}: enrichment.dimension is ${d}; it must be a whole number from 1 to 4096`);
  if (provider === 'bedrock' && /titan-embed-text-v2/.test(p.embedModel ?? DEFAULT_MODELS.bedrock.embed) && ![256, 512, 1024].includes(d))
    throw new CrawlConfigError(`${where}: enrichment.dimension is ${d}; Titan Text Embeddings V2 takes 256, 512 or 1024`);
  const r = p.textRebuildLogEntries;
  if (r !== undefined && (!Number.isInteger(r) || r < 1 || r > 1_000_000))
    throw new CrawlConfigError(`${where}: enrichment.textRebuildLogEntries is ${r}; it must be a whole number from 1 to 1000000`);
  if (p.extractSchema !== undefined) {
    if (provider !== 'bedrock')
      throw new CrawlConfigError(
        `${where}: enrichment.extractSchema needs an LLM provider: write enrichment.provider "bedrock" (the local provider has no model to ask)`,
      );
    const text = JSON.stringify(p.extractSchema);
    if (text.length > MAX_EXTRACT_SCHEMA_CHARS)
      throw new CrawlConfigError(
        `${where}: enrichment.extractSchema is ${text.length} characters of JSON; it travels in the functions' environment, which holds ${MAX_EXTRACT_SCHEMA_CHARS} at most: trim its descriptions`,
      );
    try {
      schemaValidator(p.extractSchema);
    } catch (err) {
      throw new CrawlConfigError(`${where}: enrichment.extractSchema: ${errorMessage(err)}`);
    }
  }
  if (p.extractPrompt !== undefined && p.extractPrompt.length > 500)
    throw new CrawlConfigError(`${where}: enrichment.extractPrompt is ${p.extractPrompt.length} characters; 500 at most`);
  const c = p.maxConcurrency;
  if (c !== undefined && (!Number.isInteger(c) || c < 1 || c > 1000))
    throw new CrawlConfigError(`${where}: enrichment.maxConcurrency is ${c}; it must be a whole number from 1 to 1000`);
  for (const [prop, id] of [
    ['chatModel', p.chatModel],
    ['embedModel', p.embedModel],
  ] as const) {
    if (id !== undefined && !/^[A-Za-z0-9._:-]{1,200}$/.test(id))
      throw new CrawlConfigError(`${where}: enrichment.${prop} "${id}" is not a Bedrock model id (letters, digits, ".", "-", "_", ":")`);
  }
}

/**
 * The vector sink (an S3 Vectors bucket and its cosine index) and the permissions of the functions
 * that read and write it, and of those that call Bedrock, scoped to the configured model ids.
 */
export class SearchIndex extends Construct {
  readonly vectorBucket: s3vectors.CfnVectorBucket;
  readonly index: s3vectors.CfnIndex;
  readonly vectorBucketName: string;
  readonly indexName = 'pages';

  constructor(
    scope: Construct,
    id: string,
    private readonly props: SearchIndexProps,
  ) {
    super(scope, id);
    // CloudFormation names the bucket (a name fixed here would collide with a retained bucket of an
    // earlier deployment on the next one); the functions read the name off its ARN (`…:bucket/<name>`).
    this.vectorBucket = new s3vectors.CfnVectorBucket(this, 'Vectors', { encryptionConfiguration: { sseType: 'AES256' } });
    this.vectorBucketName = Fn.select(1, Fn.split('/', this.vectorBucket.attrVectorBucketArn));
    this.index = new s3vectors.CfnIndex(this, 'Index', {
      vectorBucketArn: this.vectorBucket.attrVectorBucketArn,
      indexName: this.indexName,
      dataType: 'float32',
      dimension: dimensionOf(props),
      distanceMetric: 'cosine',
      // Only filterable keys count against the 2 KB filter budget: the hash and dimension are read, never filtered on.
      metadataConfiguration: { nonFilterableMetadataKeys: ['hash', 'dimension'] },
    });
    for (const r of [this.vectorBucket, this.index]) r.applyRemovalPolicy(props.removalPolicy);
  }

  /** Environment of a function that uses the index and the providers. */
  environment(): Record<string, string> {
    return { ...environmentOf({ vectorBucket: this.vectorBucketName, vectorIndex: this.indexName }), ...enrichmentEnvironment(this.props) };
  }

  /** Lets a function read (`query`) or also write (`write`) vectors of this index only. */
  grantVectors(fn: lambda.Function, access: 'query' | 'write'): void {
    const actions = ['s3vectors:QueryVectors', 's3vectors:GetVectors', 's3vectors:ListVectors'];
    if (access === 'write') actions.push('s3vectors:PutVectors', 's3vectors:DeleteVectors');
    fn.addToRolePolicy(new iam.PolicyStatement({ actions, resources: [this.index.attrIndexArn] }));
    for (const [k, v] of Object.entries(this.environment())) fn.addEnvironment(k, v);
  }

  /** Lets a function call the configured Bedrock models (`chat`, `embed`), no other; nothing with the local provider. */
  grantModels(fn: lambda.Function, models: Array<'chat' | 'embed'>): void {
    if ((this.props.provider ?? 'local') !== 'bedrock') return;
    const env = enrichmentEnvironment(this.props);
    const ids = models.map((m) => (m === 'chat' ? env.TRAWL_CHAT_MODEL! : env.TRAWL_EMBED_MODEL!));
    const stack = Stack.of(this);
    const resources: string[] = [];
    let crossRegion = false;
    for (const modelId of ids) {
      const profile = PROFILE.exec(modelId);
      if (profile) {
        // An inference profile routes to the model in any region of its geography.
        crossRegion = true;
        resources.push(`arn:${stack.partition}:bedrock:${stack.region}:${stack.account}:inference-profile/${modelId}`);
        resources.push(`arn:${stack.partition}:bedrock:*::foundation-model/${profile[2]}`);
      } else resources.push(`arn:${stack.partition}:bedrock:${stack.region}::foundation-model/${modelId}`);
    }
    // Converse and ConverseStream are authorised as InvokeModel and InvokeModelWithResponseStream.
    fn.addToRolePolicy(new iam.PolicyStatement({ actions: ['bedrock:InvokeModel'], resources }));
    if (crossRegion) {
      Validations.of(fn.role!).acknowledge(
        ...ids
          .map((modelId) => PROFILE.exec(modelId))
          .filter((m): m is RegExpExecArray => m !== null)
          .map((m) => ({
            id: `AwsSolutions-IAM5[Resource::arn:${nagRef(this, stack.partition)}:bedrock:*::foundation-model/${m[2]}]`,
            reason: 'A cross-region inference profile serves the model from any region of its geography; only this model id.',
          })),
      );
    }
  }
}
