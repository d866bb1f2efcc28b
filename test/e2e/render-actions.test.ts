// Page actions and a user's session in a real crawl with Chromium: a list whose articles appear
// only after "Load more" is clicked three times and the page is scrolled to its end, a consent
// wall whose content comes only once it is accepted, and an account page that answers only the
// session cookie the user gave, which no other host receives and no WARC record holds in plain text.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { crawl } from '../../shared/library/crawl.js';
import { openStore } from '../../shared/library/store.js';
import { serve, tempDir } from '../../support/helpers.js';

const SECRET = 's3cret-session-value';
const html = (title: string, body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head><body>${body}</body></html>`;
const prose = (n: number) => Array.from({ length: 12 }, (_, i) => `Sentence ${i} of story ${n} tells of rivers, mills and the long winter.`).join(' ');
const links = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => `<li><a href="/article/${from + i}">Story ${from + i}</a></li>`).join('');

const ARTICLES = html(
  'Stories',
  `<h1>Stories</h1><p>${prose(0)}</p><ul id="list">${links(1, 2)}</ul><button id="more">Load more</button><div style="height:4000px"></div><div id="end"></div>
  <script>
    let page = 0;
    const more = (n) => fetch('/more?page=' + n).then((r) => r.text()).then((t) => document.getElementById('list').insertAdjacentHTML('beforeend', t));
    document.getElementById('more').addEventListener('click', () => { page++; more(page); if (page === 3) document.getElementById('more').remove(); });
    let tail = false;
    window.addEventListener('scroll', () => {
      if (page === 3 && !tail && window.innerHeight + window.scrollY >= document.body.scrollHeight - 10) { tail = true; more(4); }
    });
  </script>`,
);
const CONSENT = html(
  'Consent',
  `<div id="wall"><p>We use cookies.</p><button id="accept">Accept</button></div><main id="content"></main>
  <script>
    document.getElementById('accept').addEventListener('click', () => {
      document.getElementById('wall').remove();
      fetch('/consent-content').then((r) => r.text()).then((t) => { document.getElementById('content').innerHTML = t; });
    });
  </script>`,
);

function warcText(dir: string): string {
  const warcDir = join(dir, 'warc');
  return readdirSync(warcDir)
    .filter((f) => f.endsWith('.warc.gz') || f.endsWith('.warc'))
    .map((f) => {
      const bytes = readFileSync(join(warcDir, f));
      return f.endsWith('.gz') ? gunzipSync(bytes).toString('latin1') : bytes.toString('latin1');
    })
    .join('\n');
}

test('actions: load more three times and scroll, a consent wall, an account reached with the user’s cookie only', { timeout: 240_000 }, async () => {
  const seenCookies: Array<[string, string | undefined, string]> = [];
  const site = await serve((req: IncomingMessage, res: ServerResponse) => {
    const path = req.url ?? '/';
    seenCookies.push([path, req.headers.cookie, req.headers.host ?? '']);
    const send = (status: number, body: string, type = 'text/html') => res.writeHead(status, { 'content-type': type }).end(body);
    if (path === '/robots.txt') return send(200, 'User-agent: *\nAllow: /\n', 'text/plain');
    if (path === '/')
      return send(
        200,
        html('Home', `<h1>Home</h1><p>${prose(99)}</p><a href="/articles">Stories</a> <a href="/consent">News</a> <a href="/account">Account</a>`),
      );
    if (path === '/articles') return send(200, ARTICLES);
    const more = /^\/more\?page=(\d)$/.exec(path);
    if (more) {
      const n = Number(more[1]);
      return send(200, links(n * 2 + 1, n * 2 + 2));
    }
    if (path === '/consent') return send(200, CONSENT);
    if (path === '/consent-content') return send(200, `<h1>The news</h1><p>${prose(50)}</p><a href="/behind-the-wall">Behind the wall</a>`);
    if (path === '/account')
      return req.headers.cookie?.includes(`session=${SECRET}`)
        ? send(200, html('Account', `<h1>Welcome back, Ada</h1><p>${prose(70)}</p><a href="/orders">Your orders</a>`))
        : send(403, html('Log in', '<h1>Please log in</h1>'));
    if (/^\/(article\/\d+|behind-the-wall|orders)$/.test(path)) return send(200, html(path, `<h1>${path}</h1><p>${prose(path.length)}</p>`));
    send(404, 'no');
  });
  // Another host of the crawl (the same server under another name): it must never see the cookie.
  const other = site.origin.replace('127.0.0.1', 'localhost');
  const data = tempDir();
  const cookieFile = join(data.dir, '..', `${basename(data.dir)}-state.json`);
  writeFileSync(cookieFile, JSON.stringify({ cookies: [{ name: 'session', value: SECRET, domain: '127.0.0.1', path: '/' }], origins: [] }));
  try {
    await crawl([`${site.origin}/`, `${other}/orders`], {
      data: data.dir,
      allowPrivateNetwork: true,
      delayMs: 0,
      maxPages: 60,
      render: 'auto',
      actions: [
        {
          pattern: '*/articles',
          actions: [{ type: 'click', selector: '#more' }, { type: 'click', selector: '#more' }, { type: 'click', selector: '#more' }, { type: 'scroll' }],
        },
        {
          pattern: '*/consent',
          actions: [
            { type: 'click', selector: '#accept' },
            { type: 'click', selector: '#no-such-button' },
          ],
        },
      ],
      // The user's session, as a storage state file.
      cookies: cookieFile,
      env: {},
    });
    const fetched = new Set(seenCookies.map(([p]) => p));
    for (let n = 1; n <= 10; n++) assert.ok(fetched.has(`/article/${n}`), `story ${n}, shown after the clicks and the scroll, was crawled`);
    assert.ok(fetched.has('/behind-the-wall'), 'the link behind the consent wall was crawled');
    assert.ok(fetched.has('/orders'), 'the account page was reached with the session and its link followed');
    const store = openStore(data.dir);
    try {
      assert.match((await store.extraction(`${site.origin}/account`))!.markdown, /Welcome back, Ada/);
      assert.match((await store.extraction(`${site.origin}/consent`))!.markdown, /Sentence 3 of story 50/);
      assert.equal((await store.page(`${site.origin}/consent`))?.render?.reason, 'actions');
    } finally {
      await store.close();
    }
    // The cookie went to its host only (fetches and renders), and no record holds it.
    assert.ok(seenCookies.some(([, c, host]) => c?.includes(SECRET) && host.startsWith('127.0.0.1')));
    const elsewhere = seenCookies.filter(([, , host]) => host.startsWith('localhost'));
    assert.ok(elsewhere.length > 0, 'the other host was crawled');
    assert.deepEqual(
      elsewhere.filter(([, c]) => c !== undefined),
      [],
      'the other host got no cookie',
    );
    const warc = warcText(data.dir);
    assert.doesNotMatch(warc, new RegExp(SECRET), 'the session is not archived in plain text');
    assert.match(warc, /cookie: \[redacted: session\]/i, 'the request record says a session cookie was sent');
    // The metadata record of a rendered page lists what its actions did.
    assert.match(warc, /actions: \[\{"type":"click","ok":true/);
    assert.match(warc, /"type":"click","ok":false,"ms":\d+,"error":"no element matches #no-such-button"/);
  } finally {
    await site.close();
    data.cleanup();
    rmSync(cookieFile, { force: true });
  }
});
