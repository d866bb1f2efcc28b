// SURT keys as pywb, py-wacz and the Wayback Machine write and look them up (the Internet Archive's
// default canonicalisation): scheme dropped, host lower-cased with a leading `www`/`www<n>` label
// dropped and its labels reversed, default ports dropped, path and query lower-cased, the path's
// trailing slash dropped (but for the root), the query's empty `?`, session ids and order
// normalised, the fragment dropped, and percent-escapes reduced to the bytes that must stay escaped.
// A CDXJ line keyed otherwise is not found by those tools (a URL ending in `/` answers 404).

/** Query parameters that carry a session, not a resource (the Wayback Machine's list). */
const SESSION_PARAMS = [
  /^jsessionid=[0-9a-z$]{10,}$/i,
  /^phpsessid=[0-9a-z]{32}$/i,
  /^sid=[0-9a-f]{32}$/i,
  /^aspsessionid[a-z]{8}=[a-z]{24}$/i,
  /^cfid=\d+$/i,
  /^cftoken=[0-9a-f-]+$/i,
];
/** An ASP.NET session id as the first path segment: `/(S(…))/page.aspx` or `/(…)/page.aspx`. */
const PATH_SESSION = /^\/\((?:[a-z]\([0-9a-z]{24}\))+\)\/|^\/\([0-9a-z]{24}\)\//i;

/** Decodes percent-escapes until none is left to decode, then escapes what must stay escaped. */
function minimalEscapes(text: string): string {
  let bytes: Buffer = Buffer.from(text, 'utf8');
  for (;;) {
    const decoded = decodeOnce(bytes);
    if (decoded.equals(bytes)) break;
    bytes = decoded;
  }
  let out = '';
  for (const b of bytes)
    out += b <= 0x20 || b >= 0x7f || b === 0x25 || b === 0x23 ? `%${b.toString(16).toUpperCase().padStart(2, '0')}` : String.fromCharCode(b);
  return out;
}

function decodeOnce(bytes: Buffer): Buffer {
  const out: number[] = [];
  for (let i = 0; i < bytes.length; i++) {
    const hex = bytes[i] === 0x25 && i + 2 < bytes.length ? bytes.subarray(i + 1, i + 3).toString('latin1') : '';
    if (/^[0-9a-f]{2}$/i.test(hex)) {
      out.push(parseInt(hex, 16));
      i += 2;
    } else out.push(bytes[i]!);
  }
  return Buffer.from(out);
}

/** The SURT key of an http(s) URL (`org,archive)/goo?a=1&b`); any other URL is returned as it is. */
export function surtKey(url: string): string {
  let u: URL;
  try {
    u = new URL(url.trim().replace(/[\t\r\n]/g, ''));
  } catch {
    return url;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return url;
  // WHATWG parsing lower-cases the host, makes it punycode, drops a default port and resolves dot segments.
  const host = u.hostname
    .replace(/\.+$/, '')
    .replace(/^www\d*\./, '')
    .split('.')
    .reverse()
    .join(',');
  const port = u.port ? `:${u.port}` : '';
  let path = minimalEscapes(u.pathname)
    .replace(/\/{2,}/g, '/')
    .replace(PATH_SESSION, '/')
    .toLowerCase();
  if (path.length > 1 && path.endsWith('/')) path = path.slice(0, -1);
  // An empty `?` is dropped; an empty parameter of a query (`?&b=1`) is kept, and sorts first.
  const query = u.search.slice(1);
  const params = (query === '' ? [] : query.split('&'))
    .filter((p) => !SESSION_PARAMS.some((re) => re.test(p)))
    .map((p) => minimalEscapes(p).toLowerCase())
    .sort();
  return `${host}${port})${path}${params.length ? `?${params.join('&')}` : ''}`;
}

/** A CDXJ line (`<key> <timestamp> {json}`) keyed by the SURT of its JSON's `url`. */
export function rekeyCdxjLine(line: string): string {
  const first = line.indexOf(' ');
  const second = line.indexOf(' ', first + 1);
  if (first < 0 || second < 0) return line;
  const url = (JSON.parse(line.slice(second + 1)) as { url?: unknown }).url;
  return typeof url === 'string' ? `${surtKey(url)}${line.slice(first)}` : line;
}
