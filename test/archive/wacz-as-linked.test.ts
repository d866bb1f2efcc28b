// Links are fetched and archived as written. A link whose query parameters are not in sorted order
// is asked of the server in its own order, archived under that URL, and ReplayWeb.page's engine
// (wabac.js in headless Chromium) replays it from the WACZ for the link as written; a file type
// trawl does not keep replays with its bytes, never as an empty 200.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { once } from 'node:events';
import { crawl, openStore } from '../../shared/index.js';
import { serve, tempDir } from '../../support/helpers.js';
import { replayHost } from './replay-host.js';
import { launchUiBrowser } from '../api/ui-browser.js';

const IMAGE = Buffer.alloc(3000, 7);

test('links with unsorted queries and a skipped file type replay in wabac as written', { timeout: 180_000 }, async () => {
  const asked: string[] = [];
  const site = await serve((req, res) => {
    asked.push(req.url ?? '');
    const html = (title: string, body: string) =>
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html><title>${title}</title>${body}`);
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname === '/')
      return html(
        'Harbour',
        '<p>The harbour index.</p><a href="/item?z=9&a=1">Moorings</a> <a href="/item?a=1&z=9">Moorings again</a> <a href="/list?page=2&sort=date">Older</a> <a href="/chart.bin">Chart</a>',
      );
    if (url.pathname === '/item') return html('Moorings', `<p>Visitor moorings are on the north wall (asked as ${url.search}).</p>`);
    if (url.pathname === '/list') return html('Older', '<p>Older notices from the harbour office.</p>');
    if (url.pathname === '/chart.bin') return res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(IMAGE);
    res.writeHead(404, { 'content-type': 'text/plain' }).end('no');
  });
  const data = tempDir();
  const wacz = join(data.dir, 'crawl.wacz');
  const origin = site.origin;
  try {
    await crawl([`${origin}/`], { data: data.dir, allowPrivateNetwork: true, delayMs: 0, maxRps: 0, render: 'never' as const, env: {} });
    // Asked once, in the order the first link wrote it; the same URL in sorted order is "seen already".
    assert.deepEqual(
      asked.filter((u) => u.startsWith('/item')),
      ['/item?z=9&a=1'],
    );
    assert.ok(asked.includes('/list?page=2&sort=date'));
    const store = openStore(data.dir);
    try {
      // The store finds the capture by either order.
      const item = await store.replay(`${origin}/item?a=1&z=9`);
      assert.match(String(item.body), /asked as \?z=9&a=1/);
      const out = createWriteStream(wacz);
      await store.wacz(out);
      if (!out.closed) await once(out, 'close');
    } finally {
      await store.close();
    }
  } finally {
    await site.close();
  }

  const host = await replayHost({ '/crawl.wacz': wacz });
  const { browser, close } = await launchUiBrowser();
  try {
    const page = await browser.newPage();
    await page.goto(`${host.origin}/index.html`);
    assert.equal(await page.evaluate(`window.loadWacz('${host.origin}/crawl.wacz')`), 'trawl');
    const text = (path: string) => page.evaluate(`window.replayText('/w/trawl/mp_/${origin}${path}')`) as Promise<string>;
    assert.match(await text('/item?z=9&a=1'), /Visitor moorings are on the north wall \(asked as \?z=9&a=1\)/);
    assert.match(await text('/list?page=2&sort=date'), /Older notices/);
    const bytes = (await page.evaluate(`window.replayBytes('/w/trawl/id_/${origin}/chart.bin')`)) as { status: number; length: number; type: string };
    assert.deepEqual(bytes, { status: 200, length: IMAGE.length, type: 'application/octet-stream' });
  } finally {
    await close();
    await host.close();
    data.cleanup();
  }
});
