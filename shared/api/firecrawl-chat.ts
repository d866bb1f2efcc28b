// The `json` format of `trawl serve`'s Firecrawl routes: the page's values for the request's schema
// from the server's chat model, now. Apart from the routes, so the cloud's search API (which answers
// from the extraction its page workflow stored) carries no tokenizer.
import { errorMessage, UpstreamError } from '../errors.js';
import { SchemaExtractor } from '../enrich/schema-extract.js';
import type { ChatClient } from '../enrich/providers.js';
import type { JsonAnswers } from './firecrawl-ports.js';

/** Answers `json` with the server's chat model; without one (the local provider) it is refused, naming the fix. */
export function chatJson(chat: ChatClient | undefined): JsonAnswers {
  return {
    refusal: () =>
      chat ? undefined : 'the json format needs an LLM provider: start trawl serve with --provider openai (and --openai-base-url) or --provider bedrock',
    async answer(_reads, page, x, spec) {
      const extractor = new SchemaExtractor(chat!, spec);
      let out;
      try {
        out = await extractor.extract({ url: page.url, title: x?.title ?? page.title ?? '', markdown: x?.markdown ?? '' });
      } catch (err) {
        throw new UpstreamError(`the ${chat!.provider} model ${chat!.model} failed: ${errorMessage(err)}`, { cause: err });
      }
      return out.error ? { warning: `json: ${out.error}` } : { json: out.data };
    },
  };
}
