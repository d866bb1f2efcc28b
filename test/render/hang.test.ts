// A page whose script never lets go of its renderer is a hang as soon as the renderer stops
// answering (UNRESPONSIVE_MS), not at the render's cap: the browser is replaced, the page tried once
// more the same way, and the renderer serves the next page.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { ChromiumRenderer, UNRESPONSIVE_MS } from '../../shared/render/chromium.js';
import { RenderError } from '../../shared/errors.js';
import { serve } from '../../support/helpers.js';

const page = (script: string) => `<html><head><title>App</title></head><body><div id="root"></div><script>${script}</script></body></html>`;
const HANG = page(`document.addEventListener('DOMContentLoaded', () => { for (;;) {} });`);
const APP = page(`document.getElementById('root').innerHTML = '<h1>Loaded</h1><p>By its script.</p>';`);

const renderer = new ChromiumRenderer({
  userAgent: 'trawl-test',
  concurrency: 1,
  // Far past the watch: a hang seen at the cap would say so in its message.
  timeoutMs: 60_000,
  settleMs: 5_000,
  maxRequests: 50,
  recycleAfter: 100,
  memoryMb: 128,
  allowPrivateNetwork: true,
});
after(() => renderer.close());

test(
  'a script that holds the renderer ends the render as a hang when the renderer stops answering, and the next page renders',
  { timeout: 120_000 },
  async () => {
    const site = await serve((req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(req.url === '/hang' ? HANG : APP));
    try {
      const doc = (html: string) => ({ status: 200, headers: { 'content-type': 'text/html' }, body: Buffer.from(html) });
      const hangsBefore = renderer.stats.hangs;
      await assert.rejects(
        renderer.render({ url: `${site.origin}/hang`, document: doc(HANG), screenshot: false }),
        (err: unknown) =>
          err instanceof RenderError && err.failure === 'hang' && new RegExp(`held its renderer for ${UNRESPONSIVE_MS / 1000} s`).test(err.message),
      );
      assert.ok(renderer.stats.hangs > hangsBefore, 'counted as a hang, its browser replaced');
      const next = await renderer.render({ url: `${site.origin}/app`, document: doc(APP), screenshot: false });
      assert.match(next.html, /<h1>Loaded<\/h1>/);
    } finally {
      await site.close();
    }
  },
);
