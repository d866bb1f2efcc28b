// Issue 37: a host's pages share one browser context, so a site's second rendered page takes its
// scripts from the context's cache instead of asking the site again; another host never shares
// it (not its cache, not its cookies), and a context that met a failure is not used again.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ChromiumRenderer } from '../../shared/render/chromium.js';
import { RenderError } from '../../shared/errors.js';
import { processAlive } from '../../shared/util/process-alive.js';
import { waitFor } from './processes.js';

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
  await assert.rejects(render(origins[0]!, '/crash', crash), (err: unknown) => err instanceof RenderError && err.failure === 'crash');
  const next = await render(origins[0]!, '/c');
  assert.match(next.html, /<p>rendered <\/p>/, 'no cookie left from the old context');
  assert.equal(scriptAsks(0), before + 1, 'the fresh context asked for the script again');
});

test('the renderer finds its browser by pid (Playwright does not tell it): the process it started with its own profile', async () => {
  await render(origins[0]!, '/d');
  const pids = renderer.pids();
  assert.equal(pids.length, 1);
  const args = readFileSync(`/proc/${pids[0]}/cmdline`, 'utf8').split('\0');
  assert.ok(args.includes('--remote-debugging-pipe'), 'the browser itself, not one of its children');
  assert.ok(args.some((a) => a.startsWith(`--user-data-dir=${join(tmpdir(), `trawl-chrome-${process.pid}-`)}`)));
});

test('a process that exits without closing the renderer takes its browser and profile with it', { timeout: 120_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'trawl-exit-test-'));
  try {
    const script = join(dir, 'exit.mts');
    writeFileSync(
      script,
      `import { ChromiumRenderer } from ${JSON.stringify(pathToFileURL(join(import.meta.dirname, '../../shared/render/chromium.ts')).href)};
const r = new ChromiumRenderer({ userAgent: 't', concurrency: 1, timeoutMs: 15000, settleMs: 500, maxRequests: 5, recycleAfter: 10, memoryMb: 128, allowPrivateNetwork: true });
await r.render({ url: 'http://127.0.0.1:9/x', document: { status: 200, headers: { 'content-type': 'text/html' }, body: Buffer.from('<p>x</p>') }, screenshot: false });
console.log(JSON.stringify({ pids: r.pids(), pid: process.pid }));
process.exit(0);
`,
    );
    const child = spawnSync(process.execPath, ['--import', 'tsx', script], { encoding: 'utf8', timeout: 100_000 });
    assert.equal(child.status, 0, child.stderr);
    const { pids, pid } = JSON.parse(child.stdout.trim().split('\n').pop()!) as { pids: number[]; pid: number };
    assert.equal(pids.length, 1);
    assert.ok(await waitFor(() => !processAlive(pids[0]!), 10_000), 'the browser is gone');
    assert.deepEqual(
      readdirSync(tmpdir()).filter((n) => n.startsWith(`trawl-chrome-${pid}-`)),
      [],
      'its profile is gone',
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
