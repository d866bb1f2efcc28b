import { getDomain } from 'tldts';
import { linearRegex, type LinearRegex } from '../util/linear-regex.js';

export type ScopeMode = 'host' | 'domain';

export interface ScopeRules {
  mode: ScopeMode;
  seeds: readonly string[];
  allowDomains: readonly string[];
  deny: readonly string[];
}

export type ScopeVerdict = { inScope: true } | { inScope: false; reason: 'out-of-scope' | 'denied' };

function registrable(hostname: string): string {
  return getDomain(hostname, { allowPrivateDomains: true }) ?? hostname;
}

/**
 * Turns a `--deny` pattern into a matcher: `/re/` is a regular expression, anything else a glob
 * with `*`. Both run in linear time (a pattern may come from a request to the server).
 */
export function denyPattern(pattern: string): LinearRegex {
  if (pattern.length > 2 && pattern.startsWith('/') && pattern.endsWith('/')) return linearRegex(pattern.slice(1, -1));
  const escaped = pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*');
  return linearRegex(escaped);
}

/** Why a deny pattern cannot be used (an invalid regular expression), or undefined when it can. */
export function denyPatternProblem(pattern: string): string | undefined {
  try {
    denyPattern(pattern);
    return undefined;
  } catch (err) {
    return `not a valid regular expression for trawl (${err instanceof Error ? err.message : String(err)}); write /…/ around a valid one, or use a glob such as */login*`;
  }
}

/** Builds the scope check for a crawl: seed hosts (default), seed registrable domains, or explicit domains. */
export function scopeChecker(rules: ScopeRules): (canonicalUrl: string) => ScopeVerdict {
  const seedHosts = new Set(rules.seeds.map((s) => new URL(s).host));
  const seedDomains = new Set(rules.seeds.map((s) => registrable(new URL(s).hostname)));
  const allow = rules.allowDomains.map((d) => d.toLowerCase().replace(/^\.+/, ''));
  const deny = rules.deny.map(denyPattern);
  return (canonicalUrl) => {
    if (deny.some((re) => re.test(canonicalUrl))) return { inScope: false, reason: 'denied' };
    const url = new URL(canonicalUrl);
    const hostname = url.hostname;
    if (allow.some((d) => hostname === d || hostname.endsWith(`.${d}`))) return { inScope: true };
    const ok = rules.mode === 'host' ? seedHosts.has(url.host) : seedDomains.has(registrable(hostname));
    return ok ? { inScope: true } : { inScope: false, reason: 'out-of-scope' };
  };
}
