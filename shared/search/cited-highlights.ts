import type { CrawlStore, FetchRecord, PageRecord } from '../ports/index.js';
import { highlightsOf, type HighlightOptions, type Passage } from './highlights.js';

/** Where a passage came from: the WARC record of the capture the page's text was extracted from, and its span in that text (the markdown). */
export interface Citation extends Passage {
  warcFile?: string;
  warcOffset?: number;
  warcLength?: number;
  /** When the capture was made (ms since the epoch). */
  fetchedAt: number;
  url: string;
}

/** The capture a stored page's extraction came from: its record with a response, at or before the page's time. */
export async function captureOf(store: Pick<CrawlStore, 'fetchHistory'>, page: PageRecord): Promise<FetchRecord | undefined> {
  const history = await store.fetchHistory(page.urlId);
  const full = history.filter((r) => r.warc && r.status !== undefined && r.status < 300 && r.fetchedAt <= page.fetchedAt && r.kind !== 'preview');
  return full.find((r) => r.fetchedAt === page.fetchedAt) ?? full.at(-1);
}

/** Passages with the record they cite. */
export function citationsOf(passages: Passage[], capture: FetchRecord | undefined, page: PageRecord): Citation[] {
  return passages.map((p) => ({
    text: p.text,
    start: p.start,
    end: p.end,
    ...(capture?.warc ? { warcFile: capture.warc.file, warcOffset: capture.warc.offset, warcLength: capture.warc.length } : {}),
    fetchedAt: capture?.fetchedAt ?? page.fetchedAt,
    url: page.url,
  }));
}

/** A stored page's passages for a query, each citing its archived record; undefined when the page is not stored. */
export async function citedHighlights(
  store: Pick<CrawlStore, 'getPage' | 'getExtract' | 'fetchHistory'>,
  urlId: string,
  query: string,
  options: HighlightOptions = {},
): Promise<{ page: PageRecord; text: string; citations: Citation[] } | undefined> {
  const page = await store.getPage(urlId);
  if (!page) return undefined;
  const x = await store.getExtract(urlId);
  const found = highlightsOf(x?.markdown ?? '', query, { language: x?.language, ...options });
  return { page, text: found.text, citations: citationsOf(found.passages, await captureOf(store, page), page) };
}
