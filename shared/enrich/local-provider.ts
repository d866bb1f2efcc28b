import { keyphraseTags } from './local-tags.js';
import { summarizeExtractive } from './local-summary.js';
import type { EnrichDocument, ModelStamp, TextGenerator } from './providers.js';

export { LocalEmbedder } from './local-embedding.js';

/** Offline, keyless, deterministic summaries (TextRank) and tags (keyphrases). */
export class LocalTextGenerator implements TextGenerator {
  readonly summaryStamp: ModelStamp = { provider: 'local', model: 'textrank', version: 'textrank-v1' };
  /** v2: phrases weighed by the crawl's document frequencies (`EnrichDocument.corpus`). */
  readonly tagsStamp: ModelStamp = { provider: 'local', model: 'keyphrase', version: 'keyphrase-v2' };

  async summarize(doc: EnrichDocument): Promise<string> {
    return summarizeExtractive(doc.text, doc.language);
  }

  async tag(doc: EnrichDocument): Promise<string[]> {
    const corpus = doc.corpus && { docs: doc.corpus.docs, df: new Map(Object.entries(doc.corpus.df)) };
    return keyphraseTags(doc.title, doc.text, doc.language, corpus);
  }
}
