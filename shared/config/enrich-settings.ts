import { z } from 'zod';
import { bool, int, setting } from './setting.js';

/** Where summaries, tags and embeddings come from. */
export type ProviderChoice = 'local' | 'bedrock' | 'openai';

const PROVIDERS = ['local', 'bedrock', 'openai'] as const;

/** The models each provider uses unless told otherwise. */
export const DEFAULT_MODELS: Record<Exclude<ProviderChoice, 'local'>, { chat: string; embed: string; dimension: number }> = {
  bedrock: { chat: 'anthropic.claude-3-haiku-20240307-v1:0', embed: 'amazon.titan-embed-text-v2:0', dimension: 512 },
  // 0: the endpoint's own dimension (Ollama's models cannot be asked for another).
  openai: { chat: 'gpt-4o-mini', embed: 'text-embedding-3-small', dimension: 0 },
};

/** The settings of the Summarize and Index stages (`shared/enrich/`, `shared/search/`), spread into the settings table. */
export const ENRICH_SETTINGS = {
  enrich: setting({
    ...bool,
    default: false,
    flag: 'enrich',
    env: 'TRAWL_ENRICH',
    help: 'summarise, tag, embed and index each page during the crawl (else: trawl enrich afterwards)',
    type: 'boolean',
  }),
  provider: setting({
    schema: z.enum(PROVIDERS),
    expects: 'one of local, bedrock, openai',
    default: 'local' as ProviderChoice,
    flag: 'provider',
    env: 'TRAWL_PROVIDER',
    help: 'summaries, tags and embeddings from: local (offline), bedrock, openai (any OpenAI-compatible endpoint)',
    type: 'string',
  }),
  chatModel: setting({
    schema: z.string().max(200),
    expects: 'a model id',
    default: '',
    flag: 'chat-model',
    env: 'TRAWL_CHAT_MODEL',
    help: 'model for summaries and tags (bedrock: a Converse model id; openai: a chat model); empty: the provider default',
    type: 'string',
  }),
  embedModel: setting({
    schema: z.string().max(200),
    expects: 'a model id',
    default: '',
    flag: 'embed-model',
    env: 'TRAWL_EMBED_MODEL',
    help: 'embedding model (bedrock: amazon.titan-embed-text-v2:0); empty: the provider default',
    type: 'string',
  }),
  embedDimension: setting({
    ...int(0, 4096),
    default: 0,
    flag: 'embed-dimension',
    env: 'TRAWL_EMBED_DIMENSION',
    help: 'embedding dimension (Titan V2: 256, 512 or 1024); 0: the provider default',
    type: 'string',
  }),
  openaiBaseUrl: setting({
    schema: z.url({ protocol: /^https?$/ }),
    expects: 'an http(s) URL such as http://127.0.0.1:11434/v1',
    default: 'https://api.openai.com/v1',
    flag: 'openai-base-url',
    env: 'TRAWL_OPENAI_BASE_URL',
    help: 'API root of the OpenAI-compatible endpoint (OpenAI, Ollama, vLLM); the key is read from TRAWL_OPENAI_API_KEY or OPENAI_API_KEY',
    type: 'string',
  }),
  bedrockRegion: setting({
    schema: z.string().regex(/^$|^[a-z]{2}(-[a-z]+)+-\d$/),
    expects: 'an AWS region such as us-east-1',
    default: '',
    flag: 'bedrock-region',
    env: 'TRAWL_BEDROCK_REGION',
    help: 'region of the Bedrock models; empty: AWS_REGION',
    type: 'string',
  }),
  extractSchema: setting({
    schema: z.union([z.string().max(4096), z.record(z.string(), z.unknown())]),
    expects: 'a JSON Schema: a file, its JSON text, or (library, API) the object',
    default: '' as string | Record<string, unknown>,
    flag: 'extract-schema',
    env: 'TRAWL_EXTRACT_SCHEMA',
    help: "a JSON Schema each enriched page's values are extracted to by the LLM provider (bedrock or openai), every value with the chunks it came from",
    type: 'string',
  }),
  extractPrompt: setting({
    schema: z.string().max(2000),
    expects: 'a sentence or two',
    default: '',
    flag: 'extract-prompt',
    env: 'TRAWL_EXTRACT_PROMPT',
    help: 'what to look for beyond the extract schema (for example: the price of the main product, not of related ones)',
    type: 'string',
  }),
  enrichConcurrency: setting({
    ...int(1, 64),
    default: 4,
    flag: 'enrich-concurrency',
    env: 'TRAWL_ENRICH_CONCURRENCY',
    help: 'pages enriched at once (keep it under the model rate limit)',
    type: 'string',
  }),
};
