// The renderer as the Render Lambda runs it: Chromium with Lambda's flags (--single-process
// --no-zygote), where a second browser context kills the browser. A host's pages share the one
// context; another host, or a crash, gets a fresh browser; the guard proxy, given at launch, still
// refuses what the page may not reach.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ChromiumRenderer } from '../../shared/render/chromium.js';
import { RenderError } from '../../shared/errors.js';
import { createLogger } from '../../shared/log/logger.js';
import { CRASH, startAppOrigins, type AppOrigins } from './app-origins.js';

let canary: Server;
let site: AppOrigins;
let renderer: ChromiumRenderer;
let guarded: ChromiumRenderer;
let canaryHits = 0;
const warnings: string[] = [];
let canaryPort = 0;

before(async () => {
  site = await startAppOrigins(2);
  canary = createServer((_req, res) => {
    canaryHits++;
    res.writeHead(200, { 'access-control-allow-origin': '*' }).end('canary');
  });
  canary.on('upgrade', (_req, socket) => {
    canaryHits++;
    socket.destroy();
  });
  await new Promise<void>((r) => canary.listen(0, '127.0.0.1', r));
  canaryPort = (canary.address() as AddressInfo).port;
  const options = {
    userAgent: 'trawl-test',
    concurrency: 4,
    timeoutMs: 15_000,
    settleMs: 1_000,
    maxRequests: 50,
    recycleAfter: 100,
    memoryMb: 128,
    singleProcess: true,
  };
  renderer = new ChromiumRenderer({ ...options, allowPrivateNetwork: true, logger: createLogger('warn', 'trawl', (l) => warnings.push(l), 'json') });
  // Every name is public here; only the page's loopback literals point at the canary.
  guarded = new ChromiumRenderer({ ...options, allowPrivateNetwork: false, resolver: async () => [{ address: '93.184.216.34', family: 4 }] });
});

after(async () => {
  await renderer.close();
  await guarded.close();
  await site.close();
  await new Promise<void>((r) => canary.close(() => r()));
});

const render = (i: number, path: string, html?: string) => site.render(renderer, i, path, html);

test("a host's pages share the browser's one context: its cookie is kept and its cached script not asked for again", async () => {
  const first = await render(0, '/a');
  const second = await render(0, '/b');
  assert.match(first.html, /<p>rendered <\/p>/);
  assert.match(second.html, /<p>rendered seen=\/a<\/p>/);
  assert.equal(site.scriptAsks(0), 1, site.asked.join(', '));
  assert.equal(renderer.stats.launches, 1);
  assert.equal(renderer.stats.crashes, 0);
});

test('another host gets a fresh browser: nothing of the first host is there, and pages render at once as many as asked', async () => {
  const pages = await Promise.all([render(1, '/a'), render(1, '/b'), render(0, '/c')]);
  assert.match(pages[0]!.html, /<p>rendered <\/p>/);
  assert.match(pages[2]!.html, /<p>rendered <\/p>/, 'the first host comes back to a fresh browser too');
  assert.deepEqual(
    site.cookies.filter((c) => c.startsWith('1 ')),
    ['1 '],
    'no cookie crossed hosts, and the second host shared its own browser',
  );
  assert.equal(renderer.stats.launches, 3);
  assert.equal(renderer.stats.crashes, 0);
});

test('a page that fails ends its browser, quietly (it was ended on purpose); the next page renders in a fresh one', async () => {
  const launches = renderer.stats.launches;
  // A 204 answers the navigation with no document: the render fails as a navigation error.
  await assert.rejects(
    renderer.render({ url: `${site.origins[0]}/empty`, document: { status: 204, headers: {}, body: Buffer.alloc(0) }, screenshot: false }),
    (err: unknown) => err instanceof RenderError && err.failure === 'navigation',
  );
  const next = await render(0, '/e');
  assert.match(next.html, /<p>rendered <\/p>/, 'a fresh browser: no cookie left');
  assert.equal(renderer.stats.launches, launches + 1);
  assert.deepEqual(
    warnings.filter((w) => w.includes('went away')),
    [],
  );
});

test('a page that crashes ends its browser; the next page renders in a fresh one', async () => {
  const launches = renderer.stats.launches;
  await assert.rejects(render(0, '/crash', CRASH), (err: unknown) => err instanceof RenderError && err.failure === 'crash');
  const next = await render(0, '/d');
  assert.match(next.html, /<p>rendered <\/p>/);
  assert.ok(renderer.stats.launches > launches);
});

test("the browser's own guard proxy refuses a WebSocket and a fetch to a loopback address", async () => {
  const html = `<!doctype html><html><body><div id="root"><p>public page</p></div><script>
    new WebSocket('ws://127.0.0.1:${canaryPort}/ws');
    fetch('http://127.0.0.1:${canaryPort}/x').catch(() => {});
  </script></body></html>`;
  const out = await guarded.render({
    url: 'http://public.example/page',
    document: { status: 200, headers: { 'content-type': 'text/html' }, body: Buffer.from(html) },
    screenshot: false,
  });
  await new Promise((r) => setTimeout(r, 300));
  assert.match(out.html, /public page/);
  assert.equal(canaryHits, 0);
  assert.ok(Object.values(out.blocked).reduce((a, b) => a + (b ?? 0), 0) >= 2, JSON.stringify(out.blocked));
});
