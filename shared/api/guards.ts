import { createHash, timingSafeEqual } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';

/** Names and addresses a loopback server is reached by. */
const LOOPBACK_HOST = /^(localhost|127\.\d{1,3}\.\d{1,3}\.\d{1,3}|\[::1\]|::1)$/i;

/**
 * The hosts a server answers: loopback names and addresses always, plus each of `allowed` (a name
 * or address, or `.example.com` for that domain's subdomains). A Host header outside them is a
 * page's name rebound to this server (DNS rebinding): answered 421 with no data.
 */
export function hostAllowed(hostHeader: string | undefined, allowed: readonly string[]): boolean {
  if (!hostHeader) return false;
  const host = hostHeader.trim().toLowerCase().replace(/:\d+$/, '').replace(/\.$/, '');
  if (!host) return false;
  if (LOOPBACK_HOST.test(host)) return true;
  return allowed.some((a) => {
    const want = a.toLowerCase().replace(/\.$/, '');
    return want.startsWith('.') ? host.endsWith(want) && host.length > want.length : host === want.replace(/^\[|\]$/g, '') || host === want;
  });
}

/** Refuses requests whose Host header the server does not serve (see `hostAllowed`). */
export function hostGuard(allowed: readonly string[]): MiddlewareHandler {
  return async (c, next) => {
    if (!hostAllowed(c.req.header('host'), allowed)) {
      return c.json({ error: 'this server does not answer for that Host: start it with --allowed-host <name> to serve a name other than loopback' }, 421);
    }
    return next();
  };
}

const sha256 = (s: string) => createHash('sha256').update(s).digest();

/** Compares a secret given with the expected one's SHA-256 in constant time. */
function sameSecret(given: string | undefined, expectedSha256: Buffer): boolean {
  return given !== undefined && timingSafeEqual(sha256(given), expectedSha256);
}

/** Paths anyone may load: the health check and the web UI's own files (which then ask for the token). */
/** Paths a GET reaches without the token (the health check, the UI's page and files). */
export const OPEN_PATHS = /^\/(healthz|ui\/[^/]+)?$/;

export interface AuthOptions {
  /** Every data route must carry `Authorization: Bearer <token>`. */
  token?: string;
  /** The write token (`/crawls`) reads too: one bearer header cannot carry two tokens. */
  writeToken?: string;
  /** Every data route must carry this header with a key whose SHA-256 (hex) is `sha256`. */
  apiKey?: { header: string; sha256: string };
}

/**
 * Bearer token and API-key checks for every data route. The UI's page and files load without them
 * (a browser sends no bearer header when it navigates), and the UI asks for the token.
 */
export function authGuard(options: AuthOptions): MiddlewareHandler {
  const tokenHash = options.token === undefined ? undefined : sha256(options.token);
  const writeHash = options.writeToken === undefined ? undefined : sha256(options.writeToken);
  const keyHash = options.apiKey && Buffer.from(options.apiKey.sha256, 'hex');
  if (keyHash && keyHash.length !== 32) throw new Error('apiKey.sha256 is not a SHA-256 in hex: give the 64 hexadecimal characters of sha256(key)');
  return async (c, next) => {
    if (OPEN_PATHS.test(c.req.path) && c.req.method === 'GET') return next();
    const bearer = /^Bearer (.+)$/.exec(c.req.header('authorization') ?? '')?.[1];
    if (tokenHash && !sameSecret(bearer, tokenHash) && !(writeHash && sameSecret(bearer, writeHash))) {
      return c.json({ error: 'missing or wrong bearer token: send Authorization: Bearer <token> (the --token the server was started with)' }, 401);
    }
    if (options.apiKey && keyHash && !sameSecret(c.req.header(options.apiKey.header), keyHash)) {
      return c.json({ error: `missing or wrong API key: send it in the ${options.apiKey.header} header` }, 401);
    }
    return next();
  };
}

/**
 * Headers on every answer: no script but the UI's own file, no framing, no MIME sniffing, no
 * referrer (page URLs of a crawl may be private).
 */
export const securityHeaders: MiddlewareHandler = async (c, next) => {
  await next();
  c.header(
    'content-security-policy',
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  );
  c.header('x-content-type-options', 'nosniff');
  c.header('referrer-policy', 'no-referrer');
  c.header('x-frame-options', 'DENY');
};
