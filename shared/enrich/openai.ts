import { failureOfStatus, ProviderError, retryAfterMs } from './provider-error.js';
import type { ChatAnswer, ChatClient, ChatRequest, Embedder, ModelStamp } from './providers.js';
import { normalize } from './local-embedding.js';

export interface OpenAiOptions {
  /** The API root, e.g. `https://api.openai.com/v1` or Ollama's `http://127.0.0.1:11434/v1`. */
  baseUrl: string;
  apiKey?: string;
  /** Per request. @default 60000 */
  timeoutMs?: number;
}

/** The fixed seed sent with every chat request, so endpoints that honour it answer the same twice. */
export const OPENAI_SEED = 7;

async function post(options: OpenAiOptions, path: string, body: unknown): Promise<unknown> {
  const url = `${options.baseUrl.replace(/\/+$/, '')}${path}`;
  let res: Response;
  try {
    res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}) },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(options.timeoutMs ?? 60_000),
    });
  } catch (err) {
    throw new ProviderError('unavailable', `the OpenAI-compatible endpoint ${url} did not answer: ${(err as Error).message}`, undefined, { cause: err });
  }
  const text = await res.text();
  if (!res.ok) {
    let detail = text.slice(0, 300);
    try {
      detail = (JSON.parse(text) as { error?: { message?: string } }).error?.message ?? detail;
    } catch {
      // not JSON: keep the raw text
    }
    const hint =
      res.status === 401 ? ' (set TRAWL_OPENAI_API_KEY or OPENAI_API_KEY)' : res.status === 404 ? ' (check --openai-base-url and the model name)' : '';
    throw new ProviderError(failureOfStatus(res.status), `${url} answered ${res.status}: ${detail}${hint}`, retryAfterMs(res.headers));
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new ProviderError('malformed', `${url} answered with something that is not JSON: ${JSON.stringify(text.slice(0, 120))}`, undefined, { cause: err });
  }
}

/** Chat completions from any OpenAI-compatible endpoint (OpenAI, Ollama, vLLM), temperature 0 and a fixed seed. */
export class OpenAiChat implements ChatClient {
  readonly provider = 'openai' as const;

  constructor(
    readonly model: string,
    private readonly options: OpenAiOptions,
  ) {}

  async complete(request: ChatRequest): Promise<string> {
    return (await this.answer(request)).text;
  }

  async answer(request: ChatRequest): Promise<ChatAnswer> {
    const body = {
      model: this.model,
      temperature: 0,
      seed: OPENAI_SEED,
      max_tokens: request.maxTokens,
      messages: [
        { role: 'system', content: request.system },
        { role: 'user', content: request.user },
      ],
    };
    const answer = (await post(this.options, '/chat/completions', body)) as {
      choices?: Array<{ message?: { content?: unknown } }>;
      usage?: { prompt_tokens?: unknown; completion_tokens?: unknown };
    };
    const content = answer.choices?.[0]?.message?.content;
    if (typeof content !== 'string') throw new ProviderError('malformed', `the chat answer of ${this.model} has no choices[0].message.content`);
    const count = (n: unknown) => (typeof n === 'number' ? n : undefined);
    return { text: content, inputTokens: count(answer.usage?.prompt_tokens), outputTokens: count(answer.usage?.completion_tokens) };
  }
}

/** Embeddings from any OpenAI-compatible endpoint; `dimension` is sent only when set (text-embedding-3 models honour it). */
export class OpenAiEmbedder implements Embedder {
  readonly stamp: ModelStamp;
  private learned: number | undefined;

  constructor(
    model: string,
    private readonly options: OpenAiOptions & { dimension?: number; batch?: number },
  ) {
    this.stamp = { provider: 'openai', model, version: options.dimension ? `d${options.dimension}` : 'native' };
    this.learned = options.dimension;
  }

  get dimension(): number {
    return this.learned ?? 0;
  }

  async embed(texts: string[], _purpose?: 'document' | 'query'): Promise<Float32Array[]> {
    const out: Float32Array[] = [];
    const batch = this.options.batch ?? 64;
    for (let i = 0; i < texts.length; i += batch) out.push(...(await this.embedBatch(texts.slice(i, i + batch))));
    return out;
  }

  private async embedBatch(input: string[]): Promise<Float32Array[]> {
    const body = { model: this.stamp.model, input, encoding_format: 'float', ...(this.options.dimension ? { dimensions: this.options.dimension } : {}) };
    const answer = (await post(this.options, '/embeddings', body)) as { data?: Array<{ index?: number; embedding?: unknown }> };
    if (!Array.isArray(answer.data) || answer.data.length !== input.length) {
      throw new ProviderError(
        'malformed',
        `the embeddings answer of ${this.stamp.model} has ${answer.data?.length ?? 'no'} vectors for ${input.length} input(s)`,
      );
    }
    const sorted = [...answer.data].sort((a, b) => (a.index ?? 0) - (b.index ?? 0));
    return sorted.map((d) => this.vector(d.embedding));
  }

  private vector(raw: unknown): Float32Array {
    if (!Array.isArray(raw) || raw.length === 0 || raw.some((v) => typeof v !== 'number' || !Number.isFinite(v))) {
      throw new ProviderError('malformed', `an embedding from ${this.stamp.model} is not a list of numbers`);
    }
    if (this.learned === undefined) this.learned = raw.length;
    if (raw.length !== this.learned)
      throw new ProviderError('malformed', `${this.stamp.model} returned a ${raw.length}-dimension vector, expected ${this.learned}`);
    return normalize(Float32Array.from(raw as number[]));
  }
}
