import { isIP } from 'node:net';
import { AddressGuard, type Resolver } from '../fetch/address-guard.js';
import type { BlockReason } from './renderer.js';

/** Resource types a rendered page never needs for its text and links: blocked before they go out. */
export const BLOCKED_TYPES = new Set(['image', 'media', 'font', 'texttrack', 'ping', 'csp_violation_report', 'manifest']);
/**
 * Cloud instance-metadata endpoints: refused to rendered pages even with `--allow-private-network`
 * (an intranet crawl needs private hosts, never the credentials of the machine it runs on).
 */
const METADATA = new Set(['169.254.169.254', '169.254.170.2', 'fd00:ec2::254', '100.100.100.200', 'metadata.google.internal', 'metadata']);

/** Schemes that stay inside the browser (no request goes out): let through uncounted. */
const LOCAL_SCHEMES = new Set(['data:', 'blob:', 'about:']);

export interface PolicyOptions {
  allowPrivateNetwork: boolean;
  /** Requests one page may make; the rest are blocked. */
  maxRequests: number;
  resolver?: Resolver;
}

/** What happens to one request a page makes: out it goes, it stays local, or it is blocked for a reason. */
export type Verdict = { kind: 'continue' } | { kind: 'local' } | { kind: 'block'; reason: BlockReason; detail?: string };

/**
 * The checks every request of a rendered page passes, in the order they cost: its scheme, its
 * type, the per-page cap, robots.txt for the page's own host, then the address guard (the same
 * one the HTTP fetcher uses: no private, loopback or metadata address unless allowed).
 */
export class RequestPolicy {
  private readonly guard: AddressGuard;
  private made = 0;

  constructor(
    private readonly options: PolicyOptions,
    private readonly pageHost: string,
    private readonly robotsAllows?: (url: string) => boolean,
  ) {
    this.guard = new AddressGuard({ allowPrivateNetwork: options.allowPrivateNetwork, resolver: options.resolver });
  }

  /** Requests let out so far. */
  get requests(): number {
    return this.made;
  }

  async check(href: string, resourceType: string): Promise<Verdict> {
    let url: URL;
    try {
      url = new URL(href);
    } catch {
      return { kind: 'block', reason: 'scheme', detail: 'not a URL' };
    }
    if (LOCAL_SCHEMES.has(url.protocol)) return { kind: 'local' };
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return { kind: 'block', reason: 'scheme', detail: url.protocol };
    if (BLOCKED_TYPES.has(resourceType)) return { kind: 'block', reason: 'resource-type', detail: resourceType };
    if (this.made >= this.options.maxRequests) return { kind: 'block', reason: 'request-cap' };
    if (url.host === this.pageHost && this.robotsAllows && !this.robotsAllows(href)) return { kind: 'block', reason: 'robots' };
    const bare = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
    if (METADATA.has(bare)) return { kind: 'block', reason: 'private-address', detail: `${bare} is a cloud metadata endpoint` };
    try {
      this.guard.checkHostLiteral(url.hostname);
      if (isIP(bare) === 0) {
        const resolved = await this.guard.resolve(url.hostname);
        if (METADATA.has(resolved.address)) return { kind: 'block', reason: 'private-address', detail: `${bare} resolves to a cloud metadata endpoint` };
      }
    } catch (err) {
      return { kind: 'block', reason: 'private-address', detail: err instanceof Error ? err.message : String(err) };
    }
    this.made++;
    return { kind: 'continue' };
  }
}
