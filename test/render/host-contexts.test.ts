// Issue 37: a host's pages share one browser context, so a site's second rendered page takes its
// scripts from the context's cache instead of asking the site again; another host never shares
// it (not its cache, not its cookies), and a context that met a failure is not used again.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ChromiumRenderer } from '../../shared/render/chromium.js';

/** Two origins of one site (same address, two ports), each serving a cacheable script that sets a cookie. */
const servers: Server[] = [];
const origins: string[] = [];
const asked: string[] = [];
const cookies: string[] = [];
let renderer: ChromiumRenderer;

const SHELL = `<!doctype html><html><head><title>app</title></head><body><div id="root"></div><script src="/app.js"></script></body></html>`;
const APP_JS = `document.getElementById('root').innerHTML = '<p>rendered ' + document.cookie + '</p>'; document.cookie = 'seen=' + location.pathname;`;

before(async () => {
  for (let i = 0; i < 2; i++) {
    const server = createServer((req, res) => {
      asked.push(`${i} ${req.url}`);
      if (req.url === '/app.js') {
        cookies.push(`${i} ${req.headers.cookie ?? ''}`);
        res.writeHead(200, { 'content-type': 'application/javascript', 'cache-control': 'public, max-age=3600' }).end(APP_JS);
      } else res.writeHead(404).end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    servers.push(server);
    origins.push(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  }
  renderer = new ChromiumRenderer({
    userAgent: 'trawl-test',
    concurrency: 1,
    timeoutMs: 15_000,
    settleMs: 1_000,
    maxRequests: 50,
    recycleAfter: 100,
    memoryMb: 128,
    allowPrivateNetwork: true,
  });
});

after(async () => {
  await renderer.close();
  for (const s of servers) await new Promise<void>((r) => s.close(() => r()));
});

const render = (origin: string, path: string, html = SHELL) =>
  renderer.render({ url: `${origin}${path}`, document: { status: 200, headers: { 'content-type': 'text/html' }, body: Buffer.from(html) }, screenshot: false });
const scriptAsks = (i: number) => asked.filter((a) => a === `${i} /app.js`).length;

test("a host's second page reuses its context: the cached script is not asked for again, and the page still renders", async () => {
  const first = await render(origins[0]!, '/a');
  const second = await render(origins[0]!, '/b');
  assert.match(first.html, /<p>rendered <\/p>/);
  // The first page's cookie is there: the same context, as a visitor's browser would have it.
  assert.match(second.html, /<p>rendered seen=\/a<\/p>/);
  assert.equal(scriptAsks(0), 1, asked.join(', '));
});

test('another host of the same site gets a context of its own: its cache and cookies are not shared', async () => {
  const other = await render(origins[1]!, '/a');
  assert.match(other.html, /<p>rendered <\/p>/);
  assert.equal(scriptAsks(1), 1);
  assert.deepEqual(
    cookies.filter((c) => c.startsWith('1 ')),
    ['1 '],
    'no cookie of the first host went to the second',
  );
});

test("a context where a page crashed is closed: the host's next page starts from a fresh one", async () => {
  const before = scriptAsks(0);
  const crash = `<!doctype html><html><body><div id="root"></div><script>const hoard = []; for (;;) hoard.push(new Array(1e6).fill(1));</script></body></html>`;
  await assert.rejects(render(origins[0]!, '/crash', crash), /crash/);
  const next = await render(origins[0]!, '/c');
  assert.match(next.html, /<p>rendered <\/p>/, 'no cookie left from the old context');
  assert.equal(scriptAsks(0), before + 1, 'the fresh context asked for the script again');
});
