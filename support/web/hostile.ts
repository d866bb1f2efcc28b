// Hosts that misbehave in every way a site can after the network layer: pages that are too
// heavy to process, absurd Crawl-delays, long back-offs, broken sitemaps and PDFs, stray bytes in
// a UTF-8 page. Crawled beside normal hosts, none of them may stop, hang or corrupt the crawl.
import { gzipSync } from 'node:zlib';
import type { HostSpec, WebResponse } from './hosts.js';
import { htmlPage, prose } from './pages.js';

const html = (body: string | Buffer, type = 'text/html; charset=utf-8'): WebResponse => ({ status: 200, headers: { 'content-type': type }, body });
const text = (body: string): WebResponse => ({ status: 200, headers: { 'content-type': 'text/plain' }, body });
const notFound: WebResponse = { status: 404, headers: { 'content-type': 'text/html' }, body: 'not found' };

let deep: string | undefined;
let manyLinks: string | undefined;

/** 100,000 nested divs around one sentence. */
export function deepPage(): string {
  deep ??= `<!doctype html><html><head><title>Deep</title></head><body>${'<div>'.repeat(100_000)}A sentence at the bottom of the well.${'</div>'.repeat(100_000)}</body></html>`;
  return deep;
}

/** 100,000 links in one paragraph. */
export function manyLinksPage(): string {
  manyLinks ??= `<!doctype html><html><head><title>Many links</title></head><body><p>${Array.from({ length: 100_000 }, (_, i) => `<a href="/n/${i}">link ${i}</a>`).join(' ')}</p></body></html>`;
  return manyLinks;
}

/** A valid UTF-8 Japanese page, declared utf-8, with two stray bytes (FF FE) in its body. */
export function strayBytesPage(): Buffer {
  const head = Buffer.from(
    '<!doctype html><html lang="ja"><head><meta charset="utf-8"><title>日本語のページ</title></head><body><p>これは日本語で書かれた記事です。東京の天気は晴れです。',
    'utf8',
  );
  const tail = Buffer.from('ウェブクローラーは礼儀正しくあるべきです。</p></body></html>', 'utf8');
  return Buffer.concat([head, Buffer.from([0xff, 0xfe]), tail]);
}

function heavyHost(): HostSpec {
  return {
    name: 'heavy',
    disallowed: () => false,
    isTrap: () => false,
    handle(req, env) {
      const origin = env.origin('heavy');
      switch (req.path) {
        case '/robots.txt':
          return text(`User-agent: *\nAllow: /\nSitemap: ${origin}/broken-sitemap.xml.gz\n`);
        case '/':
          return html(
            htmlPage(
              'Heavy',
              `<p>${prose(7)}</p><a href="/deep">Deep</a> <a href="/many-links">Many links</a> <a href="/bad.pdf">Bad PDF</a> <a href="/fine">Fine</a>`,
            ),
          );
        case '/deep':
          return html(deepPage());
        case '/many-links':
          return html(manyLinksPage());
        case '/fine':
          return html(htmlPage('Fine', `<p>${prose(8)}</p>`));
        // Not gzip at all, though it says so: the sitemap stage fails, the crawl goes on.
        case '/broken-sitemap.xml.gz':
          return {
            status: 200,
            headers: { 'content-type': 'application/gzip' },
            body: Buffer.concat([gzipSync('<urlset>').subarray(0, 12), Buffer.from('garbage')]),
          };
        // A PDF header and nothing that pdf.js can read.
        case '/bad.pdf':
          return {
            status: 200,
            headers: { 'content-type': 'application/pdf' },
            body: Buffer.from('%PDF-1.7\n1 0 obj << /Type /Catalog >>\ntrailer <<>>\n%%EOF garbage'),
          };
        default:
          return notFound;
      }
    },
  };
}

function delayHost(name: string, crawlDelay: string): HostSpec {
  return {
    name,
    disallowed: () => false,
    isTrap: () => false,
    handle(req) {
      if (req.path === '/robots.txt') return text(`User-agent: *\nCrawl-delay: ${crawlDelay}\n`);
      if (req.path === '/') return html(htmlPage(name, '<a href="/a">A</a> <a href="/b">B</a>'));
      if (req.path === '/a' || req.path === '/b') return html(htmlPage(`${name} ${req.path}`, `<p>${prose(3)}</p>`));
      return notFound;
    },
  };
}

function japaneseHost(): HostSpec {
  return {
    name: 'jp',
    disallowed: () => false,
    isTrap: () => false,
    handle(req) {
      if (req.path === '/robots.txt') return notFound;
      if (req.path === '/') return html(htmlPage('jp', '<a href="/kiji">記事</a>'));
      if (req.path === '/kiji') return html(strayBytesPage());
      return notFound;
    },
  };
}

/** Every request answers 503 with a Retry-After of `seconds` (within the cap: the host waits, then is deferred). */
function retryAfterHost(name: string, status: number, seconds: number): HostSpec {
  return {
    name,
    disallowed: () => false,
    isTrap: () => false,
    handle(req) {
      if (req.path === '/robots.txt') return text('User-agent: *\nAllow: /\n');
      return { status, headers: { 'retry-after': String(seconds), 'content-type': 'text/plain' }, body: 'come back later' };
    },
  };
}

/** The hostile hosts, by what they do. */
export function hostileHosts(): HostSpec[] {
  return [
    heavyHost(),
    delayHost('glacial', '999999999'),
    delayHost('daily', '86400'),
    japaneseHost(),
    retryAfterHost('later', 503, 600),
    retryAfterHost('never', 429, 7200),
  ];
}
