// The `json` format of `trawl serve`'s Firecrawl routes: the page's values for the request's schema
// from the server's chat model, now. Apart from the routes, so the cloud's search API (which answers
// from the extraction its page workflow stored) carries no tokenizer.
import { errorMessage, UpstreamError } from '../errors.js';
import { SchemaExtractor } from '../enrich/schema-extract.js';
import type { ChatClient } from '../enrich/providers.js';
import type { JsonAnswers, QuestionAnswers } from './firecrawl-ports.js';

import { NOT_IN_PAGE } from './firecrawl-passages.js';

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

/**
 * Answers `question` with the server's chat model from the page's passages only: the model is told to
 * answer from them, quoting their words, or to say `not in this page`.
 */
export function chatQuestions(chat: ChatClient | undefined): QuestionAnswers | undefined {
  if (!chat) return undefined;
  return {
    async answer(question, passages, page) {
      const numbered = passages.map((p, i) => `[${i + 1}] ${p.text}`).join('\n\n');
      let text: string;
      try {
        text = await chat.complete({
          system:
            `You answer a question about one web page from passages of it, and from nothing else. ` +
            `Answer in one to three sentences, in the passages' words where you can, citing the passages you used as [n]. ` +
            `If the passages do not answer the question, reply exactly: ${NOT_IN_PAGE}`,
          user: `Page: ${page.title ?? ''} (${page.url})\n\nPassages:\n${numbered}\n\nQuestion: ${question}`,
          maxTokens: 300,
        });
      } catch (err) {
        throw new UpstreamError(`the ${chat.provider} model ${chat.model} failed: ${errorMessage(err)}`, { cause: err });
      }
      const answer = text.trim();
      return !answer || answer.toLowerCase().replace(/[.!]$/, '') === NOT_IN_PAGE ? undefined : answer;
    },
  };
}
