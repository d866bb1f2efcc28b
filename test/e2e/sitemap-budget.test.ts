// Sitemaps count against the crawl. An endless chain of sitemap indexes and an index of
// 10,000 child sitemaps both end within the run's sitemap budget, and a gzipped sitemap that
// inflates past its cap still yields the URLs read before the cut.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { crawl } from '../../shared/index.js';
import { gunzipCapped, parseSitemap } from '../../shared/extract/sitemap.js';
import { tempDir } from '../../support/helpers.js';

const local = { allowPrivateNetwork: true, delayMs: 0, maxRps: 0, env: {} };
const index = (locs: string[]) =>
  `<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${locs.map((l) => `<sitemap><loc>${l}</loc></sitemap>`).join('')}</sitemapindex>`;
const urlset = (locs: string[]) =>
  `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${locs.map((l) => `<url><loc>${l}</loc></url>`).join('')}</urlset>`;

/** A site whose robots.txt names one sitemap; `/chain/N` is an index of `/chain/N+1` for ever, `/wide` an index of 10,000 sitemaps. */
async function withSitemapSite(sitemap: string, run: (origin: string, requests: string[]) => Promise<void>): Promise<void> {
  const requests: string[] = [];
  let origin = '';
  const server = createServer((req, res) => {
    const path = req.url ?? '/';
    requests.push(path);
    const xml = (body: string) => res.writeHead(200, { 'content-type': 'application/xml' }).end(body);
    if (path === '/robots.txt') return res.writeHead(200, { 'content-type': 'text/plain' }).end(`User-agent: *\nAllow: /\nSitemap: ${origin}${sitemap}\n`);
    const chain = /^\/chain\/(\d+)\.xml$/.exec(path);
    if (chain) return xml(index([`${origin}/chain/${Number(chain[1]) + 1}.xml`]));
    if (path === '/wide.xml') return xml(index(Array.from({ length: 10_000 }, (_, i) => `${origin}/child/${i}.xml`)));
    const child = /^\/child\/(\d+)\.xml$/.exec(path);
    if (child) return xml(urlset([`${origin}/page/${child[1]}`, `${origin}/page/${child[1]}b`]));
    return res
      .writeHead(200, { 'content-type': 'text/html' })
      .end(`<html><head><title>${path}</title></head><body><p>Page ${path} with some text.</p></body></html>`);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    await run(origin, requests);
  } finally {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  }
}

test('an endless chain of sitemap indexes ends at the sitemap budget', { timeout: 120_000 }, async () => {
  await withSitemapSite('/chain/0.xml', async (origin, requests) => {
    const summary = await crawl([`${origin}/`], { ...local, data: tempDir().dir, maxPages: 10, maxDepth: 0, maxSitemaps: 30 });
    assert.equal(summary.status, 'finished');
    const sitemaps = requests.filter((r) => r.startsWith('/chain/')).length;
    assert.ok(sitemaps <= 30, `${sitemaps} sitemap requests`);
    // Indexes do not nest: with any budget, the chain ends at the index found in an index (the cloud's bound too).
    assert.equal(sitemaps, 2);
  });
});

test('an index of 10,000 child sitemaps fetches no more than the budget', { timeout: 120_000 }, async () => {
  await withSitemapSite('/wide.xml', async (origin, requests) => {
    const summary = await crawl([`${origin}/`], { ...local, data: tempDir().dir, maxPages: 20, maxSitemaps: 50 });
    assert.equal(summary.status, 'finished');
    assert.ok(requests.length <= 50 + 20 + 5, `${requests.length} requests`);
  });
});

test('a gzipped sitemap that inflates past its cap yields the entries read before the cut', async () => {
  const locs = Array.from({ length: 5_000 }, (_, i) => `https://example.com/page/${i}`);
  const { data, cut } = await gunzipCapped(gzipSync(urlset(locs)), 64 * 1024);
  assert.equal(cut, true);
  assert.equal(data.length, 64 * 1024);
  const entries = parseSitemap(data.toString('utf8')).entries;
  assert.ok(entries.length > 1_000 && entries.length < 5_000, `${entries.length} entries`);
  assert.equal(entries[0]!.loc, 'https://example.com/page/0');
  const whole = await gunzipCapped(gzipSync('plain'), 1024);
  assert.deepEqual([whole.data.toString(), whole.cut], ['plain', false]);
});
