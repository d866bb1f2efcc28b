import type { CrawlSettings } from '../../config/settings.js';
import type { FetchKind } from '../../fetch/content-type.js';
import type { PriorityFn, PriorityInput } from '../../frontier/priority.js';
import { DEFAULT_TRAP_LIMITS, TrapGuard } from '../../frontier/traps.js';
import type { FrontierRow, UrlReason } from '../../ports/index.js';
import { canonicalize, hostKey, urlId, type CanonicalOptions } from '../../url/canonical.js';
import { denyPattern, scopeChecker, type ScopeVerdict } from '../../url/scope.js';
import type { LinearRegex } from '../../util/linear-regex.js';

/** A URL found somewhere (link, redirect, sitemap, feed, seed) asking to enter the frontier. */
export interface LinkCandidate {
  href: string;
  depth: number;
  kind: FetchKind;
  fresh?: boolean;
  structural?: boolean;
  redirects?: number;
  from?: string;
  nofollow?: boolean;
  /** For a link: what focused crawling scores (anchor, surrounding text, section, same host). */
  link?: Pick<PriorityInput, 'anchor' | 'context' | 'section' | 'sameHost' | 'title' | 'description'>;
}

/** The decision for a candidate: a frontier row, queued or skipped with a reason. */
export type Admission = { row: FrontierRow } | { dropped: 'not-http' };

export const MAX_REDIRECTS = 5;

export interface AdmitterOptions {
  runId: number;
  /** The seeds, and the origins that joined the scope during the run (`RunRecord.scope`): their hosts are in scope. */
  scope: readonly string[];
  settings: CrawlSettings;
  priority: PriorityFn;
  canonical: CanonicalOptions;
  clock: () => number;
  /** A frontier without priorities (SQS) admits only URLs whose priority reaches this; the rest are skipped as `below-threshold`. */
  minPriority?: number;
}

/** Decides which discovered URLs are crawled: canonical form, scope, deny patterns, depth, traps, nofollow. */
export class Admitter {
  readonly traps: TrapGuard;
  private inScope: (url: string) => ScopeVerdict;
  private readonly scopeUrls: string[];
  /** Sitemaps and feeds admitted so far: a run fetches at most `maxSitemaps` of them (chains and 10,000-child indexes end). */
  private sitemaps = 0;

  private readonly runId: number;
  private readonly settings: CrawlSettings;
  /** `--include` patterns: when there are any, a linked page is followed only if it matches one. */
  private readonly include: LinearRegex[];
  private readonly priority: PriorityFn;
  private readonly canonical: CanonicalOptions;
  private readonly minPriority?: number;

  constructor(options: AdmitterOptions) {
    this.runId = options.runId;
    this.settings = options.settings;
    this.priority = options.priority;
    this.canonical = options.canonical;
    this.minPriority = options.minPriority;
    this.traps = new TrapGuard(DEFAULT_TRAP_LIMITS, options.clock);
    this.scopeUrls = [...options.scope];
    this.inScope = this.checker();
    this.include = this.settings.include.map(denyPattern);
  }

  private checker(): (url: string) => ScopeVerdict {
    return scopeChecker({ mode: this.settings.scope, seeds: this.scopeUrls, allowDomains: this.settings.allowDomain, deny: this.settings.deny });
  }

  /** Puts the hosts of these URLs in scope as a seed's are (what a search or social target found). */
  widenScope(urls: readonly string[]): void {
    if (urls.length === 0) return;
    this.scopeUrls.push(...urls);
    this.inScope = this.checker();
  }

  canonicalize(href: string): string | null {
    return canonicalize(href, undefined, this.canonical);
  }

  /**
   * Builds the frontier row for a candidate; `state` says whether it is queued or why not.
   * `canonical` is the candidate's URL and id when the caller has them already.
   */
  admit(c: LinkCandidate, canonical?: { url: string; id: string }): Admission {
    const url = canonical?.url ?? this.canonicalize(c.href);
    if (!url) return { dropped: 'not-http' };
    const redirects = c.redirects ?? 0;
    const row: FrontierRow = {
      runId: this.runId,
      urlId: canonical?.id ?? urlId(url),
      url,
      host: hostKey(url),
      depth: c.depth,
      kind: c.kind,
      state: 'queued',
      inlinks: 0,
      fresh: c.fresh ?? false,
      redirects,
      attempts: 0,
      notBefore: 0,
      discoveredFrom: c.from,
      rawUrl: c.href !== url ? c.href : undefined,
      priority: this.priority({ url, depth: c.depth, inlinks: 0, fresh: c.fresh ?? false, structural: c.structural, ...c.link }),
    };
    const reason = this.skipReason(c, url, redirects) ?? (this.minPriority !== undefined && row.priority < this.minPriority ? 'below-threshold' : undefined);
    if (reason) {
      row.state = 'skipped';
      row.reason = reason;
    }
    return { row };
  }

  private skipReason(c: LinkCandidate, url: string, redirects: number): UrlReason | undefined {
    const scope = this.inScope(url);
    if (!scope.inScope) return scope.reason;
    if (redirects > MAX_REDIRECTS) return 'too-many-redirects';
    // A seed and its redirects (depth 0), sitemaps and feeds are read whatever the patterns say.
    if (this.include.length > 0 && c.kind === 'page' && c.depth > 0 && !this.include.some((re) => re.test(url))) return 'not-included';
    if (c.nofollow && !this.settings.followNofollow) return 'nofollow';
    if (c.depth > this.settings.maxDepth) return 'max-depth';
    if (c.kind === 'sitemap' || c.kind === 'feed') {
      if (this.sitemaps >= this.settings.maxSitemaps) return 'max-sitemaps';
      this.sitemaps++;
    }
    return this.traps.admit(url) ?? undefined;
  }
}
