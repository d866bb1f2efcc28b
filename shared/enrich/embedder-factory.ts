import { DEFAULT_MODELS } from '../config/enrich-settings.js';
import { TitanEmbedder, type BedrockOptions } from './bedrock.js';
import { DEFAULT_HASHING, LocalEmbedder } from './local-embedding.js';
import { OpenAiEmbedder } from './openai.js';
import type { Embedder, ProviderSettings } from './providers.js';

/**
 * The configured embedder alone: what a search needs to embed its query the way the pages were
 * embedded, without the summary and tag machinery (a reader such as the search API loads less).
 */
export function createEmbedder(settings: ProviderSettings, env: NodeJS.ProcessEnv = {}, bedrock: BedrockOptions = {}): Embedder {
  if (settings.provider === 'local') return new LocalEmbedder({ ...DEFAULT_HASHING, dimension: settings.embedDimension || DEFAULT_HASHING.dimension });
  const defaults = DEFAULT_MODELS[settings.provider];
  const embed = settings.embedModel || defaults.embed;
  const dimension = settings.embedDimension || defaults.dimension;
  if (settings.provider === 'bedrock') {
    return new TitanEmbedder(embed, dimension, { region: settings.bedrockRegion || env.AWS_REGION, endpoint: env.TRAWL_BEDROCK_ENDPOINT, ...bedrock });
  }
  return new OpenAiEmbedder(embed, {
    baseUrl: settings.openaiBaseUrl,
    apiKey: env.TRAWL_OPENAI_API_KEY ?? env.OPENAI_API_KEY,
    dimension: dimension || undefined,
  });
}
