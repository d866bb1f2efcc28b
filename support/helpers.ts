import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createH2Server, type ServerHttp2Session } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { frontierRowOf, type FrontierRow } from '../shared/ports/index.js';

/** A request's whole body as text. */
export function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}

/** A fresh temporary directory, removed by the returned cleanup. */
export function tempDir(prefix = 'trawl-test-'): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * A one-handler HTTP server on 127.0.0.1 for fetcher tests; `h2` serves cleartext HTTP/2 (prior
 * knowledge), as clients such as the Bedrock runtime's speak it.
 */
export async function serve(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
  protocol: 'http1' | 'h2' = 'http1',
): Promise<{ origin: string; close: () => Promise<void> }> {
  const sessions = new Set<ServerHttp2Session>();
  const server = protocol === 'h2' ? createH2Server(handler as never) : createServer(handler);
  server.on('session', (s: ServerHttp2Session) => {
    sessions.add(s);
    s.on('close', () => sessions.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((r) => {
        if ('closeAllConnections' in server) server.closeAllConnections();
        for (const s of sessions) s.destroy();
        server.close(() => r());
      }),
  };
}

/** A queued page row of the frontier: the given fields over depth 0, priority 1, no attempts; the host comes from the URL. */
export function frontierRow(fields: Pick<FrontierRow, 'runId' | 'urlId' | 'url'> & Partial<FrontierRow>): FrontierRow {
  return frontierRowOf({ host: new URL(fields.url).hostname, priority: 1, ...fields });
}

/** A seeded generator (mulberry32): the same numbers every run, so a failure names a case that reproduces. */
export function seededRandom(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
