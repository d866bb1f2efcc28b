// A generated web of any size, for the scale test and the memory bench: `hosts` hosts sharing
// `pages` pages. Each page links to its next pages in a tree on its own host (so every page is
// reachable well within the default depth), to two pages of other hosts, and carries some prose.
// Pages are made on request from their number (nothing is held), and every request is counted
// per path, so a test can tell each page was fetched exactly once.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { prose } from './pages.js';
import { closeServers } from './server.js';

export interface GeneratedWeb {
  /** Front pages of every host. */
  seeds(): string[];
  /** Pages the web holds. */
  readonly pages: number;
  /** Requests served, by host index and path. */
  readonly hits: Map<string, number>;
  requests(): number;
  close(): Promise<void>;
}

/** Children of page k in its host's tree (pages are numbered from 0 within a host). */
const FANOUT = 6;

/**
 * `growing`: page k links to its children in a tree of fan-out 6 and to a far page of two other
 * hosts, so the frontier holds most of the web soon after the start. `steady`: page k links to its
 * next and previous pages and to the front pages of its own and two other hosts: each page adds
 * one URL, so the frontier stays at about one URL a host however long the crawl runs while the
 * URLs seen grow with it (page k is at depth k: crawl with a --max-depth of the pages per host).
 */
export type FrontierShape = 'growing' | 'steady';

function page(host: number, k: number, perHost: number, hosts: number, origins: string[], shape: FrontierShape): string {
  const links: string[] = [];
  const own = shape === 'growing' ? range(FANOUT * k + 1, FANOUT * k + FANOUT) : [k + 1, k - 1];
  for (const c of own) if (c > 0 && c < perHost) links.push(`<li><a href="/p/${c}">Page ${c} of host ${host}</a></li>`);
  for (const other of [(host + 1) % hosts, (host + 7) % hosts]) {
    const path = shape === 'growing' ? `/p/${((k * 31 + 7) % (perHost - 1)) + 1}` : '/';
    if (other !== host) links.push(`<li><a href="${origins[other]}${path}">A page of host ${other}</a></li>`);
  }
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Host ${host} page ${k}</title></head><body><nav><a href="/">Home</a></nav><main><article><h1>Page ${k} of host ${host}</h1><p>${prose(host * 1_000_003 + k, 90)}</p><p>${prose(host * 7919 + k * 13, 60)}</p><ul>${links.join('')}</ul></article></main></body></html>`;
}

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from + 1 }, (_, i) => from + i);
}

/** Starts `hosts` servers on loopback sharing `pages` pages (each host `pages / hosts`). */
export async function startGeneratedWeb(options: { hosts: number; pages: number; frontier?: FrontierShape }): Promise<GeneratedWeb> {
  const { hosts, frontier = 'growing' } = options;
  const perHost = Math.ceil(options.pages / hosts);
  const origins: string[] = [];
  const servers: Server[] = [];
  const hits = new Map<string, number>();
  let requests = 0;
  for (let h = 0; h < hosts; h++) {
    const server = createServer({ keepAliveTimeout: 5000 }, (req, res) => {
      requests++;
      const path = req.url ?? '/';
      hits.set(`${h}${path}`, (hits.get(`${h}${path}`) ?? 0) + 1);
      if (path === '/robots.txt') return void res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nAllow: /\n');
      const k = path === '/' ? 0 : Number(/^\/p\/(\d+)$/.exec(path)?.[1] ?? -1);
      if (!(k >= 0 && k < perHost)) return void res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>Not found</h1>');
      // The front page is page 0: its own address is the host's root.
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page(h, k, perHost, hosts, origins, frontier));
    });
    servers.push(server);
    // Each host on its own loopback address where the system has them (Linux), else its own port.
    const ip = process.platform === 'linux' ? `127.0.1.${h + 1}` : '127.0.0.1';
    await new Promise<void>((resolve) => server.listen(0, ip, resolve));
    origins.push(`http://${ip}:${(server.address() as AddressInfo).port}`);
  }
  return {
    pages: perHost * hosts,
    hits,
    seeds: () => origins.map((o) => `${o}/`),
    requests: () => requests,
    close: () => closeServers(servers),
  };
}
