// The `question` format: an answer from the page's passages by a chat model (the server's, or the
// cloud deployment's Bedrock model). No tokenizer here: the cloud's search API bundles it.
import { errorMessage, UpstreamError } from '../errors.js';
import type { ChatClient } from '../enrich/providers.js';
import type { QuestionAnswers } from './firecrawl-ports.js';
import { NOT_IN_PAGE } from './firecrawl-passages.js';

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
