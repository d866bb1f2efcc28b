import type { ProviderChoice } from '../config/enrich-settings.js';
/** Where a page's summary, tags and embedding come from. */
export type ProviderName = 'local' | 'bedrock' | 'openai';

/** What made one summary, tag set or embedding: a change to any field makes it stale. */
export interface ModelStamp {
  provider: ProviderName;
  model: string;
  /** The prompt version (models) or the algorithm version (local methods). */
  version: string;
}

/** A page as the enrichment reads it. */
export interface EnrichDocument {
  url: string;
  title: string;
  /** Plain text of the main content. */
  text: string;
  language?: string;
  /**
   * How common the page's own word stems are in the crawl: the documents indexed, and of those how
   * many hold each stem (only the stems of this page). The local tagger weighs a phrase by it (a
   * word on every page of the site is no topic); model providers ignore it. Absent: no statistics.
   */
  corpus?: { docs: number; df: Record<string, number> };
}

/** Text generation: the summary and the tags of a page, as two separate passes. */
export interface TextGenerator {
  readonly summaryStamp: ModelStamp;
  readonly tagsStamp: ModelStamp;
  summarize(doc: EnrichDocument): Promise<string>;
  tag(doc: EnrichDocument): Promise<string[]>;
}

/** Embeddings of documents and queries (some models embed the two differently). */
export interface Embedder {
  readonly stamp: ModelStamp;
  /** The vector length; a provider that cannot be asked for one learns it from its first answer. */
  readonly dimension: number;
  embed(texts: string[], purpose: 'document' | 'query'): Promise<Float32Array[]>;
}

/** One chat turn's request. */
export interface ChatRequest {
  system: string;
  user: string;
  maxTokens: number;
}

/** A chat turn's answer, with the tokens the provider counted (when it says). */
export interface ChatAnswer {
  text: string;
  inputTokens?: number;
  outputTokens?: number;
}

/** One chat turn with a model at temperature 0: what the LLM providers share. */
export interface ChatClient {
  readonly provider: ProviderName;
  readonly model: string;
  complete(request: ChatRequest): Promise<string>;
  /** The same turn with its token counts. */
  answer(request: ChatRequest): Promise<ChatAnswer>;
}

/** The text a page's embedding is made from: its title, summary and tags, then the head of its text. */
export function embeddingText(doc: EnrichDocument, summary: string, tags: string[], maxChars = 6000): string {
  const tagWords = tags.map((t) => t.slice(1).replace(/-/g, ' ')).join(', ');
  return `${doc.title}\n${tagWords}\n${summary}\n${doc.text}`.slice(0, maxChars);
}

export function sameStamp(a: ModelStamp | undefined, b: ModelStamp): boolean {
  return !!a && a.provider === b.provider && a.model === b.model && a.version === b.version;
}

/** The provider settings of a run (from the settings table): which provider, its models and endpoints. */
export interface ProviderSettings {
  provider: ProviderChoice;
  chatModel: string;
  embedModel: string;
  embedDimension: number;
  openaiBaseUrl: string;
  bedrockRegion: string;
  /** The crawl's extract schema and prompt (`extractSpecOf`): none by default. */
  extractSchema?: string | Record<string, unknown>;
  extractPrompt?: string;
}
