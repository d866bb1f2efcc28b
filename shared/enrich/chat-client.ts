// The chat model of an LLM provider, built from the provider settings: what the provider factory,
// and the cloud's search API (which bundles no extractor or tokenizer), ask a question with.
import { DEFAULT_MODELS } from '../config/enrich-settings.js';
import { UsageError } from '../errors.js';
import { BedrockChat, type BedrockOptions } from './bedrock.js';
import { OpenAiChat } from './openai.js';
import type { ChatClient, ProviderSettings } from './providers.js';

/**
 * What a provider needs before a crawl fetches anything: OpenAI's own endpoint takes no request
 * without a key, so a crawl that would enrich or extract with it and has none is refused at once,
 * naming the variable, instead of crawling and failing every page. A local endpoint (Ollama, vLLM)
 * may need none.
 */
export function checkProvider(settings: Pick<ProviderSettings, 'provider' | 'openaiBaseUrl'>, env: NodeJS.ProcessEnv): void {
  if (settings.provider !== 'openai') return;
  const key = env.TRAWL_OPENAI_API_KEY ?? env.OPENAI_API_KEY;
  if (!key && new URL(settings.openaiBaseUrl).hostname === 'api.openai.com')
    throw new UsageError(
      '--provider openai calls https://api.openai.com with no key: set TRAWL_OPENAI_API_KEY (or OPENAI_API_KEY), or point --openai-base-url at a local endpoint that needs none',
    );
}

/** The chat model of the configured LLM provider (`openai` or `bedrock`). */
export function chatClient(settings: ProviderSettings, env: NodeJS.ProcessEnv, bedrock: BedrockOptions = {}): ChatClient {
  checkProvider(settings, env);
  const provider = settings.provider === 'bedrock' ? 'bedrock' : 'openai';
  const model = settings.chatModel || DEFAULT_MODELS[provider].chat;
  if (provider === 'bedrock')
    return new BedrockChat(model, { region: settings.bedrockRegion || env.AWS_REGION, endpoint: env.TRAWL_BEDROCK_ENDPOINT, ...bedrock });
  return new OpenAiChat(model, { baseUrl: settings.openaiBaseUrl, apiKey: env.TRAWL_OPENAI_API_KEY ?? env.OPENAI_API_KEY });
}
