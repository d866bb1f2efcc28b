import { bedrockCredentials, type BedrockOptions } from './bedrock.js';
import { chatClient, checkProvider } from './chat-client.js';
import { LocalTextGenerator } from './local-provider.js';
import { createEmbedder } from './embedder-factory.js';
import { PromptedGenerator } from './prompts.js';
import type { ChatClient, Embedder, ProviderSettings, TextGenerator } from './providers.js';
import { extractSpecOf, type ExtractSpec } from './extract-spec.js';
import { SchemaExtractor } from './schema-extract.js';
import { errorMessage, UsageError } from '../errors.js';

export type { ProviderSettings } from './providers.js';
import { DEFAULT_HASHING } from './local-embedding.js';
import { LocalWorkerPool } from './local-workers.js';

/** The text generator and the embedder a run uses. */
export interface Providers {
  text: TextGenerator;
  embedder: Embedder;
  /** Structured extraction to the crawl's schema (`--extract-schema`), with the chat model. */
  structured?: SchemaExtractor;
  /** The chat model of an LLM provider (absent with the local one). */
  chat?: ChatClient;
  /** Stops worker threads, where the providers run some. */
  close?(): Promise<void>;
}

/**
 * Builds the configured providers. Secrets come from the environment only (never flags, which show
 * in process lists): `TRAWL_OPENAI_API_KEY` or `OPENAI_API_KEY`; Bedrock uses the AWS credential chain.
 */
export function createProviders(
  settings: ProviderSettings,
  env: NodeJS.ProcessEnv = {},
  extra: { bedrock?: BedrockOptions; workers?: number } = {},
): Providers {
  const bedrock = extra.bedrock ?? {};
  const spec = extractSpecOf(settings);
  if (settings.provider === 'local') {
    if (spec)
      throw new UsageError(
        'an extract schema needs an LLM provider: set --provider openai (with --openai-base-url for a local endpoint) or --provider bedrock; offline, --field CSS selectors extract values',
      );
    const hashing = { ...DEFAULT_HASHING, dimension: settings.embedDimension || DEFAULT_HASHING.dimension };
    if (extra.workers) {
      const pool = new LocalWorkerPool(extra.workers, hashing);
      return { text: pool.text, embedder: pool.embedder, close: () => pool.close() };
    }
    return { text: new LocalTextGenerator(), embedder: createEmbedder(settings, env) };
  }
  const chat = chatClient(settings, env, bedrock);
  return {
    text: new PromptedGenerator(chat),
    embedder: createEmbedder(settings, env, bedrock),
    chat,
    ...(spec ? { structured: new SchemaExtractor(chat, spec) } : {}),
  };
}

/** The providers extracting to a run's own spec instead of the deployment's; a UsageError without a chat model. */
export function withSpec(providers: Providers, spec: ExtractSpec): Providers {
  if (!providers.chat) throw new UsageError('an extract schema needs an LLM provider: this deployment\'s enrichment.provider is local (write "bedrock")');
  return { ...providers, structured: new SchemaExtractor(providers.chat, spec) };
}

/** The chat model of the configured provider; undefined for the local one, which has none. */
export function chatFor(settings: ProviderSettings, env: NodeJS.ProcessEnv = {}, bedrock: BedrockOptions = {}): ChatClient | undefined {
  return settings.provider === 'local' ? undefined : chatClient(settings, env, bedrock);
}

/** How long the preflight waits for an OpenAI-compatible endpoint's first answer. */
export const PREFLIGHT_TIMEOUT_MS = 10_000;

/**
 * Asks an OpenAI-compatible endpoint for its models before anything is crawled or served: one that
 * does not answer, or refuses the key, is refused with what to set (it used to fail every page,
 * one "fetch failed" at a time, after the whole crawl). An endpoint without a model list (404) or
 * any other answer passes: it answered. For Bedrock, the AWS credentials its calls would sign with
 * are resolved by the SDK's chain; none is a refusal naming what to set.
 */
export async function preflightProvider(
  settings: Pick<ProviderSettings, 'provider' | 'openaiBaseUrl' | 'bedrockRegion'>,
  env: NodeJS.ProcessEnv,
  timeoutMs = PREFLIGHT_TIMEOUT_MS,
): Promise<void> {
  if (settings.provider === 'bedrock') return preflightBedrock(settings, env, timeoutMs);
  if (settings.provider !== 'openai') return;
  checkProvider(settings, env);
  const base = settings.openaiBaseUrl.replace(/\/+$/, '');
  const key = env.TRAWL_OPENAI_API_KEY ?? env.OPENAI_API_KEY;
  let status: number;
  try {
    const res = await fetch(`${base}/models`, { headers: key ? { authorization: `Bearer ${key}` } : {}, signal: AbortSignal.timeout(timeoutMs) });
    status = res.status;
    await res.body?.cancel();
  } catch (err) {
    const cause = err instanceof Error && err.cause instanceof Error ? err.cause.message : errorMessage(err);
    throw new UsageError(`--openai-base-url ${base} does not answer (${cause}): start that endpoint, or point --openai-base-url at one that runs`, {
      cause: err,
    });
  }
  if (status === 401 || status === 403)
    throw new UsageError(`${base} refused the key (HTTP ${status}): set TRAWL_OPENAI_API_KEY (or OPENAI_API_KEY) to a key it accepts`);
}

/** Bedrock's preflight: the SDK's credential chain must give credentials (no model is called: that costs). */
async function preflightBedrock(settings: Pick<ProviderSettings, 'bedrockRegion'>, env: NodeJS.ProcessEnv, timeoutMs: number): Promise<void> {
  try {
    await bedrockCredentials({ region: settings.bedrockRegion || env.AWS_REGION, endpoint: env.TRAWL_BEDROCK_ENDPOINT }, timeoutMs);
  } catch (err) {
    throw new UsageError(
      `--provider bedrock has no AWS credentials to sign with (${errorMessage(err)}): set AWS_PROFILE, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or run where a role provides them`,
      { cause: err },
    );
  }
}
