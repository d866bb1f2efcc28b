import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildHosts, type HostEnv, type HostSpec, type WebOptions, type WebResponse } from './hosts.js';

export interface RequestLogEntry {
  host: string;
  target: string;
  start: number;
  end: number;
  status: number;
  userAgent: string;
  /**
   * Requests to this host in progress when this one started (including itself). A capped download
   * the client had already closed is not counted: the server notices that close only when its
   * event loop gets to it, which on a busy machine can be after the client's next request arrives.
   */
  readonly concurrent: number;
  bytesSent: number;
  /** The client closed before the whole body was sent (a capped download); `end` is when the server noticed. */
  aborted: boolean;
}

/** `ip`: each host on its own loopback address (Linux); `port`: each host on its own port of 127.0.0.1 (macOS too). */
export type WebMode = 'ip' | 'port';

export interface SyntheticWeb {
  origins: Record<string, string>;
  hosts: HostSpec[];
  log: RequestLogEntry[];
  /** Seeds for crawling the whole web: every host's front page. */
  seeds(): string[];
  hostOf(origin: string): HostSpec | undefined;
  clearLog(): void;
  close(): Promise<void>;
}

export const DEFAULT_WEB_OPTIONS: WebOptions = { articles: 40, blogHosts: 3, crawlDelaySeconds: 1 };

function listen(server: Server, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve((server.address() as AddressInfo).port));
  });
}

function send(res: ServerResponse, out: WebResponse, onDone: (bytes: number, aborted: boolean) => void): void {
  res.writeHead(out.status, out.headers);
  if (out.stream) {
    const { chunk, total } = out.stream;
    let sent = 0;
    const pump = () => {
      while (sent < total) {
        sent += chunk.length;
        if (!res.write(chunk)) {
          res.once('drain', pump);
          return;
        }
      }
      res.end();
    };
    res.on('close', () => onDone(sent, sent < total || !res.writableFinished));
    pump();
    return;
  }
  res.end(out.body);
  onDone(out.body ? Buffer.byteLength(out.body) : 0, false);
}

/** Starts every host of the synthetic web on loopback and records each request it serves. */
export async function startWeb(
  options: Partial<WebOptions> = {},
  mode: WebMode = process.platform === 'linux' ? 'ip' : 'port',
  basePort = 0,
): Promise<SyntheticWeb> {
  const opts = { ...DEFAULT_WEB_OPTIONS, ...options };
  const hosts = buildHosts(opts);
  const log: RequestLogEntry[] = [];
  const origins: Record<string, string> = {};
  const servers: Server[] = [];
  const hits = new Map<string, Map<string, number>>();
  const env = (name: string): HostEnv => ({ origin: (n) => origins[n]!, hits: hits.get(name)!, now: Date.now });
  const handler = (spec: HostSpec) => {
    /** This host's requests in progress. */
    const open = new Set<{ aborted: boolean }>();
    return (req: IncomingMessage, res: ServerResponse) => {
      const start = Date.now();
      const others = [...open];
      const self = { aborted: false };
      open.add(self);
      const target = req.url ?? '/';
      const url = new URL(target, 'http://x');
      const out = spec.handle({ path: url.pathname, target, query: url.searchParams, headers: req.headers }, env(spec.name));
      const finish = (bytesSent: number, aborted: boolean) => {
        self.aborted = aborted;
        open.delete(self);
        log.push({
          host: spec.name,
          target,
          start,
          end: Date.now(),
          status: out.status,
          userAgent: String(req.headers['user-agent'] ?? ''),
          get concurrent() {
            return 1 + others.filter((o) => !o.aborted).length;
          },
          bytesSent,
          aborted,
        });
      };
      if (out.later)
        out.later.then(
          (body) => send(res, { ...out, body }, finish),
          (err: Error) => res.destroy(err),
        );
      else if (out.delayMs) setTimeout(() => send(res, out, finish), out.delayMs);
      else send(res, out, finish);
    };
  };
  let sharedPort = 0;
  for (const [i, spec] of hosts.entries()) {
    hits.set(spec.name, new Map());
    const server = createServer({ keepAliveTimeout: 5000 }, handler(spec));
    servers.push(server);
    if (mode === 'port') {
      // A fixed base port keeps origins stable between runs (the demo's second crawl is conditional).
      const port = await listen(server, '127.0.0.1', basePort ? basePort + i : 0).catch(() => listen(server, '127.0.0.1', 0));
      origins[spec.name] = `http://127.0.0.1:${port}`;
    } else {
      const ip = `127.0.0.${i + 2}`;
      sharedPort = await listen(server, ip, sharedPort);
      origins[spec.name] = `http://${ip}:${sharedPort}`;
    }
  }
  return {
    origins,
    hosts,
    log,
    seeds: () => hosts.map((h) => `${origins[h.name]}/`),
    hostOf: (origin) => hosts.find((h) => origins[h.name] === origin),
    clearLog: () => {
      log.length = 0;
    },
    close: () => closeServers(servers),
  };
}

/** Closes servers, ending their keep-alive connections. */
export async function closeServers(servers: Server[]): Promise<void> {
  await Promise.all(
    servers.map(
      (s) =>
        new Promise<void>((r) => {
          s.closeAllConnections();
          s.close(() => r());
        }),
    ),
  );
}
