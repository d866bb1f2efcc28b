// The Firecrawl formats answered from a stored page's own text: `highlights` (its passages that
// answer a query), `question` (a chat model's answer grounded in those passages), `summary`, and
// `attributes` (values by CSS selector). Every passage cites the archived record it came from.
import * as cheerio from 'cheerio';
import { plainText } from '../enrich/text.js';
import { highlightsOf } from '../search/highlights.js';
import { captureOf, citationsOf } from '../search/cited-highlights.js';
import type { ExtractRecord, PageRecord } from '../ports/index.js';
import type { FirecrawlReads, QuestionAnswers } from './firecrawl-ports.js';
import type { Wanted } from './firecrawl-request.js';

/** What a question's answer says when the page's passages do not answer it. */
export const NOT_IN_PAGE = 'not in this page';

/**
 * The text formats of a document: `doc.highlights`, `doc.summary`, `doc.attributes`, `doc.answer`,
 * with the passages' citations in `metadata.highlights` (an extension: the WARC file, the record's
 * offset and length, and the span in the markdown).
 */
export async function passagesOf(
  reads: FirecrawlReads,
  page: PageRecord,
  x: ExtractRecord | undefined,
  wanted: Wanted,
  tools: { html?: () => Promise<string>; questions?: QuestionAnswers; summarize?: (text: string, language?: string) => string },
): Promise<{ doc: Record<string, unknown>; metadata: Record<string, unknown> }> {
  const doc: Record<string, unknown> = {};
  const metadata: Record<string, unknown> = {};
  const markdown = x?.markdown ?? '';
  // The page's summary as enrichment made it (the chat model's when one is configured), else the server's summarizer's.
  if (wanted.summary)
    doc.summary = (await reads.enrich.enrichCandidate(page.urlId))?.enrichment?.summary ?? tools.summarize?.(plainText(markdown), x?.language) ?? '';
  const query = wanted.highlights ?? wanted.question;
  if (query !== undefined) {
    const found = highlightsOf(markdown, query, { language: x?.language, ...(wanted.question ? { maxUnits: 10, maxChars: 4000 } : {}) });
    const citations = citationsOf(found.passages, await captureOf(reads.store, page), page);
    if (wanted.highlights) doc.highlights = found.text;
    if (wanted.question) {
      const answer = found.passages.length
        ? await tools.questions!.answer(wanted.question, found.passages, { url: page.url, title: x?.title ?? page.title })
        : undefined;
      doc.answer = answer ?? NOT_IN_PAGE;
    }
    metadata.highlights = citations;
  }
  if (wanted.attributes && tools.html) {
    const $ = cheerio.load(await tools.html());
    doc.attributes = wanted.attributes.map(({ selector, attribute }) => ({
      selector,
      attribute,
      values: $(selector)
        .toArray()
        .map((el) => $(el).attr(attribute))
        .filter((v): v is string => v !== undefined),
    }));
  }
  return { doc, metadata };
}
