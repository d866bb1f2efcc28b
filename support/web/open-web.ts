// A synthetic open web on loopback: many hosts of sizes on a power law (a few with tens of thousands
// of pages, most with a handful), pages that link to many pages of their own host and a few of other
// hosts (most of them never fetched under a crawl's budget), answers with a real spread of latency,
// and some hosts slow, failing or gone. Every host has its own loopback address and one server; every
// request is logged with its host, so politeness is asserted from the server's side.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RequestLogEntry } from './server.js';
import { closeServers } from './server.js';
import { seededRandom as random } from '../helpers.js';

export interface OpenWebOptions {
  /** Hosts (each on its own loopback address); a share of them are slow, failing or gone. */
  hosts: number;
  /** Pages of the largest host; the host of rank k has `topPages / k^alpha` of them (at least `minPages`). */
  topPages: number;
  alpha: number;
  minPages: number;
  /** Links a page carries to pages of its own host, and to pages of other hosts (picked by their size). */
  ownLinks: number;
  otherLinks: number;
  /** An answer takes a time drawn log-uniformly from this range (ms), divided by `compression`. */
  latencyMs: [number, number];
  /** How many times faster than the web it models the web answers (the run's delays are compressed the same). */
  compression: number;
  /** Shares of hosts that answer ten times slower, that answer 503 to every third request, and that are gone (nothing listens). */
  slowShare: number;
  failingShare: number;
  goneShare: number;
  seed: number;
}

export const OPEN_WEB_DEFAULTS: OpenWebOptions = {
  hosts: 1200,
  topPages: 40_000,
  alpha: 1.1,
  minPages: 4,
  ownLinks: 24,
  otherLinks: 4,
  latencyMs: [200, 2000],
  compression: 20,
  slowShare: 0.02,
  failingShare: 0.02,
  goneShare: 0.01,
  seed: 7,
};

export interface OpenHost {
  index: number;
  origin: string;
  pages: number;
  kind: 'normal' | 'slow' | 'failing' | 'gone';
}

export interface OpenWeb {
  hosts: OpenHost[];
  /** Every host's front page. */
  seeds(): string[];
  /** Every request served (a gone host serves none). */
  log: RequestLogEntry[];
  /** Pages on the web in all. */
  pages: number;
  close(): Promise<void>;
}

const WORDS =
  'river stone market harbour lantern orchard meadow copper signal winter garden bridge archive journal ledger compass valley summit forest canvas festival library workshop ferry mill quarry beacon tower'.split(
    ' ',
  );

/** A page's HTML: a title, three paragraphs, and its links (own host first), all fixed by its host and number. */
export function openPage(web: { hosts: OpenHost[]; weights: number[]; options: OpenWebOptions }, host: OpenHost, n: number): string {
  const rnd = random(web.options.seed * 1_000_003 + host.index * 100_003 + n);
  const words = (count: number) => Array.from({ length: count }, () => WORDS[Math.floor(rnd() * WORDS.length)]).join(' ');
  const own = Array.from({ length: web.options.ownLinks }, () => Math.floor(rnd() * host.pages));
  const others = Array.from({ length: web.options.otherLinks }, () => {
    const other = web.hosts[pick(web.weights, rnd())]!;
    return `${other.origin}/p/${Math.floor(rnd() * other.pages)}`;
  });
  const links = [...own.map((m) => `/p/${m}`), ...others].map((href, i) => `<li><a href="${href}">${words(2)} ${i}</a></li>`).join('');
  const paragraphs = [0, 1, 2].map((p) => `<p>Host ${host.index} page ${n} part ${p}: ${words(45)}.</p>`).join('');
  return `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>Host ${host.index} page ${n}: ${words(3)}</title></head>\n<body><nav><a href="/">Home</a></nav><main><h1>${words(4)}</h1>${paragraphs}<ul>${links}</ul></main></body></html>\n`;
}

/** The index of a weight drawn by `u` in [0, 1) from cumulative weights. */
function pick(cumulative: number[], u: number): number {
  const target = u * cumulative[cumulative.length - 1]!;
  let lo = 0;
  let hi = cumulative.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (cumulative[mid]! > target) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** Starts the open web: a server per host on 127.77.x.y (Linux routes all of 127/8 to loopback), one port for all. */
export async function startOpenWeb(options: Partial<OpenWebOptions> = {}): Promise<OpenWeb> {
  const o = { ...OPEN_WEB_DEFAULTS, ...options };
  const rnd = random(o.seed);
  const ip = (i: number) => `127.77.${1 + Math.floor(i / 250)}.${1 + (i % 250)}`;
  const hosts: OpenHost[] = Array.from({ length: o.hosts }, (_, i) => {
    const u = rnd();
    const kind = u < o.goneShare ? 'gone' : u < o.goneShare + o.failingShare ? 'failing' : u < o.goneShare + o.failingShare + o.slowShare ? 'slow' : 'normal';
    return { index: i, origin: '', pages: Math.max(o.minPages, Math.round(o.topPages / (i + 1) ** o.alpha)), kind };
  });
  let total = 0;
  const weights = hosts.map((h) => (total += h.pages));
  const web = { hosts, weights, options: o };
  const log: RequestLogEntry[] = [];
  const servers: Server[] = [];
  let port = 0;
  const [low, high] = o.latencyMs;
  for (const host of hosts) {
    if (host.kind === 'gone') continue;
    const open = new Set<object>();
    let served = 0;
    const server = createServer({ keepAliveTimeout: 5000 }, (req, res) => {
      const start = Date.now();
      const self = {};
      const others = open.size;
      open.add(self);
      const target = req.url ?? '/';
      const path = new URL(target, 'http://x').pathname;
      const latency = (Math.exp(Math.log(low) + Math.random() * (Math.log(high) - Math.log(low))) / o.compression) * (host.kind === 'slow' ? 10 : 1);
      served++;
      const answer = (): { status: number; type: string; body: string } => {
        if (host.kind === 'failing' && served % 3 === 0) return { status: 503, type: 'text/plain', body: 'busy' };
        if (path === '/robots.txt')
          return { status: 200, type: 'text/plain', body: host.index % 50 === 7 ? 'User-agent: *\nDisallow: /p/1\n' : 'User-agent: *\nAllow: /\n' };
        const m = /^\/p\/(\d+)$/.exec(path);
        const n = path === '/' ? 0 : m ? Number(m[1]) : -1;
        if (n < 0 || n >= host.pages) return { status: 404, type: 'text/html', body: '<h1>Not found</h1>' };
        return { status: 200, type: 'text/html; charset=utf-8', body: openPage(web, host, n) };
      };
      setTimeout(() => {
        const out = answer();
        res.writeHead(out.status, { 'content-type': out.type });
        res.end(out.body);
        open.delete(self);
        log.push({
          host: String(host.index),
          target,
          start,
          end: Date.now(),
          status: out.status,
          userAgent: String(req.headers['user-agent'] ?? ''),
          concurrent: 1 + others,
          bytesSent: Buffer.byteLength(out.body),
          aborted: false,
        });
      }, latency);
    });
    servers.push(server);
    port = await new Promise<number>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, ip(host.index), () => resolve((server.address() as AddressInfo).port));
    });
  }
  // A gone host's address has no server: its connections are refused.
  for (const host of hosts) host.origin = `http://${ip(host.index)}:${port}`;
  return {
    hosts,
    seeds: () => hosts.map((h) => `${h.origin}/`),
    log,
    pages: total,
    close: () => closeServers(servers),
  };
}
