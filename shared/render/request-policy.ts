import { isIP } from 'node:net';
import { AddressGuard, isMetadataEndpoint, type Resolver } from '../fetch/address-guard.js';
import type { BlockReason } from './renderer.js';

/** Resource types a rendered page never needs for its text and links: blocked before they go out. */
export const BLOCKED_TYPES = new Set(['image', 'media', 'font', 'texttrack', 'ping', 'csp_violation_report', 'manifest']);

/** Paths of the icons a browser asks a site for by itself. */
const ICON_PATHS = /^\/(favicon\.ico|apple-touch-icon[\w.-]*\.png)$/i;

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
    const refused = await this.reach(url);
    if (refused) return refused;
    this.made++;
    return { kind: 'continue' };
  }

  /**
   * Whether a target may be reached at all, whatever asked for it (request interception, or the
   * guard proxy for what interception never sees): robots.txt for the page's own host, metadata
   * endpoints in every form, the address guard. Counts nothing.
   */
  async reach(url: URL, tunnel = false): Promise<Extract<Verdict, { kind: 'block' }> | undefined> {
    // A tunnel (CONNECT) names only host and port: its paths were checked by interception, where it sees them.
    if (!tunnel && url.host === this.pageHost && this.robotsAllows && !this.robotsAllows(url.href)) return { kind: 'block', reason: 'robots' };
    // The browser's own icon requests (a newer Chromium asks every site for /favicon.ico): no page needs them.
    if (!tunnel && ICON_PATHS.test(url.pathname)) return { kind: 'block', reason: 'resource-type', detail: 'icon' };
    const bare = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
    if (isMetadataEndpoint(bare)) return { kind: 'block', reason: 'private-address', detail: `${bare} is a cloud metadata endpoint` };
    try {
      this.guard.checkHostLiteral(url.hostname);
      // The guard refuses names that resolve to a metadata endpoint even when private addresses are allowed.
      if (isIP(bare) === 0) await this.guard.resolve(url.hostname);
    } catch (err) {
      return { kind: 'block', reason: 'private-address', detail: err instanceof Error ? err.message : String(err) };
    }
    return undefined;
  }

  /** The guard this policy checks addresses with (the proxy connects through it). */
  get addressGuard(): AddressGuard {
    return this.guard;
  }
}
