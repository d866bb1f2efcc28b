// The Firecrawl formats answered from a stored page's own text: `highlights` (its passages that
// answer a query), `question` (a chat model's answer grounded in those passages), `summary`, and
// `attributes` (values by CSS selector). Every passage cites the archived record it came from.
import * as cheerio from 'cheerio';
import { summarizeExtractive } from '../enrich/local-summary.js';
import { plainText } from '../enrich/text.js';
import { highlightsOf, type Passage } from '../search/highlights.js';
import type { ExtractRecord, FetchRecord, PageRecord } from '../store/ports/index.js';
import type { FirecrawlReads, QuestionAnswers } from './firecrawl-ports.js';
import type { Wanted } from './firecrawl-request.js';

/** Where a passage came from: the WARC record of the capture the page's text was extracted from, and its span in that text (the markdown). */
export interface Citation {
  text: string;
  /** The span in the page's markdown (`data.markdown` of the same page). */
  start: number;
  end: number;
  warcFile?: string;
  warcOffset?: number;
  warcLength?: number;
  /** When the capture was made (ms since the epoch). */
  fetchedAt: number;
  url: string;
}

/** What a question's answer says when the page's passages do not answer it. */
export const NOT_IN_PAGE = 'not in this page';

/** The capture a stored page's extraction came from: its record with a response, at or before the page's time. */
async function captureOf(reads: FirecrawlReads, page: PageRecord): Promise<FetchRecord | undefined> {
  const history = await reads.store.fetchHistory(page.urlId);
  const full = history.filter((r) => r.warc && r.status !== undefined && r.status < 300 && r.fetchedAt <= page.fetchedAt && r.kind !== 'preview');
  return full.find((r) => r.fetchedAt === page.fetchedAt) ?? full.at(-1);
}

function citationsOf(passages: Passage[], capture: FetchRecord | undefined, page: PageRecord): Citation[] {
  return passages.map((p) => ({
    text: p.text,
    start: p.start,
    end: p.end,
    ...(capture?.warc ? { warcFile: capture.warc.file, warcOffset: capture.warc.offset, warcLength: capture.warc.length } : {}),
    fetchedAt: capture?.fetchedAt ?? page.fetchedAt,
    url: page.url,
  }));
}

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
  tools: { html?: () => Promise<string>; questions?: QuestionAnswers },
): Promise<{ doc: Record<string, unknown>; metadata: Record<string, unknown> }> {
  const doc: Record<string, unknown> = {};
  const metadata: Record<string, unknown> = {};
  const markdown = x?.markdown ?? '';
  if (wanted.summary) doc.summary = summarizeExtractive(plainText(markdown), x?.language);
  const query = wanted.highlights ?? wanted.question;
  if (query !== undefined) {
    const found = highlightsOf(markdown, query, { language: x?.language, ...(wanted.question ? { maxUnits: 10, maxChars: 4000 } : {}) });
    const citations = citationsOf(found.passages, await captureOf(reads, page), page);
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
