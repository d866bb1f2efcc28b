import { hash } from 'node:crypto';

/** Query parameters that only track the visitor; dropped from canonical URLs (lower-case names). */
export const DEFAULT_TRACKING_PARAMS: readonly string[] = [
  'utm_*',
  'gclid',
  'gclsrc',
  'dclid',
  'fbclid',
  'msclkid',
  'yclid',
  'twclid',
  'igshid',
  'mc_cid',
  'mc_eid',
  '_ga',
  '_gl',
  '_hsenc',
  '_hsmi',
  'mkt_tok',
  'oly_anon_id',
  'oly_enc_id',
  'vero_id',
  'wickedid',
  'ref_src',
];

/** Session-id parameters; dropped from the query and from `;name=value` path parameters. */
export const DEFAULT_SESSION_PARAMS: readonly string[] = ['jsessionid', 'phpsessid', 'sid', 'sessionid', 'session_id', 'aspsessionid*', 'cfid', 'cftoken'];

export interface CanonicalOptions {
  trackingParams?: readonly string[];
  sessionParams?: readonly string[];
}

const UNRESERVED = /[A-Za-z0-9\-._~]/;

/** Decodes percent-escapes of unreserved characters and upper-cases the hex of the others (RFC 3986 §6.2.2). */
export function normalizePercentEncoding(s: string): string {
  return s.replace(/%([0-9a-fA-F]{2})/g, (_m, hex: string) => {
    const ch = String.fromCharCode(parseInt(hex, 16));
    return UNRESERVED.test(ch) ? ch : `%${hex.toUpperCase()}`;
  });
}

function nameMatcher(patterns: readonly string[]): (name: string) => boolean {
  const exact = new Set(patterns.filter((p) => !p.endsWith('*')).map((p) => p.toLowerCase()));
  const prefixes = patterns.filter((p) => p.endsWith('*')).map((p) => p.slice(0, -1).toLowerCase());
  return (name) => {
    const n = name.toLowerCase();
    return exact.has(n) || prefixes.some((p) => n.startsWith(p));
  };
}

const matcherCache = new WeakMap<readonly string[], (name: string) => boolean>();
function cachedMatcher(patterns: readonly string[]): (name: string) => boolean {
  let m = matcherCache.get(patterns);
  if (!m) {
    m = nameMatcher(patterns);
    matcherCache.set(patterns, m);
  }
  return m;
}

function canonicalQuery(search: string, drop: (name: string) => boolean): string {
  if (search.length <= 1) return '';
  const pairs = search
    .slice(1)
    .split('&')
    .filter((p) => p.length > 0)
    .map((p) => {
      const eq = p.indexOf('=');
      const key = eq < 0 ? p : p.slice(0, eq);
      return { key: normalizePercentEncoding(key), pair: normalizePercentEncoding(p) };
    })
    .filter(({ key }) => !drop(safeDecode(key)));
  if (pairs.length === 0) return '';
  return `?${pairs.map((p) => p.pair).join('&')}`;
}

const keyOfPair = (pair: string) => {
  const eq = pair.indexOf('=');
  return eq < 0 ? pair : pair.slice(0, eq);
};

/**
 * The form of a canonical URL that says "the same URL": its query parameters in sorted order
 * (by name, then by the whole pair). Only a key: the URL fetched and archived keeps its order.
 */
export function sortedQueryForm(canonicalUrl: string): string {
  const q = canonicalUrl.indexOf('?');
  if (q < 0 || !canonicalUrl.includes('&', q)) return canonicalUrl;
  const pairs = canonicalUrl
    .slice(q + 1)
    .split('&')
    .map((pair) => ({ key: keyOfPair(pair), pair }));
  pairs.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : a.pair < b.pair ? -1 : a.pair > b.pair ? 1 : 0));
  return `${canonicalUrl.slice(0, q)}?${pairs.map((p) => p.pair).join('&')}`;
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '));
  } catch {
    return s;
  }
}

function stripPathSessionIds(path: string, isSession: (name: string) => boolean): string {
  if (!path.includes(';')) return path;
  return path.replace(/;([^/;=]+)=[^/;]*/g, (whole, name: string) => (isSession(name) ? '' : whole));
}

/**
 * The canonical form of a URL, the one fetched and archived: WHATWG parsing (lower-case scheme
 * and host, IDN to punycode, default port dropped, dot segments resolved), no fragment, normalised
 * percent-encoding, tracking and session parameters removed, the query's order kept as written.
 * Two URLs whose queries differ only in order share a {@link urlId}. Returns null for anything
 * that is not an absolute http(s) URL.
 *
 * @example canonicalize('HTTP://Example.COM:80/a/../b?utm_source=x&b=2&a=1#top') // 'http://example.com/b?b=2&a=1'
 */
export function canonicalize(input: string, base?: string | URL, options: CanonicalOptions = {}): string | null {
  let url: URL;
  try {
    url = base === undefined ? new URL(input) : new URL(input, base);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  if (url.hostname === '') return null;
  const tracking = cachedMatcher(options.trackingParams ?? DEFAULT_TRACKING_PARAMS);
  const session = cachedMatcher(options.sessionParams ?? DEFAULT_SESSION_PARAMS);
  url.hash = '';
  url.username = '';
  url.password = '';
  const path = normalizePercentEncoding(stripPathSessionIds(url.pathname, session));
  const query = canonicalQuery(url.search, (name) => tracking(name) || session(name));
  let host = url.hostname;
  if (host.endsWith('.')) host = host.slice(0, -1);
  const port = url.port ? `:${url.port}` : '';
  return `${url.protocol}//${host}${port}${path}${query}`;
}

/**
 * A stable id for a canonical URL: the first 128 bits of the SHA-256 of its sorted-query form, hex,
 * so the same URL linked with its query in another order is "seen already".
 */
export function urlId(canonicalUrl: string): string {
  // Hex of the first 16 bytes: a flat 32-character string (a slice of the 64-character hex would
  // keep all of it alive, and ids are held for every queued URL).
  return hash('sha256', sortedQueryForm(canonicalUrl), 'buffer').toString('hex', 0, 16);
}

/** Whether two canonical URLs name the same resource (they differ at most in their query's order). */
export function sameUrl(a: string, b: string): boolean {
  return a === b || sortedQueryForm(a) === sortedQueryForm(b);
}

/** The politeness key of a URL: host plus non-default port (robots.txt is per origin, RFC 9309 §2.3). */
export function hostKey(canonicalUrl: string): string {
  return new URL(canonicalUrl).host;
}

export function originOf(canonicalUrl: string): string {
  return new URL(canonicalUrl).origin;
}
