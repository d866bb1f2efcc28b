// A host's pages share one browser context, so a site's second rendered page takes its
// scripts from the context's cache instead of asking the site again; another host never shares
// it (not its cache, not its cookies), and a context that met a failure is not used again.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ChromiumRenderer } from '../../shared/render/chromium.js';
import { RenderError } from '../../shared/errors.js';
import { processAlive } from '../../shared/util/process-alive.js';
import { waitFor } from './processes.js';
import { CRASH, startAppOrigins, type AppOrigins } from './app-origins.js';

let site: AppOrigins;
let renderer: ChromiumRenderer;

before(async () => {
  site = await startAppOrigins(2);
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
  await site.close();
});

const render = (i: number, path: string, html?: string) => site.render(renderer, i, path, html);
const scriptAsks = (i: number) => site.scriptAsks(i);

test("a host's second page reuses its context: the cached script is not asked for again, and the page still renders", async () => {
  const first = await render(0, '/a');
  const second = await render(0, '/b');
  assert.match(first.html, /<p>rendered <\/p>/);
  // The first page's cookie is there: the same context, as a visitor's browser would have it.
  assert.match(second.html, /<p>rendered seen=\/a<\/p>/);
  assert.equal(scriptAsks(0), 1, site.asked.join(', '));
});

test('another host of the same site gets a context of its own: its cache and cookies are not shared', async () => {
  const other = await render(1, '/a');
  assert.match(other.html, /<p>rendered <\/p>/);
  assert.equal(scriptAsks(1), 1);
  assert.deepEqual(
    site.cookies.filter((c) => c.startsWith('1 ')),
    ['1 '],
    'no cookie of the first host went to the second',
  );
});

test("a context where a page crashed is closed: the host's next page starts from a fresh one, its script from the renderer's memory", async () => {
  const before = scriptAsks(0);
  await assert.rejects(render(0, '/crash', CRASH), (err: unknown) => err instanceof RenderError && err.failure === 'crash');
  const next = await render(0, '/c');
  assert.match(next.html, /<p>rendered <\/p>/, 'no cookie left from the old context');
  // The fresh context's cache is empty, but the crawl has the script already: the site is not asked again.
  assert.equal(scriptAsks(0), before, site.asked.join(', '));
});

test('the renderer finds its browser by pid (Playwright does not tell it): the process it started with its own profile', async () => {
  await render(0, '/d');
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
