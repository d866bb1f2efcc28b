// Single-page apps: pages whose content and links exist only after their script runs. One app
// fetches its content with XHR, one never lets the network go idle, one reaches for a cloud
// metadata address, one exhausts its memory and crashes its tab, one hangs its renderer. The
// index and /plain are ordinary HTML that must never be rendered under --render auto.
import type { HostSpec, WebResponse } from './hosts.js';
import { htmlPage, prose } from './pages.js';

const html = (body: string): WebResponse => ({ status: 200, headers: { 'content-type': 'text/html; charset=utf-8' }, body });
// A static asset as sites serve them: cacheable for a while.
const js = (body: string): WebResponse => ({
  status: 200,
  headers: { 'content-type': 'application/javascript', 'cache-control': 'public, max-age=600' },
  body,
});
const json = (body: unknown): WebResponse => ({ status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
const notFound: WebResponse = { status: 404, headers: { 'content-type': 'text/html' }, body: 'not found' };

/** An app shell: an empty mount point, a framework marker, and the script that fills it. */
function shell(title: string, script: string): string {
  return `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head><body><div id="root"></div><noscript>You need to enable JavaScript to run this app.</noscript>${script}</body></html>`;
}

/** The client-side renderer every /spa/N page loads: text and links from data in the page. */
const APP_JS = `
const data = JSON.parse(document.getElementById('data').textContent);
const root = document.getElementById('root');
root.innerHTML = '<article><h1>' + data.title + '</h1><p>' + data.text + '</p>' +
  data.links.map((l) => '<p>Read on: <a href="' + l + '">' + l + '</a></p>').join('') + '</article>';
`;

function spaPage(n: number, total: number): string {
  const links = [`/rendered-only/${n}`, ...(n < total ? [`/spa/${n + 1}`] : [])];
  const data = JSON.stringify({ title: `App page ${n}`, text: prose(3000 + n, 150), links });
  return shell(`App ${n}`, `<script id="data" type="application/json">${data}</script><script src="/app.js"></script>`);
}

const XHR_PAGE = shell(
  'XHR app',
  `<script>fetch('/api/private').catch(() => {});
  fetch('/api/content').then((r) => r.json()).then((d) => {
    document.getElementById('root').innerHTML = '<h1>' + d.title + '</h1><p>' + d.text + '</p><a href="' + d.link + '">More</a>';
  });</script>`,
);

const NEVER_SETTLES = shell(
  'Polling app',
  `<script>document.getElementById('root').innerHTML = '<h1>Live ticker</h1><p>${prose(4001, 120)}</p><a href="/ticker-archive">Archive</a>';
  setInterval(() => fetch('/api/poll?' + Date.now()), 100);</script>`,
);

const PRIVATE_PROBE = shell(
  'Probe app',
  `<script>fetch('http://169.254.169.254/latest/meta-data/').catch(() => {});
  fetch('http://metadata.google.internal/computeMetadata/v1/').catch(() => {});
  document.getElementById('root').innerHTML = '<h1>Probe</h1><p>${prose(4002, 120)}</p>';</script>`,
);

/** Allocates until V8's heap limit kills the tab. */
const CRASH = shell('Crashing app', `<script>const hoard = []; for (;;) hoard.push(new Array(1e6).fill(Math.random()));</script>`);

/** Blocks the renderer's main thread for good once the document is parsed. */
const HANG = shell('Hanging app', `<script>document.addEventListener('DOMContentLoaded', () => { for (;;) {} });</script>`);

/** The `apps` host: `spaPages` chained app pages (each also links a page only its rendered DOM shows). */
export function appsHost(spaPages: number): HostSpec {
  return {
    name: 'apps',
    disallowed: (t) => t.startsWith('/api/private'),
    isTrap: () => false,
    handle(req) {
      const { path } = req;
      if (path === '/robots.txt') return { status: 200, headers: { 'content-type': 'text/plain' }, body: 'User-agent: *\nDisallow: /api/private\n' };
      if (path === '/')
        return html(
          htmlPage(
            'Apps',
            `<h1>Apps</h1><p>${prose(4000, 80)}</p><ul>${['/spa/1', '/xhr', '/never-settles', '/probe', '/crash', '/hang', '/plain']
              .map((p) => `<li><a href="${p}">${p}</a></li>`)
              .join('')}</ul>`,
          ),
        );
      if (path === '/plain') return html(htmlPage('Plain', `<h1>Plain page</h1><p>${prose(4003, 200)}</p><script>console.log('analytics')</script>`));
      if (path === '/app.js') return js(APP_JS);
      const spa = /^\/spa\/(\d+)$/.exec(path);
      if (spa && Number(spa[1]) >= 1 && Number(spa[1]) <= spaPages) return html(spaPage(Number(spa[1]), spaPages));
      const only = /^\/rendered-only\/(\d+)$/.exec(path);
      if (only) return html(htmlPage(`Rendered-only ${only[1]}`, `<p>${prose(5000 + Number(only[1]), 60)}</p>`));
      if (path === '/xhr') return html(XHR_PAGE);
      if (path === '/api/content') return json({ title: 'Loaded by XHR', text: prose(4004, 150), link: '/from-xhr' });
      if (path === '/api/private') return json({ secret: true });
      if (path === '/from-xhr' || path === '/ticker-archive') return html(htmlPage(path, `<p>${prose(path.length + 4100, 60)}</p>`));
      if (path === '/never-settles') return html(NEVER_SETTLES);
      if (path === '/api/poll') return json({ tick: Date.now() });
      if (path === '/probe') return html(PRIVATE_PROBE);
      if (path === '/crash') return html(CRASH);
      if (path === '/hang') return html(HANG);
      return notFound;
    },
  };
}
