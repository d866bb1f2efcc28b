import { DEFAULT_HASHING, hashEmbedding, type HashingOptions } from './local-embedding.js';
import { keyphraseTags } from './local-tags.js';
import { summarizeExtractive } from './local-summary.js';
import type { EnrichDocument, Embedder, ModelStamp, TextGenerator } from './providers.js';

/** Offline, keyless, deterministic summaries (TextRank) and tags (keyphrases). */
export class LocalTextGenerator implements TextGenerator {
  readonly summaryStamp: ModelStamp = { provider: 'local', model: 'textrank', version: 'textrank-v1' };
  readonly tagsStamp: ModelStamp = { provider: 'local', model: 'keyphrase', version: 'keyphrase-v1' };

  async summarize(doc: EnrichDocument): Promise<string> {
    return summarizeExtractive(doc.text, doc.language);
  }

  async tag(doc: EnrichDocument): Promise<string[]> {
    return keyphraseTags(doc.title, doc.text, doc.language);
  }
}

/** Offline embeddings by feature hashing of words, bigrams and character n-grams. */
export class LocalEmbedder implements Embedder {
  readonly stamp: ModelStamp;
  readonly dimension: number;

  constructor(private readonly options: HashingOptions = DEFAULT_HASHING) {
    this.dimension = options.dimension;
    const grams = options.charNgrams.length ? `c${options.charNgrams.join('')}` : 'words';
    this.stamp = { provider: 'local', model: `hash-${grams}-${options.dimension}`, version: 'hash-v1' };
  }

  async embed(texts: string[], _purpose?: 'document' | 'query'): Promise<Float32Array[]> {
    return texts.map((t) => hashEmbedding(t, undefined, this.options));
  }
}
