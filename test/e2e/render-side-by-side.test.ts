// Pages of one host render side by side while the host is asked one thing at a time: each app
// page loads two scripts of its own that answer slowly (no cache), so a render that let its
// requests out as the page made them would ask the host for both at once, and renders side by
// side would overlap their requests. A page whose script hangs renders beside the app pages, so it
// does not hold them up: app renders end while the hang is under way.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { crawl } from '../../shared/library/crawl.js';
import { serve, tempDir } from '../../support/helpers.js';

const APPS = 12;
const SCRIPT_MS = 40;
const page = (title: string, body: string) => `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head><body>${body}</body></html>`;
const prose = (n: number) => Array.from({ length: 30 }, (_, i) => `Sentence ${i} of page ${n} is about rivers, gardens and the weather.`).join(' ');

test('a host renders its pages side by side, one request to it at a time, and a hanging page holds up none', { timeout: 240_000 }, async () => {
  let open = 0;
  let mostAtOnce = 0;
  const asked: string[] = [];
  const answer = (res: ServerResponse, type: string, body: string, delayMs = 0) => {
    setTimeout(() => {
      res.writeHead(200, { 'content-type': type, 'cache-control': 'no-store' });
      res.end(body);
    }, delayMs);
  };
  const site = await serve((req, res) => {
    const path = req.url ?? '/';
    asked.push(path);
    open++;
    mostAtOnce = Math.max(mostAtOnce, open);
    res.on('close', () => open--);
    if (path === '/robots.txt') return answer(res, 'text/plain', 'User-agent: *\nAllow: /\n');
    if (path === '/')
      return answer(
        res,
        'text/html',
        page(
          'Apps',
          `<h1>Apps</h1><p>${prose(0)}</p>${['/hang', ...Array.from({ length: APPS }, (_, i) => `/app/${i + 1}`)].map((l) => `<p><a href="${l}">${l}</a></p>`).join('')}`,
        ),
      );
    if (path === '/hang')
      return answer(
        res,
        'text/html',
        page('Hang', `<div id="root"></div><script>document.addEventListener('DOMContentLoaded', () => { for (;;) {} });</script>`),
      );
    let m = /^\/app\/(\d+)$/.exec(path);
    if (m)
      return answer(
        res,
        'text/html',
        page(`App ${m[1]}`, `<div id="root"></div><script src="/one.js?${m[1]}"></script><script src="/two.js?${m[1]}"></script>`),
      );
    m = /^\/(one|two)\.js\?(\d+)$/.exec(path);
    if (m) {
      const n = m[2];
      const script =
        m[1] === 'one'
          ? `document.getElementById('root').innerHTML = '<h1>App ${n}</h1><p>${prose(Number(n))}</p>';`
          : `document.getElementById('root').insertAdjacentHTML('beforeend', '<p><a href="/revealed/${n}">More of app ${n}</a></p>');`;
      return answer(res, 'text/javascript', script, SCRIPT_MS);
    }
    if (path.startsWith('/revealed/')) return answer(res, 'text/html', page(path, `<p>${prose(path.length)}</p>`));
    res.writeHead(404).end();
  });
  const data = tempDir();
  const renders: Array<{ path: string; ok: boolean; end: number; ms: number }> = [];
  try {
    await crawl([`${site.origin}/`], {
      data: data.dir,
      allowPrivateNetwork: true,
      delayMs: 0,
      render: 'auto',
      renderConcurrency: 4,
      rendersPerHost: 4,
      renderTimeoutMs: 30_000,
      maxPages: 100,
      env: {},
      onEvent: (e) => {
        if (e.type === 'render') renders.push({ path: new URL(e.url).pathname, ok: e.ok, end: performance.now(), ms: e.ms });
      },
    });
  } finally {
    await site.close();
    data.cleanup();
  }
  const revealed = new Set(asked.filter((p) => p.startsWith('/revealed/')));
  assert.equal(revealed.size, APPS, `every link a script revealed is crawled: ${[...revealed].join(' ')}`);
  assert.equal(mostAtOnce, 1, 'the host was asked one thing at a time, the renders’ scripts included');
  assert.equal(asked.filter((p) => /^\/(one|two)\.js/.test(p)).length, 2 * APPS, 'each app page asked for its two scripts');
  const hang = renders.find((r) => r.path === '/hang');
  assert.ok(hang && !hang.ok, `the hanging page's render failed: ${JSON.stringify(hang)}`);
  const beside = renders.filter((r) => r.ok && r.path.startsWith('/app/') && r.end > hang.end - hang.ms && r.end < hang.end);
  assert.ok(beside.length >= 2, `app pages rendered while the hang was under way: ${beside.length} of ${APPS} (${JSON.stringify(renders)})`);
});
