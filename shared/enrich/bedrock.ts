import type { BedrockRuntimeClient } from '@aws-sdk/client-bedrock-runtime';
import { ProviderError, type ProviderFailure } from './provider-error.js';
import type { ChatAnswer, ChatClient, ChatRequest, Embedder, ModelStamp } from './providers.js';
import { normalize } from './local-embedding.js';

/** What trawl needs of a BedrockRuntimeClient: `send`. */
export interface BedrockSender {
  send(command: object): Promise<unknown>;
}

export interface BedrockOptions {
  region?: string;
  /** A VPC endpoint, or a local server in tests. */
  endpoint?: string;
  credentials?: { accessKeyId: string; secretAccessKey: string };
  /**
   * A Bedrock Runtime client of your own (`new BedrockRuntimeClient({...})`). Typed by what trawl
   * calls on it, so the declarations need no AWS SDK installed.
   */
  client?: BedrockSender;
}

type Sdk = typeof import('@aws-sdk/client-bedrock-runtime');
let sdk: Promise<Sdk> | undefined;

/** The Bedrock SDK, loaded on first use: the embedded runtime needs it only with `--provider bedrock`. */
function loadSdk(): Promise<Sdk> {
  sdk ??= import('@aws-sdk/client-bedrock-runtime').catch((err: unknown) => {
    sdk = undefined;
    throw new ProviderError(
      'rejected',
      'the Bedrock provider needs @aws-sdk/client-bedrock-runtime: run npm install @aws-sdk/client-bedrock-runtime',
      undefined,
      { cause: err },
    );
  });
  return sdk;
}

/** Bedrock's error names, sorted by what happens next. */
const FAILURES: Record<string, ProviderFailure> = {
  ThrottlingException: 'throttled',
  ServiceQuotaExceededException: 'throttled',
  TooManyRequestsException: 'throttled',
  ServiceUnavailableException: 'unavailable',
  InternalServerException: 'unavailable',
  ModelNotReadyException: 'unavailable',
  ModelTimeoutException: 'unavailable',
};

function providerError(err: unknown, model: string): ProviderError {
  const e = err as { name?: string; message?: string; $metadata?: { httpStatusCode?: number } };
  const status = e.$metadata?.httpStatusCode;
  const failure =
    FAILURES[e.name ?? ''] ?? (status === 429 ? 'throttled' : status && status >= 500 ? 'unavailable' : e.name === 'TimeoutError' ? 'unavailable' : 'rejected');
  const hint = e.name === 'AccessDeniedException' ? ' (enable the model in the Bedrock console and allow bedrock:InvokeModel on it)' : '';
  return new ProviderError(failure, `Bedrock ${model}: ${e.name ?? 'error'}: ${e.message ?? String(err)}${hint}`, undefined, { cause: err });
}

async function client(options: BedrockOptions): Promise<{ client: BedrockRuntimeClient; sdk: Sdk }> {
  const s = await loadSdk();
  // One attempt per call: withRetry owns back-off, so throttling is not retried twice over.
  const c =
    (options.client as BedrockRuntimeClient | undefined) ??
    new s.BedrockRuntimeClient({
      region: options.region ?? process.env.AWS_REGION ?? 'us-east-1',
      endpoint: options.endpoint,
      credentials: options.credentials,
      maxAttempts: 1,
    });
  return { client: c, sdk: s };
}

/**
 * The AWS credentials a Bedrock call would sign with, resolved now by the SDK's own chain
 * (environment, profiles, SSO, a role); rejects with the chain's reason when there are none, or
 * when resolving takes longer than `timeoutMs` (a machine without a metadata service).
 */
export async function bedrockCredentials(options: BedrockOptions, timeoutMs: number): Promise<void> {
  if (options.credentials || options.client) return;
  const { client: c } = await client(options);
  const resolve = (c.config.credentials as () => Promise<unknown>)();
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no credentials within ${timeoutMs / 1000} s`)), timeoutMs);
    timer.unref();
  });
  try {
    await Promise.race([resolve, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Chat through the Bedrock Converse API, temperature 0. */
export class BedrockChat implements ChatClient {
  readonly provider = 'bedrock' as const;
  private ready: ReturnType<typeof client> | undefined;

  constructor(
    readonly model: string,
    private readonly options: BedrockOptions = {},
  ) {}

  async complete(request: ChatRequest): Promise<string> {
    return (await this.answer(request)).text;
  }

  async answer(request: ChatRequest): Promise<ChatAnswer> {
    const { client: c, sdk: s } = await (this.ready ??= client(this.options));
    let answer;
    try {
      answer = await c.send(
        new s.ConverseCommand({
          modelId: this.model,
          system: [{ text: request.system }],
          messages: [{ role: 'user', content: [{ text: request.user }] }],
          inferenceConfig: { temperature: 0, maxTokens: request.maxTokens },
        }),
      );
    } catch (err) {
      throw providerError(err, this.model);
    }
    const text = answer.output?.message?.content?.map((c) => c.text ?? '').join('');
    if (!text) throw new ProviderError('malformed', `Bedrock ${this.model} answered with no text (stop reason ${answer.stopReason ?? 'none'})`);
    return { text, inputTokens: answer.usage?.inputTokens, outputTokens: answer.usage?.outputTokens };
  }
}

/** Titan Text Embeddings V2 through InvokeModel: one text per call, normalised, dimension 256, 512 or 1024. */
export class TitanEmbedder implements Embedder {
  readonly stamp: ModelStamp;
  private ready: ReturnType<typeof client> | undefined;

  constructor(
    model: string,
    readonly dimension: number,
    private readonly options: BedrockOptions = {},
  ) {
    this.stamp = { provider: 'bedrock', model, version: `d${dimension}` };
  }

  async embed(texts: string[], _purpose?: 'document' | 'query'): Promise<Float32Array[]> {
    const out: Float32Array[] = [];
    for (const t of texts) out.push(await this.embedOne(t));
    return out;
  }

  private async embedOne(inputText: string): Promise<Float32Array> {
    const { client: c, sdk: s } = await (this.ready ??= client(this.options));
    let answer;
    try {
      answer = await c.send(
        new s.InvokeModelCommand({
          modelId: this.stamp.model,
          contentType: 'application/json',
          accept: 'application/json',
          // Titan V2 reads at most 8,192 tokens (~50,000 characters).
          body: JSON.stringify({ inputText: inputText.slice(0, 40_000), dimensions: this.dimension, normalize: true }),
        }),
      );
    } catch (err) {
      throw providerError(err, this.stamp.model);
    }
    let parsed: { embedding?: unknown };
    try {
      parsed = JSON.parse(new TextDecoder().decode(answer.body)) as { embedding?: unknown };
    } catch (err) {
      throw new ProviderError('malformed', `Bedrock ${this.stamp.model} answered with something that is not JSON`, undefined, { cause: err });
    }
    const v = parsed.embedding;
    if (!Array.isArray(v) || v.length !== this.dimension || v.some((x) => typeof x !== 'number')) {
      throw new ProviderError(
        'malformed',
        `Bedrock ${this.stamp.model} returned ${Array.isArray(v) ? `a ${v.length}-dimension vector` : 'no embedding'}, expected ${this.dimension} numbers`,
      );
    }
    return normalize(Float32Array.from(v as number[]));
  }
}
