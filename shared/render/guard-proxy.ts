import {
  createServer,
  request as httpRequest,
  type ClientRequest,
  type IncomingMessage,
  type OutgoingHttpHeaders,
  type Server,
  type ServerResponse,
} from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import type { AddressGuard } from '../fetch/address-guard.js';
import type { BlockReason } from './renderer.js';

/** What the proxy asks before a byte goes out: null lets it through, a reason refuses it. */
export type ReachCheck = (url: URL, tunnel: boolean) => Promise<BlockReason | null>;

export interface GuardProxyOptions {
  /** The address guard whose checked address each connection is made to (no DNS-rebinding window). */
  guard: AddressGuard;
  /** The page's checks on the target (robots.txt for its own host, metadata endpoints, the address guard). */
  reach: ReachCheck;
  /** Called once per refusal, with its reason. */
  onBlock: (reason: BlockReason) => void;
}

/**
 * The longest a request or tunnel through the proxy lives: no render waits longer (its page is
 * closed at its timeout, and that closes its connections here too).
 */
const UPSTREAM_DEADLINE_MS = 120_000;

/** Headers that belong to one hop (RFC 9110 §7.6.1) and to the proxy: never forwarded. */
const HOP_HEADERS = new Set(['proxy-connection', 'proxy-authorization', 'connection', 'keep-alive', 'te', 'trailer', 'upgrade']);

/**
 * A forward proxy of the renderer's own, on a loopback port, for one page's browser context. Every
 * byte the page sends leaves through it: plain HTTP requests, HTTPS and WSS tunnels (CONNECT) and
 * WebSocket upgrades. Each target passes the page's checks before a connection is made, and the
 * connection goes to the address the guard checked. Request interception alone sees neither
 * WebSockets nor popups nor workers' requests: this is the line nothing goes around.
 * A top-level navigation reaching the proxy is never the page's own (that document is served from
 * the fetch), so it is a popup or a new window: refused.
 */
export class GuardProxy {
  private readonly server: Server;
  /** Every socket of the proxy, both sides: the page's connections and those to the sites. */
  private readonly sockets = new Set<Socket>();
  /** Requests to the sites under way: they end when the page's side does, at their deadline, or at `close()`. */
  private readonly upstream = new Set<ClientRequest>();
  /** Connections and requests let out. */
  proxied = 0;

  constructor(private readonly options: GuardProxyOptions) {
    this.server = createServer((req, res) => {
      void this.forward(req, res).then(
        (upstream) => {
          if (!upstream) return res.writeHead(403, { 'content-type': 'text/plain' }).end('refused by trawl');
          res.writeHead(upstream.statusCode ?? 502, upstream.headers);
          upstream.pipe(res);
        },
        () => {
          if (!res.headersSent && !res.destroyed) res.writeHead(502).end();
        },
      );
    });
    this.server.on('connect', (req: IncomingMessage, socket: Socket, head: Buffer) => void this.tunnel(req, socket, head));
    this.server.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => void this.upgrade(req, socket, head));
    this.server.on('connection', (socket: Socket) => this.track(socket));
  }

  /** Starts listening on a free loopback port; resolves to `host:port` for Chromium's proxy setting. */
  async listen(): Promise<string> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(0, '127.0.0.1', () => resolve());
    });
    return `127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    for (const r of this.upstream) r.destroy();
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** Keeps `socket` to be destroyed at `close()` and at its deadline (once: a kept-alive socket carries many requests). */
  private track(socket: Socket): void {
    if (this.sockets.has(socket)) return;
    this.sockets.add(socket);
    const deadline = setTimeout(() => socket.destroy(), UPSTREAM_DEADLINE_MS);
    deadline.unref();
    socket.once('close', () => {
      clearTimeout(deadline);
      this.sockets.delete(socket);
    });
  }

  private async admit(url: URL, navigation: boolean, tunnel = false): Promise<boolean> {
    const reason = navigation ? 'popup' : await this.options.reach(url, tunnel).catch((): BlockReason => 'private-address');
    if (reason) {
      this.options.onBlock(reason);
      return false;
    }
    this.proxied++;
    return true;
  }

  /**
   * A plain HTTP request in absolute form: checked, then sent to the checked address. The request
   * to the site ends when the page's side goes away (a page closed at its render's timeout).
   */
  private async forward(req: IncomingMessage, res: ServerResponse): Promise<IncomingMessage | undefined> {
    const url = parse(req.url ?? '');
    if (!url || url.protocol !== 'http:') {
      this.options.onBlock('scheme');
      return undefined;
    }
    const navigation = req.headers['sec-fetch-mode'] === 'navigate' && req.headers['sec-fetch-dest'] === 'document';
    if (!(await this.admit(url, navigation))) return undefined;
    const headers: OutgoingHttpHeaders = {};
    for (const [k, v] of Object.entries(req.headers)) if (!HOP_HEADERS.has(k) && v !== undefined) headers[k] = v;
    return new Promise((resolve, reject) => {
      const out = httpRequest(
        {
          host: url.hostname.replace(/^\[|\]$/g, ''),
          port: url.port || 80,
          path: `${url.pathname}${url.search}`,
          method: req.method,
          headers,
          lookup: this.options.guard.lookup,
        },
        resolve,
      );
      this.upstream.add(out);
      out.once('socket', (socket: Socket) => this.track(socket));
      out.once('close', () => this.upstream.delete(out));
      res.once('close', () => out.destroy());
      out.once('error', reject);
      req.pipe(out);
    });
  }

  /** CONNECT host:port (HTTPS, WSS, and WS through a proxy): the target is checked, then the tunnel opens to the checked address. */
  private async tunnel(req: IncomingMessage, socket: Socket, head: Buffer): Promise<void> {
    socket.on('error', () => socket.destroy());
    const url = parse(`https://${req.url ?? ''}/`);
    if (!url || !(await this.admit(url, false, true))) return refuse(socket);
    const upstream = await this.open(url, url.port ? Number(url.port) : 443).catch(() => undefined);
    if (!upstream) return refuse(socket, '502 Bad Gateway');
    socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    if (head.length) upstream.write(head);
    relay(socket, upstream);
  }

  /** A WebSocket upgrade sent in absolute form: checked, then relayed as-is to the checked address. */
  private async upgrade(req: IncomingMessage, socket: Socket, head: Buffer): Promise<void> {
    socket.on('error', () => socket.destroy());
    const url = parse((req.url ?? '').replace(/^ws:/, 'http:'));
    if (!url || url.protocol !== 'http:' || !(await this.admit(url, false))) return refuse(socket);
    const upstream = await this.open(url, url.port ? Number(url.port) : 80).catch(() => undefined);
    if (!upstream) return refuse(socket, '502 Bad Gateway');
    const lines = [`${req.method} ${url.pathname}${url.search} HTTP/1.1`];
    for (let i = 0; i < req.rawHeaders.length; i += 2) {
      if (!req.rawHeaders[i]!.toLowerCase().startsWith('proxy-')) lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
    }
    upstream.write(`${lines.join('\r\n')}\r\n\r\n`);
    if (head.length) upstream.write(head);
    relay(socket, upstream);
  }

  private async open(url: URL, port: number): Promise<Socket> {
    const address = await this.options.guard.resolve(url.hostname.replace(/^\[|\]$/g, ''));
    return new Promise((resolve, reject) => {
      const s = connect({ host: address.address, port, family: address.family }, () => resolve(s));
      s.once('error', reject);
      this.track(s);
    });
  }
}

function parse(href: string): URL | undefined {
  try {
    return new URL(href);
  } catch {
    return undefined;
  }
}

/** Bytes both ways until either side closes; then the other goes too. */
function relay(page: Socket, site: Socket): void {
  page.once('close', () => site.destroy());
  site.once('close', () => page.destroy());
  site.on('error', () => site.destroy());
  site.pipe(page).pipe(site);
}

function refuse(socket: Socket, status = '403 Forbidden'): void {
  socket.end(`HTTP/1.1 ${status}\r\ncontent-length: 0\r\n\r\n`);
}
