// A rendered page's requests to its host keep the host's Crawl-delay: on a site asking for one
// second between requests, whose app pages load a script and a style sheet of their own (and an
// image, and the icon a newer Chromium asks for by itself), every request the crawl and its renders
// make comes at least a second after the answer before it, one at a time. Run with the bundled
// Chromium, and again with a system Chromium when the machine has one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { crawl } from '../../shared/library/crawl.js';
import { findBrowser, SYSTEM_BROWSERS } from '../../shared/render/browser-path.js';
import { serve, tempDir } from '../../support/helpers.js';

const page = (title: string, body: string) =>
  `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title><link rel="stylesheet" href="/style.css?${title.length}"></head><body>${body}</body></html>`;
const prose = (n: number) => Array.from({ length: 30 }, (_, i) => `Sentence ${i} of app ${n} is about rivers, gardens and the weather.`).join(' ');

async function politeCrawl(browser: string): Promise<void> {
  const asked: Array<{ path: string; start: number; end: number }> = [];
  let open = 0;
  let mostAtOnce = 0;
  const site = await serve((req, res) => {
    const path = req.url ?? '/';
    const entry = { path, start: performance.now(), end: Infinity };
    asked.push(entry);
    mostAtOnce = Math.max(mostAtOnce, ++open);
    res.on('close', () => {
      open--;
      entry.end = performance.now();
    });
    const send = (type: string, body: string) => res.writeHead(200, { 'content-type': type, 'cache-control': 'no-store' }).end(body);
    if (path === '/robots.txt') return send('text/plain', 'User-agent: *\nCrawl-delay: 1\n');
    const app = /^\/(?:app\/(\d+))?$/.exec(path);
    if (app) {
      const n = Number(app[1] ?? 0);
      return send('text/html', page(`App ${n}`, `<div id="root"></div><img src="/logo.png"><script src="/app.js?${n}"></script>`));
    }
    const script = /^\/app\.js\?(\d+)$/.exec(path);
    if (script) {
      const n = Number(script[1]);
      const next = n < 2 ? `<p><a href="/app/${n + 1}">App ${n + 1}</a></p>` : '';
      return send('text/javascript', `document.getElementById('root').innerHTML = '<h1>App ${n}</h1><p>${prose(n)}</p>${next}';`);
    }
    if (path.startsWith('/style.css')) return send('text/css', 'body { font-family: serif; }');
    res.writeHead(404).end();
  });
  const data = tempDir();
  process.env.CHROMIUM_PATH = browser;
  try {
    const summary = await crawl([`${site.origin}/`], {
      data: data.dir,
      allowPrivateNetwork: true,
      delayMs: 0,
      maxRps: 0,
      render: 'always',
      renderTimeoutMs: 30_000,
      maxPages: 10,
      env: {},
    });
    assert.equal(summary.pagesStored, 3, JSON.stringify(summary));
  } finally {
    delete process.env.CHROMIUM_PATH;
    await site.close();
    data.cleanup();
  }
  const paths = asked.map((a) => a.path);
  assert.equal(paths.filter((p) => p.startsWith('/app.js')).length, 3, `each app's script was fetched by its render: ${paths.join(' ')}`);
  assert.ok(!paths.some((p) => /favicon|logo/.test(p)), `no icon or image was asked for: ${paths.join(' ')}`);
  assert.equal(mostAtOnce, 1, 'one request at a time');
  asked.sort((a, b) => a.start - b.start);
  for (let i = 1; i < asked.length; i++) {
    const gap = asked[i]!.start - asked[i - 1]!.end;
    // A millisecond of timer slack: the host's own clock and the crawl's are the same process's.
    assert.ok(gap >= 999, `${asked[i]!.path} came ${gap.toFixed(0)} ms after ${asked[i - 1]!.path} was answered (Crawl-delay: 1)`);
  }
}

test('a rendered page keeps Crawl-delay for every request to its host (the bundled Chromium)', { timeout: 180_000 }, async () => {
  await politeCrawl((await findBrowser({}, [])).path);
});

const system = (SYSTEM_BROWSERS[process.platform] ?? []).find((p) => existsSync(p));
test(
  'a rendered page keeps Crawl-delay for every request to its host (a system Chromium)',
  { timeout: 180_000, skip: system ? false : 'no system Chromium on this machine (apt-get install chromium)' },
  async () => {
    await politeCrawl(system!);
  },
);
