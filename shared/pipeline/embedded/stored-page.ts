// What the library's onPage hook receives: the stored page, its extraction and links, its fields,
// and the page as cheerio's `$` for custom code (parsed only when the hook touches it).
import type { CheerioAPI } from 'cheerio';
import { decodeBody } from '../../fetch/charset.js';
import { cheerioOf } from '../../extract/fields.js';
import type { CrawlContext, StoredPage } from '../stages/context.js';
import type { ProcessResult } from '../stages/process-stage.js';

const HTML = /^(text\/html|application\/xhtml\+xml)$/i;

/** The hook's view of a processed page; the body is read back from the blob store (the DOM that was extracted). */
export async function storedPage(
  ctx: Pick<CrawlContext, 'blobs'>,
  url: string,
  result: ProcessResult & { page: NonNullable<ProcessResult['page']> },
): Promise<StoredPage> {
  const { page } = result;
  const hash = page.fetcher === 'browser' && page.render?.renderedHash ? page.render.renderedHash : page.contentHash;
  const body = hash && HTML.test(page.mime ?? '') ? await ctx.blobs.get(hash) : undefined;
  let parsed: CheerioAPI | undefined;
  return {
    url,
    page,
    extract: result.extract,
    chunks: result.chunks ?? [],
    links: result.edges ?? [],
    fields: result.extract?.fields ?? {},
    get $() {
      if (!parsed && body) parsed = cheerioOf(decodeBody(body, page.fetcher === 'browser' ? 'utf-8' : (page.charset ?? 'utf-8')));
      return parsed;
    },
  };
}
