import { WIRE_HEADERS } from '../fetch/content-type.js';

/** Resource types kept: what a page needs to render (its scripts, styles and fonts), not its media. */
const KEPT_TYPES = new Set(['script', 'stylesheet', 'font']);

export interface MemoResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

interface Entry extends MemoResponse {
  /** When it stops being fresh (its max-age), in ms since the epoch. */
  until: number;
}

/**
 * The scripts, styles and fonts a crawl's renders received, kept for the crawl's later renders: a
 * browser context's HTTP cache goes with the context, and a fresh one (after a crash, a hang, or
 * `PAGES_PER_CONTEXT` pages) asked the site again for what the crawl already had (bench:crawl's
 * one duplicate fetch, the app host's `/app.js`). A browser's disk cache outlives its tabs in the
 * same way, and as a browser partitions its cache by the page's site, each entry belongs to the
 * host of the page that received it: no host's render is answered from another's (a CDN's script
 * is asked for once per host). Only what HTTP lets a cache keep: a 200 to a GET, without `no-store`, `no-cache` or
 * `private`, fresh for its `max-age` (s-maxage first; none given: the crawl's life, as a browser's
 * heuristic freshness would). Bounded in bytes, the least recently used going first.
 */
export class SubresourceMemo {
  private readonly entries = new Map<string, Entry>();
  private bytes = 0;

  constructor(
    private readonly maxBytes = 16 * 1024 * 1024,
    private readonly maxEntryBytes = 2 * 1024 * 1024,
    private readonly now: () => number = Date.now,
  ) {}

  /** Whether a response to a request of this type could be kept (before its body is asked for). */
  wants(
    host: string,
    url: string,
    { method, resourceType, status, headers }: { method: string; resourceType: string; status: number; headers: Record<string, string> },
  ): boolean {
    if (method !== 'GET' || status !== 200 || !KEPT_TYPES.has(resourceType) || this.entries.has(`${host} ${url}`)) return false;
    const cacheControl = (headers['cache-control'] ?? '').toLowerCase();
    if (/(^|[\s,])(no-store|no-cache|private)($|[\s,=])/.test(cacheControl) || /no-cache/i.test(headers.pragma ?? '')) return false;
    if (headers.vary && headers.vary.trim() !== '' && !/^\s*accept-encoding\s*$/i.test(headers.vary)) return false;
    return this.lifetimeMs(cacheControl) > 0;
  }

  /** Keeps `url`'s response for the pages of `host` (the page that received it). */
  remember(host: string, url: string, status: number, headers: Record<string, string>, body: Buffer): void {
    const key = `${host} ${url}`;
    if (body.length > this.maxEntryBytes || this.entries.has(key)) return;
    const kept: Record<string, string> = {};
    for (const [k, v] of Object.entries(headers)) if (!WIRE_HEADERS.has(k.toLowerCase())) kept[k] = v;
    const until = this.now() + this.lifetimeMs((headers['cache-control'] ?? '').toLowerCase());
    this.entries.set(key, { status, headers: kept, body, until });
    this.bytes += body.length;
    for (const [key, entry] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(key);
      this.bytes -= entry.body.length;
    }
  }

  /** The kept response for `url` to a page of `host` while it is fresh; a request of another type is not answered from it. */
  recall(host: string, url: string, resourceType: string): MemoResponse | undefined {
    if (!KEPT_TYPES.has(resourceType)) return undefined;
    const key = `${host} ${url}`;
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    if (entry.until <= this.now()) {
      this.bytes -= entry.body.length;
      return undefined;
    }
    this.entries.set(key, entry);
    return { status: entry.status, headers: entry.headers, body: entry.body };
  }

  private lifetimeMs(cacheControl: string): number {
    const age = /(?:^|[\s,])s-maxage\s*=\s*"?(\d+)/.exec(cacheControl) ?? /(?:^|[\s,])max-age\s*=\s*"?(\d+)/.exec(cacheControl);
    return age ? Number(age[1]) * 1000 : Number.POSITIVE_INFINITY;
  }
}
