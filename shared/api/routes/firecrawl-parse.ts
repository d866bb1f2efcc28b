// Firecrawl's `POST /v2/parse`: an uploaded file (multipart: `file`, and `options` as JSON), HTML or
// PDF, read as a crawled page is — the same extraction, nothing fetched, nothing stored — and
// answered as a document in the formats asked for: markdown, html, links, summary, highlights.
import { RequestRefusedError } from '../../errors.js';
import type { Hono } from 'hono';
import { decodeBody, sniffCharset } from '../../fetch/charset.js';
import { extractPage } from '../../extract/extract-page.js';
import { extractPdf } from '../../extract/pdf.js';
import { summarizeExtractive } from '../../enrich/local-summary.js';
import { plainText } from '../../enrich/text.js';
import { highlightsOf } from '../../search/highlights.js';
import { canonicalize } from '../../url/canonical.js';
import { cleanHtml } from '../firecrawl-documents.js';
import { failure, PARSE_MAX_BYTES, ScrapeOptionsBody, wantedOf } from '../firecrawl-request.js';

const PDF_MAGIC = Buffer.from('%PDF-');

/**
 * `POST /v2/parse`: the uploaded file's extraction as a document. `trawl serve` adds it to the
 * Firecrawl routes (the cloud's search API does not: its bundle carries no extractor).
 */
export function parseRoute(app: Hono): void {
  app.post('/v2/parse', async (c) => {
    try {
      const declared = Number(c.req.header('content-length') ?? 0);
      if (declared > PARSE_MAX_BYTES + 64 * 1024)
        throw new RequestRefusedError(`the upload is ${declared} bytes: a parsed file may have at most ${PARSE_MAX_BYTES} bytes`, 413);
      if (!(c.req.header('content-type') ?? '').toLowerCase().startsWith('multipart/form-data'))
        throw new RequestRefusedError('send the file as multipart/form-data: a part "file" (the file) and a part "options" (JSON)', 415);
      const form = await c.req.parseBody();
      const file = form.file;
      if (!(file instanceof File)) throw new RequestRefusedError('the form has no part "file": send the file to parse there');
      if (file.size > PARSE_MAX_BYTES)
        throw new RequestRefusedError(`${file.name} is ${file.size} bytes: a parsed file may have at most ${PARSE_MAX_BYTES} bytes`, 413);
      let options: unknown = {};
      if (typeof form.options === 'string' && form.options.trim()) {
        try {
          options = JSON.parse(form.options);
        } catch {
          throw new RequestRefusedError('the part "options" is not JSON');
        }
      }
      const parsed = ScrapeOptionsBody.safeParse(options);
      if (!parsed.success) throw new RequestRefusedError(`options: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
      const wanted = wantedOf(parsed.data, 'v2', undefined, false);
      if (wanted.json || wanted.question || wanted.actions || wanted.attributes || wanted.tags)
        throw new RequestRefusedError('a parse answers with markdown, html, links, summary and highlights');
      const bytes = Buffer.from(await file.arrayBuffer());
      return c.json({ success: true, data: await parsedDocument(bytes, file.name, file.type, wanted) }, 200);
    } catch (err) {
      return failure(c, err);
    }
  });
}

async function parsedDocument(bytes: Buffer, name: string, type: string, wanted: ReturnType<typeof wantedOf>): Promise<Record<string, unknown>> {
  const pdf = bytes.subarray(0, 5).equals(PDF_MAGIC) || /pdf/i.test(type);
  const url = canonicalize(`http://localhost/${encodeURIComponent(name)}`) ?? 'http://localhost/';
  let markdown: string;
  let html: string | undefined;
  let links: string[] = [];
  let title: string | undefined;
  let language: string | undefined;
  if (pdf) {
    if (!bytes.subarray(0, 5).equals(PDF_MAGIC)) throw new RequestRefusedError(`${name} is declared a PDF and does not start as one`);
    const text = await extractPdf(bytes).catch((err: unknown) => {
      throw new RequestRefusedError(`${name} could not be read as a PDF: ${err instanceof Error ? err.message : String(err)}`);
    });
    markdown = text.text;
    title = text.title;
  } else {
    if (!/html|xml|text/i.test(type || 'text/html') && !/\.x?html?$/i.test(name))
      throw new RequestRefusedError(`${name} (${type}) is neither HTML nor PDF: parse takes those`, 415);
    html = decodeBody(bytes, sniffCharset(bytes, undefined, true));
    const x = extractPage(html, url, { canonicalize: (h) => canonicalize(h), robotsToken: 'trawl', mainContent: wanted.mainContent });
    markdown = x.markdown;
    links = [...new Set(x.links.map((l) => l.url))];
    title = x.title ?? x.metadata.title;
    language = x.metadata.language;
  }
  const f = wanted.formats;
  const doc: Record<string, unknown> = {};
  if (f.has('markdown') || f.size === 0) doc.markdown = markdown;
  if (f.has('html') && html !== undefined) doc.html = cleanHtml(html);
  if (f.has('rawHtml') && html !== undefined) doc.rawHtml = html;
  if (f.has('links')) doc.links = links;
  if (wanted.summary) doc.summary = summarizeExtractive(plainText(markdown), language);
  const metadata: Record<string, unknown> = { title, ...(language ? { language } : {}), sourceURL: name, contentType: pdf ? 'application/pdf' : 'text/html' };
  if (wanted.highlights) {
    const h = highlightsOf(markdown, wanted.highlights, { language });
    doc.highlights = h.text;
    metadata.highlights = h.passages;
  }
  doc.metadata = metadata;
  return doc;
}
