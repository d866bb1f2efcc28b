import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ChromiumRenderer } from '../../shared/render/chromium.js';
import type { RenderOutput } from '../../shared/render/renderer.js';

/** An app shell whose script fills `#root` with the cookie it finds, then sets one. */
export const SHELL = `<!doctype html><html><head><title>app</title></head><body><div id="root"></div><script src="/app.js"></script></body></html>`;
const APP_JS = `document.getElementById('root').innerHTML = '<p>rendered ' + document.cookie + '</p>'; document.cookie = 'seen=' + location.pathname;`;
/** A page that takes memory until its renderer crashes. */
export const CRASH = `<!doctype html><html><body><div id="root"></div><script>const hoard = []; for (;;) hoard.push(new Array(1e6).fill(1));</script></body></html>`;

/** Origins of one site (same address, one port each), each serving a cacheable script that sets a cookie. */
export interface AppOrigins {
  origins: string[];
  /** `<origin index> <path>` of every request, in order. */
  asked: string[];
  /** `<origin index> <Cookie header>` of every script request. */
  cookies: string[];
  /** How many times origin `i` was asked for its script. */
  scriptAsks(i: number): number;
  /** Renders `path` of origin `i` with `renderer`, the document served from memory. */
  render(renderer: ChromiumRenderer, i: number, path: string, html?: string): Promise<RenderOutput>;
  close(): Promise<void>;
}

export async function startAppOrigins(count: number): Promise<AppOrigins> {
  const servers: Server[] = [];
  const origins: string[] = [];
  const asked: string[] = [];
  const cookies: string[] = [];
  for (let i = 0; i < count; i++) {
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
  return {
    origins,
    asked,
    cookies,
    scriptAsks: (i) => asked.filter((a) => a === `${i} /app.js`).length,
    render: (renderer, i, path, html = SHELL) =>
      renderer.render({
        url: `${origins[i]}${path}`,
        document: { status: 200, headers: { 'content-type': 'text/html' }, body: Buffer.from(html) },
        screenshot: false,
      }),
    close: async () => {
      for (const s of servers) await new Promise<void>((r) => s.close(() => r()));
    },
  };
}
