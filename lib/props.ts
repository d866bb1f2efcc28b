import { Token } from 'aws-cdk-lib';
import { API_CRAWL_LIMIT_RANGES, DEFAULT_API_CRAWL_LIMITS } from '../shared/config/api-crawl-limits.js';
import type { Duration, RemovalPolicy } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type { TableWarmThroughput } from './storage.js';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as logs from 'aws-cdk-lib/aws-logs';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type { CrawlDefinition } from './crawls-config.js';
import type { EnrichmentProps } from './search-index.js';
import type { StageName } from './stages.js';
import { checkWebhooks, type WebhookProps } from './webhooks.js';
import { CrawlConfigError, errorMessage } from '../shared/errors.js';
import { extractSpecOf, schemaValidator } from '../shared/enrich/extract-spec.js';
import { settingsFrom } from '../shared/config/resolve.js';
import { checkEnrichmentProps } from './search-index.js';
import { STAGES } from './stages.js';
import { checkRunHistory } from './quotas.js';

/** A run's time budget when its crawl sets none (as InitRun's default). */
const DEFAULT_RUN_MINUTES = 24 * 60;
import { checkDiscoveryEnvironment } from './discovery.js';
import type { ApiCrawlLimitProps, ApiKeyApiProps, ApiProps, IamApiProps } from './api-props.js';

export type { ApiCrawlLimitProps, ApiKeyApiProps, ApiProps, IamApiProps } from './api-props.js';

/** A Lambda of your own in the page workflow, after Extract: it gets the page task and `$.results` of the steps before it. */
export interface ExtraPageStep {
  /** The state's name (letters, digits, `-`, `_`); its result lands under `$.results.<name>`. */
  readonly name: string;
  readonly fn: lambda.IFunction;
  /**
   * How long the step may take (1 s to 5 min, inside the Express workflow's limit).
   * @default Duration.seconds(60)
   */
  readonly timeout?: Duration;
}

export interface CrawlerProps {
  /** The scheduled crawls (validated here: a bad one fails `cdk synth` with the crawl's name and the field). */
  readonly crawls: CrawlDefinition[];
  /**
   * Memory (MB, 128–10240) per stage.
   * @default init-run 512, discover-targets 512, run-progress 256, finalize-run 1769, fetch-worker 512, extract-page 1024, record-failure 256, run-ended 256, render-page 2048, summarize-page 1024, index-page 1024
   */
  readonly memoryMb?: Partial<Record<StageName, number>>;
  /**
   * Fetch worker invocations running at once (2–1000: the SQS event source's maximum concurrency);
   * each takes a batch of up to 10 turns, each at its own host.
   * @default 100
   */
  readonly maxFetchConcurrency?: number;
  /**
   * Time between two progress checks of a running crawl (5 s to 1 h, whole seconds).
   * @default Duration.minutes(1)
   */
  readonly pollInterval?: Duration;
  /**
   * Raw bodies move to S3 Infrequent Access this long after they are written (whole days, at
   * least 30: S3's minimum for the transition).
   * @default Duration.days(30)
   */
  readonly rawInfrequentAccessAfter?: Duration;
  /**
   * Raw bodies are deleted this long after they are written (whole days, more than `rawInfrequentAccessAfter`).
   * @default kept forever
   */
  readonly rawRetention?: Duration;
  /**
   * Frontier items expire (DynamoDB TTL) this long after they are written (whole days, 1–3650).
   * @default Duration.days(90)
   */
  readonly frontierRetention?: Duration;
  /**
   * Fetch records (a page's history: `FETCH#` items) expire (DynamoDB TTL) this long after their
   * fetch (whole days, 1–3650). The captures stay in the WARC files.
   * @default Duration.days(400)
   */
  readonly fetchRetention?: Duration;
  /**
   * WARC files (`warc/`) move to S3 Infrequent Access this long after they are written (whole days,
   * at least 30). Replay and the page workflow read them with ranged GETs, which then cost a
   * retrieval fee.
   * @default kept in S3 Standard
   */
  readonly warcInfrequentAccessAfter?: Duration;
  /**
   * WARC files (`warc/`) are deleted this long after they are written (whole days, more than
   * `warcInfrequentAccessAfter`). Captures older than this can no longer be replayed or exported.
   * @default kept forever
   */
  readonly warcRetention?: Duration;
  /**
   * Writes each page's extraction (markdown, metadata, chunks and links) as JSON under
   * `extracted/<urlId>/<snapshot>.json` as well: one S3 PUT a page, about $0.005 per 1,000 pages
   * (`bench:cloud`). The table holds each page's latest extraction either way, and the API serves it.
   * @default false
   */
  readonly extractedSnapshots?: boolean;
  /**
   * Extracted snapshots (`extracted/`, see `extractedSnapshots`) are deleted this long after they
   * are written (whole days). The table keeps each page's latest extraction.
   * @default kept forever
   */
  readonly extractedRetention?: Duration;
  /**
   * Where every alarm is sent (DLQ depth, function errors and throttles, failed runs, timed-out
   * page workflows, DynamoDB throttling, the frontier's oldest message).
   * @default no action: the alarms show on the dashboard only
   */
  readonly alarmTopic?: sns.ITopic;
  /**
   * X-Ray tracing of the page workflows (one execution a page). The run state machine is always traced.
   * @default false: sampled traces add ~$1.2 per million pages (bench:cloud)
   */
  readonly tracePages?: boolean;
  /**
   * A CloudWatch dashboard of the frontier, the stages, the runs and the table. `false` leaves it
   * out (LocalStack creates no dashboards; `cdk deploy -c dashboard=false`).
   * @default true
   */
  readonly dashboard?: boolean;
  /**
   * Retention of every log group.
   * @default logs.RetentionDays.ONE_MONTH
   */
  readonly logRetention?: logs.RetentionDays;
  /**
   * What happens to the bucket, table and logs when the stack is deleted.
   * @default RemovalPolicy.RETAIN
   */
  readonly removalPolicy?: RemovalPolicy;
  /**
   * A table to use instead of creating one: it must have trawl's layout (string keys `PK`/`SK`, the
   * `inlinks` and `frontier` indexes, TTL on `expiresAt`, a stream for consumers). Not with `tableProps`.
   * @default a new table
   */
  readonly existingTableObj?: dynamodb.ITable;
  /**
   * Overrides for the table trawl creates (encryption key, billing, contributor insights, …); its keys,
   * indexes, stream and TTL stay trawl's. Not with `existingTableObj`.
   * @default none
   */
  readonly tableProps?: Partial<dynamodb.TableProps>;
  /**
   * What the new table and its frontier index serve from their first second (DynamoDB's warm
   * throughput; `false`: a new on-demand table's 4,000 writes and 12,000 reads a second, which then
   * double at most every 30 minutes). DynamoDB charges once for warm throughput set above its
   * defaults (see "Warm throughput" on its pricing page); the default is sized for a run at the
   * construct's default fetch concurrency (`bench:cloud-scale`).
   * @default DEFAULT_WARM_THROUGHPUT
   */
  readonly warmThroughput?: TableWarmThroughput | false;
  /**
   * A bucket to use instead of creating one (the archive: `raw/`, `warc/`, `extracted/`, `reports/`). Not with `bucketProps`.
   * @default a new private, encrypted, versioned bucket with access logs
   */
  readonly existingBucketObj?: s3.IBucket;
  /**
   * Overrides for the bucket trawl creates (encryption key, lifecycle additions, …). Not with `existingBucketObj`.
   * @default none
   */
  readonly bucketProps?: Partial<s3.BucketProps>;
  /**
   * Summarize and Index after Extract (summaries, tags, embeddings into DynamoDB and an S3 Vectors
   * index, a full-text index in S3): the provider, models and concurrency; `false` leaves both steps out.
   * @default { provider: 'local' }
   */
  readonly enrichment?: EnrichmentProps | false;
  /**
   * The search API and web UI in a Lambda behind a Function URL (`ApiUrl` output): IAM auth by
   * default (sign requests with SigV4); `auth: 'apiKey'` makes the URL public and every request
   * but `/healthz` carry a key whose SHA-256 you give. `false` leaves the API out.
   * @default { auth: 'iam' }
   */
  readonly api?: ApiProps | false;
  /**
   * Your own Lambdas after Index in the page workflow, in order (your index, a webhook).
   * @default none
   */
  readonly extraPageSteps?: ExtraPageStep[];
  /**
   * Where the Discover step finds the search and social backends' keys and endpoints, for crawls
   * whose seeds include search queries or social accounts.
   * @default a new secret (holding `{}`: put your keys in it after deploying), made only when a crawl has such a seed
   */
  readonly discovery?: DiscoveryProps;
  /**
   * Receivers of the crawler's events over HTTPS: each an EventBridge API destination behind a
   * rule on `eventBus`, carrying a key from a secret in a header, retried for 24 hours, then
   * dead-lettered (`crawler.webhooks.deadLetters`).
   * @default none
   */
  readonly webhooks?: WebhookProps[];
}

/** The search and social backends of the Discover step. */
export interface DiscoveryProps {
  /**
   * A secret whose value is a JSON object of the backends' settings and keys, by the names the
   * embedded runtime reads from its environment: `{"TRAWL_BRAVE_API_KEY": "…", "TRAWL_SERPER_API_KEY": "…",
   * "APIFY_TOKEN": "…", "TRAWL_SEARXNG_URL": "https://…"}`. Read by the Discover function only, never
   * put in an environment variable.
   * @default a new secret holding `{}` (output `DiscoverySecretArn`)
   */
  readonly existingSecretObj?: secretsmanager.ISecret;
  /**
   * Settings of the backends that are not secret, set on the Discover function's environment:
   * endpoints (`TRAWL_SEARXNG_URL`, `TRAWL_REDDIT_URL`, `TRAWL_MASTODON_URL`, `TRAWL_BSKY_URL`) and
   * Apify actors (`TRAWL_APIFY_ACTOR_X`, …). A name that holds a key or token is refused: it goes in the secret.
   * @default none
   */
  readonly environment?: Record<string, string>;
}

/** Names the built-in page steps use; a user's step may not take one. */
const RESERVED_STEPS = new Set(['Extract', 'RecordFailure', 'PageFailed', 'PageDone', 'NeedsRender', 'Render', 'ExtractRendered', 'Summarize', 'Index']);

/** The time props in the units the stack uses (seconds, days); fractional values are kept for inRange to refuse. */
export function timeProps(
  props: Pick<
    CrawlerProps,
    | 'pollInterval'
    | 'rawInfrequentAccessAfter'
    | 'rawRetention'
    | 'frontierRetention'
    | 'fetchRetention'
    | 'warcInfrequentAccessAfter'
    | 'warcRetention'
    | 'extractedRetention'
  >,
): {
  pollSeconds?: number;
  rawIaDays?: number;
  rawRetentionDays?: number;
  frontierRetentionDays?: number;
  fetchRetentionDays?: number;
  warcIaDays?: number;
  warcRetentionDays?: number;
  extractedRetentionDays?: number;
} {
  const days = (d?: Duration) => (d === undefined ? undefined : d.toHours({ integral: false }) / 24);
  return {
    pollSeconds: props.pollInterval === undefined ? undefined : props.pollInterval.toMilliseconds({ integral: false }) / 1000,
    rawIaDays: days(props.rawInfrequentAccessAfter),
    rawRetentionDays: days(props.rawRetention),
    frontierRetentionDays: days(props.frontierRetention),
    fetchRetentionDays: days(props.fetchRetention),
    warcIaDays: days(props.warcInfrequentAccessAfter),
    warcRetentionDays: days(props.warcRetention),
    extractedRetentionDays: days(props.extractedRetention),
  };
}

/** An expiry must come after the move to Infrequent Access it follows (`<prefix>Retention` > `<prefix>InfrequentAccessAfter`). */
function expiresAfterMove(where: string, prefix: string, retentionDays: number | undefined, iaDays: number | undefined, what: string): void {
  if (retentionDays === undefined || iaDays === undefined || retentionDays > iaDays) return;
  throw new CrawlConfigError(
    `${where}: ${prefix}Retention (${retentionDays} days) must be more than ${prefix}InfrequentAccessAfter (${iaDays} days): ${what} move to Infrequent Access before they expire`,
  );
}

function inRange(where: string, prop: string, value: number | undefined, [min, max]: [number, number], unit = ''): void {
  if (value === undefined || Token.isUnresolved(value)) return;
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new CrawlConfigError(`${where}: ${prop} is ${value}${unit}; it must be a whole number from ${min} to ${max}${unit}`);
  }
}

/**
 * A crawl's own extract schema (`limits.extractSchema`, `extractPrompt`): the Summarize step fills it
 * with the deployment's chat model, so the construct's enrichment must have one (Bedrock); it is the
 * schema itself (an object or its JSON text: a Lambda reads no file of yours), and a valid one.
 */
function checkCrawlExtractSpec(where: string, limits: Record<string, unknown>, enrichment: CrawlerProps['enrichment']): void {
  const { extractSchema, extractPrompt } = limits;
  if (extractSchema === undefined && extractPrompt === undefined) return;
  if (!enrichment || (enrichment.provider ?? 'local') !== 'bedrock')
    throw new CrawlConfigError(
      `${where}: limits.extractSchema needs the construct's enrichment with a chat model: write enrichment: { provider: "bedrock" } (the local provider has no model to ask)`,
    );
  if (typeof extractSchema === 'string' && !extractSchema.trim().startsWith('{'))
    throw new CrawlConfigError(`${where}: limits.extractSchema is a file name; write the JSON Schema object itself (the functions read no file of yours)`);
  try {
    const spec = extractSpecOf({
      extractSchema: extractSchema as string | Record<string, unknown> | undefined,
      extractPrompt: extractPrompt as string | undefined,
    });
    if (spec) schemaValidator(spec.schema);
  } catch (err) {
    throw new CrawlConfigError(`${where}: limits.extractSchema: ${errorMessage(err)}`);
  }
}

/**
 * Checks the construct's props: a value out of range fails synthesis with the prop and the
 * allowed range (nothing is clamped silently), and escape hatches that exclude each other are
 * not given together.
 */
export function checkCrawlerProps(id: string, props: CrawlerProps): void {
  const where = `Crawler "${id}"`;
  for (const [stage, mb] of Object.entries(props.memoryMb ?? {})) {
    if (!(STAGES as readonly string[]).includes(stage))
      throw new CrawlConfigError(`${where}: memoryMb names an unknown stage "${stage}"; the stages are ${STAGES.join(', ')}`);
    inRange(where, `memoryMb["${stage}"]`, mb, [128, 10_240], ' MB');
  }
  inRange(where, 'maxFetchConcurrency', props.maxFetchConcurrency, [2, 1000]);
  const times = timeProps(props);
  const { pollSeconds, rawIaDays, rawRetentionDays, frontierRetentionDays } = times;
  inRange(where, 'pollInterval', pollSeconds, [5, 3600], ' s');
  for (const crawl of props.crawls ?? []) {
    checkCrawlExtractSpec(`${where}: crawl "${crawl.name}"`, crawl.limits ?? {}, props.enrichment);
    const limit = Number((crawl.limits as { maxMinutes?: unknown } | undefined)?.maxMinutes);
    checkRunHistory(
      `${where}: crawl "${crawl.name}"`,
      crawl.maxMinutes ?? (limit > 0 ? limit : DEFAULT_RUN_MINUTES),
      pollSeconds ?? 60,
      props.enrichment !== false,
    );
  }
  inRange(where, 'rawInfrequentAccessAfter', rawIaDays, [30, 36_500], ' days');
  inRange(where, 'rawRetention', rawRetentionDays, [1, 36_500], ' days');
  inRange(where, 'frontierRetention', frontierRetentionDays, [1, 3650], ' days');
  inRange(where, 'fetchRetention', times.fetchRetentionDays, [1, 3650], ' days');
  inRange(where, 'warcInfrequentAccessAfter', times.warcIaDays, [30, 36_500], ' days');
  inRange(where, 'warcRetention', times.warcRetentionDays, [1, 36_500], ' days');
  inRange(where, 'extractedRetention', times.extractedRetentionDays, [1, 36_500], ' days');
  expiresAfterMove(where, 'raw', rawRetentionDays, rawIaDays ?? 30, 'raw bodies');
  expiresAfterMove(where, 'warc', times.warcRetentionDays, times.warcIaDays, 'WARC files');
  if (props.existingTableObj && props.tableProps)
    throw new CrawlConfigError(`${where}: give existingTableObj or tableProps, not both (tableProps shape a table trawl creates)`);
  if (props.existingBucketObj && props.bucketProps)
    throw new CrawlConfigError(`${where}: give existingBucketObj or bucketProps, not both (bucketProps shape a bucket trawl creates)`);
  if (props.enrichment) checkEnrichmentProps(where, props.enrichment);
  checkDiscoveryEnvironment(where, props.discovery?.environment);
  checkWebhooks(where, props.webhooks);
  if (props.api) {
    // Checked as JavaScript callers may pass it: any shape.
    const api = props.api as Partial<Omit<ApiKeyApiProps, 'auth'>> & { auth?: string };
    const auth = api.auth ?? 'iam';
    if (auth !== 'iam' && auth !== 'apiKey') throw new CrawlConfigError(`${where}: api.auth is "${auth}"; write "iam" or "apiKey"`);
    if (auth === 'apiKey' && !/^[0-9a-fA-F]{64}$/.test(api.apiKeySha256 ?? ''))
      throw new CrawlConfigError(
        `${where}: api.auth "apiKey" needs api.apiKeySha256, the SHA-256 of the key in hex (64 characters: printf %s "$KEY" | sha256sum)`,
      );
    if (auth === 'iam' && api.apiKeySha256 !== undefined) throw new CrawlConfigError(`${where}: api.apiKeySha256 is only used with api.auth "apiKey"`);
    const start = (props.api as IamApiProps).startCrawls;
    if (start && auth !== 'iam')
      throw new CrawlConfigError(
        `${where}: api.startCrawls needs api.auth "iam": starting crawls is authorised by IAM (lambda:InvokeFunctionUrl), never by a shared key`,
      );
    if (typeof start === 'object' && start.settings) settingsFrom(start.settings, `${where}: api.startCrawls.settings`);
    for (const arn of typeof start === 'object' ? (start.writers ?? []) : [])
      if (!Token.isUnresolved(arn) && !/^arn:aws[\w-]*:(iam::\d{12}:(role|user)\/.+|sts::\d{12}:assumed-role\/.+)$/.test(arn))
        throw new CrawlConfigError(
          `${where}: api.startCrawls.writers names "${arn}", which is not an IAM role or user ARN (arn:aws:iam::<account>:role/<name>)`,
        );
    for (const arn of typeof start === 'object' ? (start.admins ?? []) : [])
      if (!Token.isUnresolved(arn) && !/^arn:aws[\w-]*:(iam::\d{12}:(role|user)\/.+|sts::\d{12}:assumed-role\/.+)$/.test(arn))
        throw new CrawlConfigError(
          `${where}: api.startCrawls.admins names "${arn}", which is not an IAM role or user ARN (arn:aws:iam::<account>:role/<name>)`,
        );
    if (typeof start === 'object')
      for (const [name, [min, max]] of Object.entries(API_CRAWL_LIMIT_RANGES))
        inRange(where, `api.startCrawls.limits.${name}`, start.limits?.[name as keyof ApiCrawlLimitProps], [min, max]);
    // The longest crawl a caller may start must end inside the run machine's history quota too.
    if (start)
      checkRunHistory(
        `${where}: api.startCrawls.limits.maxMinutes`,
        (typeof start === 'object' ? start.limits?.maxMinutes : undefined) ?? DEFAULT_API_CRAWL_LIMITS.maxMinutes,
        pollSeconds ?? 60,
        props.enrichment !== false,
      );
    inRange(where, 'api.maxConcurrency', api.maxConcurrency, [1, 1000]);
    if (api.apiKeyHeader !== undefined && !/^[A-Za-z0-9-]{1,64}$/.test(api.apiKeyHeader))
      throw new CrawlConfigError(`${where}: api.apiKeyHeader "${api.apiKeyHeader}" is not a header name (letters, digits, "-")`);
  }
  const names = new Set<string>();
  for (const step of props.extraPageSteps ?? []) {
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(step.name))
      throw new CrawlConfigError(`${where}: extraPageSteps name "${step.name}" must be 1–64 letters, digits, "-" or "_"`);
    if (RESERVED_STEPS.has(step.name) || names.has(step.name))
      throw new CrawlConfigError(`${where}: extraPageSteps name "${step.name}" is taken; names must be unique and not ${[...RESERVED_STEPS].join(', ')}`);
    names.add(step.name);
    inRange(where, `extraPageSteps["${step.name}"].timeout`, step.timeout?.toSeconds(), [1, 300], ' s');
  }
}
