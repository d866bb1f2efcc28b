// A small site that changes between two crawls: one page edited, one removed, one unlinked (still
// in the sitemap), one newly linked from the home page, the rest as they were (answered 304).
import { createHash } from 'node:crypto';
import { serve } from '../../support/helpers.js';
import { crawl } from '../../shared/index.js';

export interface ChangingSite {
  origin: string;
  /** Applies the second version's edits. */
  change(): void;
  close(): Promise<void>;
}

const page = (title: string, body: string, links: string[]) =>
  `<!doctype html><html lang="en"><head><title>${title}</title><meta name="description" content="${title} page"></head><body><main><h1>${title}</h1>${body}` +
  `<nav>${links.map((l) => `<a href="${l}">${l.slice(1) || 'home'}</a>`).join(' ')}</nav></main></body></html>`;

const para = (words: string) => `<p>${words}</p>`;
const ARTICLE = [
  'Tide tables tell you when the water is high and low at a harbour, and how high it gets.',
  'Spring tides come twice a month, near the new and the full moon, and run higher than neap tides.',
  'A rule of twelfths estimates the height between high and low water hour by hour.',
];

export async function changingSite(): Promise<ChangingSite> {
  const pages = new Map<string, string>();
  const set = (path: string, html: string) => pages.set(path, html);
  set('/', page('Harbour guide', para('Everything about the harbour, its tides and its boats.'), ['/a', '/b', '/c', '/e']));
  set('/a', page('Tides', ARTICLE.map(para).join(''), ['/', '/d']));
  set('/b', page('Moorings', para('Visitor moorings are on the north wall; book ahead in summer.'), ['/']));
  set('/c', page('History', para('The harbour was built in 1820 for the herring fleet.'), ['/']));
  set('/d', page('Weather', para('The shipping forecast is read four times a day.'), ['/']));
  set('/e', page('Contact', para('The harbour master answers on channel 12.'), ['/']));
  const sitemap = () =>
    `<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${['/', '/a', '/b', '/c', '/d', '/e']
      .map((p) => `<url><loc>${origin}${p}</loc></url>`)
      .join('')}</urlset>`;
  let origin = '';
  const site = await serve((req, res) => {
    const path = req.url ?? '/';
    if (path === '/robots.txt') return res.writeHead(200, { 'content-type': 'text/plain' }).end(`User-agent: *\nAllow: /\nSitemap: ${origin}/sitemap.xml\n`);
    if (path === '/sitemap.xml') return res.writeHead(200, { 'content-type': 'application/xml' }).end(sitemap());
    const html = pages.get(path);
    if (!html) return res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>Not found</h1>');
    const etag = `"${createHash('sha256').update(html).digest('hex').slice(0, 16)}"`;
    if (req.headers['if-none-match'] === etag) return res.writeHead(304, { etag }).end();
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', etag }).end(html);
  });
  origin = site.origin;
  return {
    origin,
    change() {
      // Home: no link to /c any more, a new one to /d (and its text says so).
      set('/', page('Harbour guide', para('Everything about the harbour, its tides, its weather and its boats.'), ['/a', '/b', '/d', '/e']));
      // /a: one paragraph rewritten, one added; the title too.
      set(
        '/a',
        page(
          'Tides and currents',
          [ARTICLE[0]!, 'Spring tides come twice a month and run higher; neap tides run lower.', ARTICLE[2]!, 'Currents run fastest at mid-tide.']
            .map(para)
            .join(''),
          ['/', '/d'],
        ),
      );
      pages.delete('/b');
    },
    close: () => site.close(),
  };
}

/**
 * Crawls the site into `dataDir`, changes it, and crawls it again in a later second (a WACZ's
 * index times captures to the second: two captures of a URL in one second are one moment).
 */
export async function crawlTwice(site: ChangingSite, dataDir: string, seeds: string[] = [`${site.origin}/`]): Promise<void> {
  const options = { data: dataDir, allowPrivateNetwork: true, delayMs: 0, maxRps: 0, render: 'never' as const, env: {} };
  await crawl(seeds, options);
  site.change();
  await new Promise((resolve) => setTimeout(resolve, 1001 - (Date.now() % 1000)));
  await crawl(seeds, options);
}
