import { countTokens } from '../extract/chunks.js';
import { ProviderError } from './provider-error.js';
import type { ChatClient, EnrichDocument, ModelStamp, TextGenerator } from './providers.js';
import { cleanTags, readTagOutput, TAG_LIMITS } from './tags.js';
import { headTailWindow } from './text.js';

/** Bumped whenever a prompt's wording changes: summaries and tags made with an older one become stale. */
export const SUMMARY_PROMPT_VERSION = 'summary-v1';
export const TAGS_PROMPT_VERSION = 'tags-v1';

/** How much of a page a model reads: ~6,000 tokens, head and tail. */
export const MODEL_WINDOW_CHARS = 24_000;
const SUMMARY_MAX_TOKENS = 200;

export const SUMMARY_SYSTEM = [
  'You summarise web pages for a search index.',
  'Write at most 8 sentences and 150 words, in the language of the page.',
  'State the key claims, the named entities (people, organisations, places, products) and the numbers, dates and amounts the page gives.',
  'Use plain, neutral language: no marketing words, no praise, no opinions of your own, no "this page" or "the article".',
  'Answer with the summary only.',
].join(' ');

export const TAGS_SYSTEM = [
  'You tag web pages by topic for a search index.',
  `Give ${TAG_LIMITS.min} to ${TAG_LIMITS.max} topic tags: what the page is about, its subjects and field, not its format or site navigation.`,
  'Each tag starts with # and is lower-case kebab-case, e.g. #home-insulation, #index-funds.',
  'Never use #home, #login, #contact, #blog, #news, #article or other site furniture.',
  'Answer with a JSON array of strings only.',
].join(' ');

function pageMessage(doc: EnrichDocument): string {
  return `Title: ${doc.title}\nURL: ${doc.url}\n\n${headTailWindow(doc.text, MODEL_WINDOW_CHARS)}`;
}

const REFUSAL = /^(i['’]?m sorry|i am sorry|i cannot|i can['’]?t|as an ai|sorry,)/i;

/** A model's summary checked and tidied: preamble and fences out, cut at a sentence end within the budget; a refusal or an empty answer is rejected. */
export function validateSummary(output: string): string {
  const text = output
    .replace(/```[a-z]*\n?/gi, '')
    .replace(/^\s*(here is (a|the) summary[^:]*:|summary:)\s*/i, '')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/^["“](.*)["”]$/, '$1');
  if (text.length < 20) throw new ProviderError('malformed', `the model's summary is empty or too short: ${JSON.stringify(output.slice(0, 80))}`);
  if (REFUSAL.test(text)) throw new ProviderError('malformed', `the model refused to summarise: ${JSON.stringify(text.slice(0, 120))}`);
  if (countTokens(text) <= SUMMARY_MAX_TOKENS) return text;
  const sentencesIn = text.match(/[^.!?。]+[.!?。]+["'”’)]?\s*/g) ?? [text];
  let out = '';
  for (const s of sentencesIn) {
    if (countTokens(out + s) > SUMMARY_MAX_TOKENS) break;
    out += s;
  }
  return (out || text.split(' ').slice(0, 120).join(' ')).trim();
}

/** A model's tags read leniently and repaired; fewer than the minimum after repair is a rejection. */
export function validateTags(output: string): string[] {
  const tags = cleanTags(readTagOutput(output));
  if (tags.length < TAG_LIMITS.min) {
    throw new ProviderError(
      'malformed',
      `the model gave ${tags.length} usable tag(s), at least ${TAG_LIMITS.min} are needed: ${JSON.stringify(output.slice(0, 120))}`,
    );
  }
  return tags;
}

/** Summaries and tags from a chat model: fixed versioned prompts, output validated, one repair turn for tags that fail. */
export class PromptedGenerator implements TextGenerator {
  readonly summaryStamp: ModelStamp;
  readonly tagsStamp: ModelStamp;

  constructor(private readonly chat: ChatClient) {
    this.summaryStamp = { provider: chat.provider, model: chat.model, version: SUMMARY_PROMPT_VERSION };
    this.tagsStamp = { provider: chat.provider, model: chat.model, version: TAGS_PROMPT_VERSION };
  }

  async summarize(doc: EnrichDocument): Promise<string> {
    return validateSummary(await this.chat.complete({ system: SUMMARY_SYSTEM, user: pageMessage(doc), maxTokens: 400 }));
  }

  async tag(doc: EnrichDocument): Promise<string[]> {
    const output = await this.chat.complete({ system: TAGS_SYSTEM, user: pageMessage(doc), maxTokens: 200 });
    try {
      return validateTags(output);
    } catch (err) {
      // One repair turn: the model sees what it wrote and the rule it broke.
      const repaired = await this.chat.complete({
        system: TAGS_SYSTEM,
        user: `${pageMessage(doc)}\n\nYour previous answer was:\n${output.slice(0, 2000)}\n\nIt was not usable (${(err as Error).message}). Answer again with a JSON array of ${TAG_LIMITS.min}–${TAG_LIMITS.max} #kebab-case tags only.`,
        maxTokens: 200,
      });
      return validateTags(repaired);
    }
  }
}
