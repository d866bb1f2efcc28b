// The Firecrawl routes' documents: a stored page in the formats asked for, its HTML as served
// (from the archive) or rendered, written from the elements `includeTags` and `excludeTags` keep.
import * as cheerio from 'cheerio';
import { ArchiveReplay } from '../archive/replay.js';
import { decodeBody, sniffCharset } from '../fetch/charset.js';
import { toMarkdown } from '../extract/markdown.js';
import type { ExtractRecord, FetchRecord, PageRecord, WarcLocation } from '../ports/index.js';
import { canonicalize, urlId } from '../url/canonical.js';
import type { FirecrawlReads, QuestionAnswers } from './firecrawl-ports.js';
import type { Wanted } from './firecrawl-request.js';
import { passagesOf } from './firecrawl-passages.js';

/** A page's URL id, as the stores key it. */
export const idOfUrl = (url: string) => urlId(canonicalize(url) ?? url);

/** A stored page as a Firecrawl document, in the formats asked for. */
export async function documentOf(
  reads: FirecrawlReads,
  page: PageRecord,
  wanted: Wanted,
  own?: ExtractRecord,
  more: { sourceURL?: string; questions?: QuestionAnswers; summarize?: (text: string, language?: string) => string } = {},
): Promise<Record<string, unknown>> {
  const sourceURL = more.sourceURL ?? page.url;
  // A page whose bytes equal a page stored before has no extraction of its own: it is answered with
  // the content it duplicates, and says so.
  const original = !own && page.duplicateOf ? await duplicated(reads, page.duplicateOf) : undefined;
  const x = own ?? original?.x;
  const doc: Record<string, unknown> = {};
  const f = wanted.formats;
  const html = f.has('rawHtml') || f.has('html') || wanted.tags || wanted.attributes ? await pageHtml(reads, page) : undefined;
  const tagged = wanted.tags && html && taggedPage(html.dom, wanted.tags);
  if (f.has('markdown')) doc.markdown = tagged ? toMarkdown(tagged('body').toArray(), page.url) : (x?.markdown ?? '');
  if (html && f.has('rawHtml')) doc.rawHtml = html.served;
  if (html && f.has('html')) doc.html = tagged ? tagged.html() : cleanHtml(html.dom);
  if (f.has('links')) doc.links = [...new Set((await reads.graph.outlinks(original?.page.urlId ?? page.urlId)).map((l) => l.toUrl))];
  if (wanted.screenshot || wanted.actionShots) {
    const png = page.render?.screenshotHash ? await reads.blobs.get(page.render.screenshotHash) : undefined;
    // One picture is kept a page: the last an action took (the screenshot format's, when asked for).
    if (png && wanted.screenshot) doc.screenshot = pngUrl(png);
    else if (png) doc.actions = { screenshots: [pngUrl(png)] };
  }
  const passages = await passagesOf(reads, original?.page ?? page, x, wanted, {
    html: async () => html?.dom ?? '',
    questions: more.questions,
    summarize: more.summarize,
  });
  Object.assign(doc, passages.doc);
  doc.metadata = {
    ...passages.metadata,
    title: x?.title ?? page.title,
    description: x?.description,
    language: x?.language,
    ...(x?.author ? { author: x.author } : {}),
    ...(x?.published ? { publishedTime: x.published } : {}),
    ...(x?.siteName ? { ogSiteName: x.siteName } : {}),
    sourceURL,
    url: page.url,
    statusCode: page.status,
    contentType: page.mime,
    ...(original ? { duplicateOf: original.page.url } : {}),
  };
  return doc;
}

/** The stored page a duplicate's bytes equal, with its extraction; undefined when it is gone. */
async function duplicated(reads: FirecrawlReads, id: string): Promise<{ page: PageRecord; x: ExtractRecord } | undefined> {
  const [page, x] = await Promise.all([reads.store.getPage(id), reads.store.getExtract(id)]);
  return page && x ? { page, x } : undefined;
}

/**
 * A fetch answered with an error status (a 404, a 500), which stores no page: the answer as
 * archived, as a document whose `metadata.statusCode` is the status, as Firecrawl answers it.
 */
export async function answerDocument(reads: FirecrawlReads, record: FetchRecord, wanted: Wanted, sourceURL: string): Promise<Record<string, unknown>> {
  const archived = record.warc ? await reads.archive(record as FetchRecord & { warc: WarcLocation }).catch(() => undefined) : undefined;
  const served = archived?.body.length ? decodeBody(archived.body, sniffCharset(archived.body, undefined, true)) : '';
  const contentType = archived?.headers['content-type'];
  const html = /html|xml/i.test(contentType ?? 'text/html') ? served : '';
  const $ = cheerio.load(html);
  const f = wanted.formats;
  const doc: Record<string, unknown> = {};
  if (f.has('rawHtml')) doc.rawHtml = served;
  if (f.has('html')) doc.html = cleanHtml(html);
  if (f.has('links'))
    doc.links = [
      ...new Set(
        $('a[href]')
          .toArray()
          .flatMap((a) => {
            try {
              return [new URL($(a).attr('href')!, record.url).href];
            } catch {
              return [];
            }
          }),
      ),
    ];
  $('script, style, noscript, iframe, template').remove();
  if (f.has('markdown')) doc.markdown = html ? toMarkdown($('body').toArray(), record.url) : served;
  doc.metadata = {
    title: $('title').first().text().trim() || undefined,
    sourceURL,
    url: record.url,
    statusCode: record.status,
    ...(contentType ? { contentType } : {}),
    error: `the server answered ${record.status}`,
  };
  return doc;
}

/** The page's HTML for `html` and for tags: its DOM after scripts ran for a rendered page, else as served. */
async function pageHtml(reads: FirecrawlReads, page: PageRecord): Promise<{ served: string; dom: string }> {
  const archived = await new ArchiveReplay(reads.store, reads.archive).fetch({ url: page.url, kind: 'page' }).catch(() => undefined);
  const served = archived?.body ? decodeBody(archived.body, sniffCharset(archived.body, archived.charset, true)) : '';
  const rendered = page.fetcher === 'browser' && page.render?.renderedHash ? await reads.blobs.get(page.render.renderedHash) : undefined;
  return { served, dom: rendered ? rendered.toString('utf8') : served };
}

/** The page with only the elements `include` selects (all of its body without it), less those `exclude` selects and what is never content. */
function taggedPage(html: string, tags: NonNullable<Wanted['tags']>): cheerio.CheerioAPI {
  const $ = cheerio.load(html);
  $('script, style, noscript, iframe, template, link[rel="stylesheet"]').remove();
  if (tags.exclude.length) $(tags.exclude.join(', ')).remove();
  if (tags.include.length) {
    const kept = $(tags.include.join(', ')).filter((_, el) => $(el).parents(tags.include.join(', ')).length === 0);
    const body = $('body');
    const copies = kept.toArray().map((el) => $.html(el));
    body.empty();
    for (const c of copies) body.append(c);
  }
  return $;
}

/** A PNG blob as the URL a document carries. */
const pngUrl = (png: Buffer) => `data:image/png;base64,${png.toString('base64')}`;

/** Firecrawl's `html`: the page without its scripts, styles, frames and comments. */
export function cleanHtml(html: string): string {
  const $ = cheerio.load(html);
  $('script, style, noscript, iframe, template, link[rel="stylesheet"]').remove();
  $('*')
    .contents()
    .filter((_, n) => n.type === 'comment')
    .remove();
  return $.html();
}
