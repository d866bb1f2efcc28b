import { DEFAULT_MODELS } from '../config/enrich-settings.js';
import { BedrockChat, type BedrockOptions } from './bedrock.js';
import { LocalTextGenerator } from './local-provider.js';
import { OpenAiChat } from './openai.js';
import { createEmbedder } from './embedder-factory.js';
import { PromptedGenerator } from './prompts.js';
import type { Embedder, ProviderSettings, TextGenerator } from './providers.js';

export type { ProviderSettings } from './providers.js';
import { DEFAULT_HASHING } from './local-embedding.js';
import { LocalWorkerPool } from './local-workers.js';

/** The text generator and the embedder a run uses. */
export interface Providers {
  text: TextGenerator;
  embedder: Embedder;
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
  if (settings.provider === 'local') {
    const hashing = { ...DEFAULT_HASHING, dimension: settings.embedDimension || DEFAULT_HASHING.dimension };
    if (extra.workers) {
      const pool = new LocalWorkerPool(extra.workers, hashing);
      return { text: pool.text, embedder: pool.embedder, close: () => pool.close() };
    }
    return { text: new LocalTextGenerator(), embedder: createEmbedder(settings, env) };
  }
  const defaults = DEFAULT_MODELS[settings.provider];
  const chat = settings.chatModel || defaults.chat;
  const embedder = createEmbedder(settings, env, bedrock);
  if (settings.provider === 'bedrock') {
    return {
      text: new PromptedGenerator(
        new BedrockChat(chat, { region: settings.bedrockRegion || env.AWS_REGION, endpoint: env.TRAWL_BEDROCK_ENDPOINT, ...bedrock }),
      ),
      embedder,
    };
  }
  return {
    text: new PromptedGenerator(new OpenAiChat(chat, { baseUrl: settings.openaiBaseUrl, apiKey: env.TRAWL_OPENAI_API_KEY ?? env.OPENAI_API_KEY })),
    embedder,
  };
}
