// A page budget goes to the seed's own links before deep junk. An index lists 60
// articles; every article links to the same 30 addresses that answer 404 (the navigation of the
// site it came from) and to 5 of its own. Under a budget of 70 pages, at least 95 % of the
// articles are stored: popularity at depth 2 no longer outranks depth 1.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { crawl } from '../../shared/index.js';
import { tempDir } from '../../support/helpers.js';

const ARTICLES = 60;
const SHARED = Array.from({ length: 30 }, (_, i) => `/news/section-${i}`);

test('under a page budget, the index pages come before the 404s every page links to', { timeout: 120_000 }, async () => {
  const served: string[] = [];
  const server = createServer((req, res) => {
    const path = req.url ?? '/';
    served.push(path);
    const html = (body: string) =>
      res.writeHead(200, { 'content-type': 'text/html' }).end(`<html><head><title>${path}</title></head><body>${body}</body></html>`);
    if (path === '/robots.txt') return res.writeHead(404).end();
    if (path === '/') return html(`<ul>${Array.from({ length: ARTICLES }, (_, i) => `<li><a href="/story/${i}">Story ${i}</a></li>`).join('')}</ul>`);
    const story = /^\/story\/(\d+)$/.exec(path);
    if (story) {
      const links = [...SHARED, ...Array.from({ length: 5 }, (_, k) => `/story/${story[1]}/tag-${k}`)];
      return html(`<p>The text of story ${story[1]}, long enough to be an article of its own.</p>${links.map((l) => `<a href="${l}">${l}</a>`).join(' ')}`);
    }
    res.writeHead(404, { 'content-type': 'text/html' }).end('<p>not here</p>');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const data = tempDir();
  try {
    await crawl([`${origin}/`], { data: data.dir, env: {}, allowPrivateNetwork: true, delayMs: 0, maxRps: 0, maxPages: 70 });
    const stories = new Set(served.filter((p) => /^\/story\/\d+$/.test(p)));
    assert.ok(
      stories.size >= Math.ceil(ARTICLES * 0.95),
      `${stories.size} of ${ARTICLES} articles fetched; ${served.filter((p) => p.startsWith('/news/')).length} requests went to the shared 404s`,
    );
  } finally {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
    data.cleanup();
  }
});
