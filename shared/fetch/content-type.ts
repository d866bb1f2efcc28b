/** What a fetched URL is expected to be; decides which content types are accepted. */
export type FetchKind = 'page' | 'feed' | 'sitemap' | 'robots';

export type ContentClass = 'html' | 'xml' | 'pdf' | 'text' | 'gzip';

/**
 * Headers (lower case) that described the bytes on the wire, not the decoded body trawl keeps: its
 * encoding and length, and the connection's hop-by-hop ones. Dropped wherever a kept body is given
 * with its headers (the archive's response records, a render's document and subresources).
 */
export const WIRE_HEADERS: ReadonlySet<string> = new Set(['content-encoding', 'content-length', 'transfer-encoding', 'connection', 'keep-alive']);

const CLASSES: Record<string, ContentClass> = {
  'text/html': 'html',
  'application/xhtml+xml': 'html',
  'application/xml': 'xml',
  'text/xml': 'xml',
  'application/rss+xml': 'xml',
  'application/atom+xml': 'xml',
  'application/feed+json': 'text',
  'application/json': 'text',
  'application/pdf': 'pdf',
  'text/plain': 'text',
  'application/gzip': 'gzip',
  'application/x-gzip': 'gzip',
};

export function parseContentType(header: string | undefined): { mime: string; charset?: string } {
  if (!header) return { mime: '' };
  const [mimePart, ...params] = header.split(';');
  const mime = (mimePart ?? '').trim().toLowerCase();
  const charsetParam = params.map((p) => p.trim()).find((p) => p.toLowerCase().startsWith('charset='));
  const charset = charsetParam
    ?.slice(8)
    .trim()
    .replace(/^["']|["']$/g, '')
    .toLowerCase();
  return { mime, charset: charset || undefined };
}

/**
 * The allow-list: HTML, XHTML, XML/RSS/Atom, PDF and plain text for pages and feeds; sitemaps
 * may also be gzip (`.xml.gz`). A missing type is accepted and sniffed later.
 */
export function acceptedClass(mime: string, kind: FetchKind): ContentClass | null {
  if (mime === '') return 'html';
  const cls = CLASSES[mime] ?? (mime.endsWith('+xml') ? 'xml' : undefined);
  if (!cls) return null;
  if (cls === 'gzip' && kind !== 'sitemap') return null;
  return cls;
}
