import { createHash } from 'node:crypto';
import { gzip, gzipSync } from 'node:zlib';
import { promisify } from 'node:util';
import { makePdf } from './pdf.js';
import { articleHtml, htmlPage, listPage, prose, rss, sitemapIndex, urlset } from './pages.js';
import { hostileHosts } from './hostile.js';
import { appsHost } from './apps.js';
import { guidesHost } from './guides.js';

export interface WebRequest {
  path: string;
  /** Path and query, as requested. */
  target: string;
  query: URLSearchParams;
  headers: Record<string, string | string[] | undefined>;
}

export interface WebResponse {
  status: number;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** A body made off the event loop (the other hosts go on being served meanwhile). */
  later?: Promise<Buffer>;
  /** Streams a large body in chunks; returns bytes written before the client went away. */
  stream?: { chunk: Buffer; total: number };
  delayMs?: number;
}

export interface HostEnv {
  origin(name: string): string;
  /** Per-host mutable state (first-hit flags for 429/503 tests). */
  hits: Map<string, number>;
  now(): number;
}

export interface HostSpec {
  name: string;
  handle(req: WebRequest, env: HostEnv): WebResponse;
  /** Paths our crawler must never request on this host (robots.txt says so for `trawl`). */
  disallowed(target: string): boolean;
  /** Paths that only a crawler caught in a trap requests. */
  isTrap(target: string): boolean;
}

export interface WebOptions {
  /** Articles on each bulk blog host, and on the main host. */
  articles: number;
  blogHosts: number;
  /** Crawl-delay of the `delay` host, in seconds. */
  crawlDelaySeconds: number;
  /** Blog hosts whose every page answers this many ms late. */
  slowHosts?: string[];
  slowMs?: number;
  /** Adds the hostile hosts (support/web/hostile.ts) to the web. */
  hostile?: boolean;
  /** Adds the single-page-app host (support/web/apps.ts) with this many chained app pages. */
  apps?: number;
  /** Adds the `guides` host (support/web/guides.ts): pages of real prose for summaries, tags and search. */
  guides?: boolean;
  /**
   * What real sites cost (bench:crawl): each blog host also links a 20 MB page, PDFs and a long set
   * of redirects (old article addresses, 301 to the articles).
   */
  heavy?: { pdfs: number; redirects: number };
  /**
   * Links on each blog article (bench:cloud prices pages that carry ~60): a "more from this blog"
   * list of the following articles and a few to the neighbour blog, as real sites repeat them.
   */
  linksPerPage?: number;
}

const html = (body: string, extra: Record<string, string> = {}): WebResponse => ({
  status: 200,
  headers: { 'content-type': 'text/html; charset=utf-8', ...extra },
  body,
});
const notFound: WebResponse = { status: 404, headers: { 'content-type': 'text/html' }, body: '<h1>Not found</h1>' };
const text = (body: string, type = 'text/plain'): WebResponse => ({ status: 200, headers: { 'content-type': type }, body });

function withEtag(req: WebRequest, res: WebResponse): WebResponse {
  const etag = `"${createHash('sha1').update(String(res.body)).digest('hex').slice(0, 16)}"`;
  if (req.headers['if-none-match'] === etag) return { status: 304, headers: { etag } };
  return { ...res, headers: { ...res.headers, etag, 'last-modified': 'Mon, 02 Nov 2026 10:00:00 GMT' } };
}

function monthOffset(month: string, now: number): number {
  const [y, m] = month.split('-').map(Number);
  const d = new Date(now);
  return (y! - d.getUTCFullYear()) * 12 + (m! - 1 - d.getUTCMonth());
}

function shiftMonth(month: string, by: number): string {
  const [y, m] = month.split('-').map(Number);
  const d = new Date(Date.UTC(y!, m! - 1 + by, 1));
  return `${d.getUTCFullYear()}-${String(d.getUTCMonth() + 1).padStart(2, '0')}`;
}

let bomb: Promise<Buffer> | undefined;
/**
 * 200 MiB of zeros gzipped to ~200 KiB: a reader without an output cap would exhaust memory. Made
 * on the thread pool at the first request: made in the handler (~0.5 s), it held up every host of
 * the web, so the first crawl of a bench run waited for it and the next ones did not.
 */
function gzipBomb(): Promise<Buffer> {
  bomb ??= promisify(gzip)(Buffer.alloc(200 * 1024 * 1024), { level: 9 });
  return bomb;
}

function mainIndex(origin: (n: string) => string): string {
  const links = [
    '<a href="/list?page=1">All articles</a>',
    '<a href="/articles/1?utm_source=newsletter&amp;utm_medium=email#intro">Article 1 (tracked)</a>',
    '<a href="/articles/2#comments">Article 2 comments</a>',
    '<a href="/articles/3?print=1">Article 3 print view</a>',
    '<a href="/private/secret">Secret</a> <a href="/private/open">Open private</a>',
    '<a href="/tool.cgi">Tool</a> <a href="/tool.cgi?x=1">Tool with query</a> <a href="/search?q=crawler">Search</a>',
    '<a href="/calendar?month=2026-11">Calendar</a> <a href="/rel/">Relative maze</a>',
    '<a href="/old-page">Moved</a> <a href="/loop-a">Loop</a> <a href="/chain/0">Long chain</a>',
    '<a href="/image.png">Image</a> <a href="/file.zip">Zip</a> <a href="/doc.pdf">PDF</a> <a href="/notes.txt">Notes</a>',
    '<a href="/huge">Huge</a> <a href="/bomb">Bomb</a> <a href="/slow">Slow</a> <a href="/latin1">Latin-1</a> <a href="/sjis">Shift_JIS</a>',
    '<a href="/only-nofollow" rel="nofollow">Sponsored</a> <a href="/nofollow-page">Nofollow page</a> <a href="/noindex">Noindex</a>',
    '<a href="/only-tracked?utm_campaign=x#top">Tracked only</a> <a href="/changing">Changes every visit</a> <a href="/copy/1">Copy of article 1</a> <a href="/near/2">Near copy of article 2</a> <a href="/restyled/6">Article 6 restyled</a> <a href="mailto:team@example.com">Mail</a> <a href="javascript:void(0)">JS</a>',
    `<a href="${origin('nobots')}/">Friends</a>`,
  ];
  return htmlPage(
    'Main site',
    `<h1>Main</h1><p>${prose(1)}</p><p>${links.join('</p><p>')}</p>`,
    '<link rel="alternate" type="application/rss+xml" href="/feed.xml">',
  );
}

/**
 * The main host's articles; article 2 is a long read (520 words), as near-duplicates are in the wild:
 * SimHash over word 3-grams needs a few hundred words before one changed word stays within distance 3.
 */
function mainArticle(k: number, total: number): string {
  const html = articleHtml('main', k, total);
  return k === 2 ? html.replace('</p>', `</p><p>${prose(9002, 400)}</p>`) : html;
}

function mainHost(o: WebOptions): HostSpec {
  const n = o.articles;
  return {
    name: 'main',
    disallowed: (t) => (t.startsWith('/private/') && !t.startsWith('/private/open')) || /\.cgi$/.test(t) || t.startsWith('/search'),
    isTrap: (t) =>
      (t.startsWith('/calendar') && Math.abs(monthOffset(new URLSearchParams(t.split('?')[1]).get('month') ?? '2026-01', Date.now())) > 24) ||
      (t.match(/more\//g)?.length ?? 0) > 3,
    handle(req, env) {
      const { path, query } = req;
      const origin = env.origin('main');
      if (path === '/robots.txt')
        return text(
          `User-agent: *\nDisallow: /private/\nAllow: /private/open\nDisallow: /*.cgi$\nDisallow: /search\n\nUser-agent: otherbot\nDisallow: /\n\nSitemap: ${origin}/sitemap-index.xml\n`,
        );
      if (path === '/') return html(mainIndex(env.origin));
      if (path === '/sitemap-index.xml') return text(sitemapIndex([`${origin}/sitemap-pages.xml.gz`]), 'application/xml');
      if (path === '/sitemap-pages.xml.gz') {
        const urls = [...Array.from({ length: n }, (_, i) => `${origin}/articles/${i + 1}`), `${origin}/sitemap-only`];
        return { status: 200, headers: { 'content-type': 'application/gzip' }, body: gzipSync(urlset(urls)) };
      }
      if (path === '/feed.xml')
        return text(
          rss('Main feed', [
            { url: `${origin}/articles/5`, title: 'Five' },
            { url: `${origin}/feed-only`, title: 'Only in the feed' },
          ]),
          'application/rss+xml',
        );
      if (path === '/list') return html(listPage('main', Number(query.get('page') ?? 1), 20, n));
      const article = /^\/articles\/(\d+)$/.exec(path);
      if (article && Number(article[1]) >= 1 && Number(article[1]) <= n) {
        const k = Number(article[1]);
        if (k === 3 && query.get('print') === '1')
          return html(htmlPage('Article 3 (print)', `<p>${prose(3)}</p>`, `<link rel="canonical" href="${origin}/articles/3">`));
        return withEtag(req, html(mainArticle(k, n)));
      }
      if (path === '/copy/1') return html(articleHtml('main', 1, n));
      if (path === '/changing') {
        const visit = (env.hits.get('/changing') ?? 0) + 1;
        env.hits.set('/changing', visit);
        return html(htmlPage(`Changing, visit ${visit}`, `<p>${prose(500 + visit)}</p>`));
      }
      // One word changed: a near-duplicate (SimHash within distance 3), not a byte duplicate.
      if (path === '/near/2') return html(mainArticle(2, n).replace('<p>', '<p>Updated: '));
      // The same text in other markup: a text duplicate.
      if (path === '/restyled/6') return html(articleHtml('main', 6, n).replace('<article>', '<article class="restyled" data-theme="dark">'));
      if (['/sitemap-only', '/feed-only', '/only-tracked', '/private/open', '/only-nofollow', '/only-from-nofollow-page', '/about'].includes(path))
        return withEtag(req, html(htmlPage(path, `<p>${prose(path.length)}</p>`)));
      if (path === '/tool.cgi') return html(htmlPage('tool', '<p>tool</p>'));
      if (path === '/private/secret' || path === '/search') return html(htmlPage('secret', '<p>must not be fetched</p>'));
      if (path === '/nofollow-page')
        return html(htmlPage('Nofollow page', `<p>${prose(77)}</p><a href="/only-from-nofollow-page">Hidden</a>`, '<meta name="robots" content="nofollow">'));
      if (path === '/noindex') return html(htmlPage('Noindex', `<p>${prose(78)}</p>`, '<meta name="robots" content="noindex">'));
      if (path === '/calendar') {
        const month = query.get('month') ?? '2026-11';
        return html(
          htmlPage(
            `Calendar ${month}`,
            `<p>Events in ${month}</p><a href="/calendar?month=${shiftMonth(month, -1)}">Previous</a> <a href="/calendar?month=${shiftMonth(month, 1)}">Next</a>`,
          ),
        );
      }
      if (path.startsWith('/rel/')) return html(htmlPage(`Maze ${path}`, '<a href="more/">More</a>'));
      if (path === '/old-page') return { status: 301, headers: { location: '/articles/4' } };
      if (path === '/loop-a') return { status: 302, headers: { location: '/loop-b' } };
      if (path === '/loop-b') return { status: 302, headers: { location: '/loop-a' } };
      const chain = /^\/chain\/(\d+)$/.exec(path);
      if (chain) return { status: 302, headers: { location: `/chain/${Number(chain[1]) + 1}` } };
      if (path === '/image.png') return { status: 200, headers: { 'content-type': 'image/png' }, body: Buffer.alloc(64 * 1024, 7) };
      if (path === '/file.zip') return { status: 200, headers: { 'content-type': 'application/zip' }, body: Buffer.alloc(64 * 1024, 9) };
      if (path === '/doc.pdf')
        return {
          status: 200,
          headers: { 'content-type': 'application/pdf' },
          body: makePdf(['A synthetic PDF about polite crawling.', 'Its second page.'], 'Crawling PDF'),
        };
      if (path === '/notes.txt') return text('plain notes\n');
      if (path === '/huge')
        return {
          status: 200,
          headers: { 'content-type': 'text/html' },
          stream: { chunk: Buffer.from(`<p>${'x'.repeat(65_000)}</p>\n`), total: 20 * 1024 * 1024 },
        };
      if (path === '/bomb') return { status: 200, headers: { 'content-type': 'text/html', 'content-encoding': 'gzip' }, later: gzipBomb() };
      if (path === '/slow') return { ...html(htmlPage('Slow', `<p>${prose(99)}</p>`)), delayMs: 300 };
      if (path === '/latin1')
        return {
          status: 200,
          headers: { 'content-type': 'text/html; charset=iso-8859-1' },
          body: Buffer.from(htmlPage('Caf\u00e9 cr\u00e8me', '<p>Gr\u00fc\u00dfe aus K\u00f6ln</p>').replace('charset="utf-8"', ''), 'latin1'),
        };
      if (path === '/sjis')
        return {
          status: 200,
          headers: { 'content-type': 'text/html' },
          body: Buffer.from(
            '<html><head><meta charset="shift_jis"><title>\x93\xfa\x96\x7b</title></head><body><p>\x82\xb1\x82\xf1\x82\xc9\x82\xbf\x82\xcd</p></body></html>',
            'latin1',
          ),
        };
      return notFound;
    },
  };
}

/** The heavy extras' links on a blog host's front page: the 20 MB page, the PDFs and the old addresses. */
function heavyLinks(o: WebOptions): string {
  if (!o.heavy) return '';
  const pdfs = Array.from({ length: o.heavy.pdfs }, (_, i) => `<li><a href="/papers/${i + 1}.pdf">Paper ${i + 1}</a></li>`);
  const old = Array.from({ length: o.heavy.redirects }, (_, i) => `<li><a href="/old/${i + 1}">Old ${i + 1}</a></li>`);
  return `<li><a href="/big">Everything on one page</a></li>${pdfs.join('')}${old.join('')}`;
}

/** The heavy extras' responses, or undefined for other paths. */
function heavyResponse(name: string, o: WebOptions, path: string): WebResponse | undefined {
  if (!o.heavy) return undefined;
  if (path === '/big')
    return { status: 200, headers: { 'content-type': 'text/html' }, stream: { chunk: Buffer.from(`<p>${prose(7, 9000)}</p>\n`), total: 20 * 1024 * 1024 } };
  const pdf = /^\/papers\/(\d+)\.pdf$/.exec(path);
  if (pdf && Number(pdf[1]) <= o.heavy.pdfs)
    return {
      status: 200,
      headers: { 'content-type': 'application/pdf' },
      body: makePdf([prose(Number(pdf[1]), 200), prose(Number(pdf[1]) + 50, 200)], `${name} paper ${pdf[1]}`),
    };
  const old = /^\/old\/(\d+)$/.exec(path);
  if (old && Number(old[1]) <= o.heavy.redirects) return { status: 301, headers: { location: `/articles/${((Number(old[1]) - 1) % o.articles) + 1}` } };
  return undefined;
}

/** The extra links of an article when the web is asked for `linksPerPage` (4 are already on every article). */
function moreLinks(n: number, o: WebOptions, neighbour: string): string {
  const extra = Math.max(0, (o.linksPerPage ?? 0) - 4);
  if (extra === 0) return '';
  const items: string[] = [];
  for (let i = 0; i < extra; i++) {
    const k = ((n + 10 + i) % o.articles) + 1;
    // One link in ten leaves for the neighbour blog.
    items.push(i % 10 === 9 ? `<li><a href="${neighbour}/articles/${k}">Elsewhere ${k}</a></li>` : `<li><a href="/articles/${k}">More ${k}</a></li>`);
  }
  return `<aside><h2>More from this blog</h2><ul>${items.join('')}</ul></aside>`;
}

function blogHost(name: string, o: WebOptions, neighbour: string): HostSpec {
  return {
    name,
    disallowed: () => false,
    isTrap: () => false,
    handle(req, env) {
      const { path, query } = req;
      if (path === '/robots.txt') return text('User-agent: *\nDisallow:\n');
      if (path === '/')
        return html(listPage(name, 1, 20, o.articles).replace('<ul>', `<ul><li><a href="${env.origin(neighbour)}/">Neighbour</a></li>${heavyLinks(o)}`));
      const heavy = heavyResponse(name, o, path);
      if (heavy) return heavy;
      if (path === '/list') return html(listPage(name, Number(query.get('page') ?? 1), 20, o.articles));
      const m = /^\/articles\/(\d+)$/.exec(path);
      if (m && Number(m[1]) >= 1 && Number(m[1]) <= o.articles) {
        const res = withEtag(req, html(articleHtml(name, Number(m[1]), o.articles, moreLinks(Number(m[1]), o, env.origin(neighbour)))));
        return o.slowHosts?.includes(name) ? { ...res, delayMs: o.slowMs ?? 200 } : res;
      }
      return notFound;
    },
  };
}

function smallHost(name: string, robots: WebResponse | undefined, pages: Record<string, string>, disallowed: (t: string) => boolean = () => false): HostSpec {
  return {
    name,
    disallowed,
    isTrap: () => false,
    handle(req) {
      if (req.path === '/robots.txt') return robots ?? notFound;
      const body = pages[req.path];
      return body === undefined ? notFound : html(htmlPage(`${name} ${req.path}`, body));
    },
  };
}

function busyHost(): HostSpec {
  const firstHit = (env: HostEnv, key: string) => {
    const n = (env.hits.get(key) ?? 0) + 1;
    env.hits.set(key, n);
    return n === 1;
  };
  return {
    name: 'busy',
    disallowed: () => false,
    isTrap: () => false,
    handle(req, env) {
      if (req.path === '/robots.txt') return text('User-agent: *\nAllow: /\n');
      if (req.path === '/')
        return firstHit(env, '/')
          ? { status: 429, headers: { 'retry-after': '1' }, body: 'slow down' }
          : html(htmlPage('busy', '<a href="/a">A</a> <a href="/b">B</a>'));
      if (req.path === '/a')
        return firstHit(env, '/a') ? { status: 503, headers: { 'retry-after': new Date(env.now() + 2000).toUTCString() } } : html(htmlPage('a', '<p>a</p>'));
      if (req.path === '/b') return firstHit(env, '/b') ? { status: 429 } : html(htmlPage('b', '<p>b</p>'));
      return notFound;
    },
  };
}

/** Every host of the synthetic web, by role. */
export function buildHosts(o: WebOptions): HostSpec[] {
  const blogs = Array.from({ length: o.blogHosts }, (_, i) => `blog${i + 1}`);
  return [
    mainHost(o),
    smallHost('nobots', undefined, { '/': '<a href="/one">One</a> <a href="/two">Two</a>', '/one': '<p>one</p>', '/two': '<p>two</p>' }),
    smallHost('broken', { status: 500, body: 'oops' }, { '/': '<a href="/x">X</a>', '/x': '<p>x</p>' }, () => true),
    smallHost('delay', text(`User-agent: *\nCrawl-delay: ${o.crawlDelaySeconds}\n`), {
      '/': '<a href="/d1">1</a> <a href="/d2">2</a> <a href="/d3">3</a>',
      '/d1': '<p>1</p>',
      '/d2': '<p>2</p>',
      '/d3': '<p>3</p>',
    }),
    busyHost(),
    smallHost(
      'agent',
      text(
        'User-agent: *\nDisallow: /\n\nUser-agent: Trawl/2.0\nDisallow: /no-trawl/\n\nUser-agent: otherbot\nAllow: /\n\nuser-agent: TRAWL\nDisallow: /also-no/\n',
      ),
      {
        '/': '<a href="/ok">ok</a> <a href="/no-trawl/x">no</a> <a href="/also-no/y">also no</a>',
        '/ok': '<p>ok</p>',
        '/no-trawl/x': '<p>x</p>',
        '/also-no/y': '<p>y</p>',
      },
      (t) => t.startsWith('/no-trawl/') || t.startsWith('/also-no/'),
    ),
    ...blogs.map((b, i) => blogHost(b, o, blogs[(i + 1) % blogs.length]!)),
    ...(o.hostile ? hostileHosts() : []),
    ...(o.apps ? [appsHost(o.apps)] : []),
    ...(o.guides ? [guidesHost()] : []),
  ];
}
