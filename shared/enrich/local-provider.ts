import { keyphraseTags } from './local-tags.js';
import { summarizeExtractive } from './local-summary.js';
import type { EnrichDocument, ModelStamp, TextGenerator } from './providers.js';

export { LocalEmbedder } from './local-embedding.js';

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
