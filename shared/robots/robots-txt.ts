import { normalizePercentEncoding } from '../url/canonical.js';

/** RFC 9309 §2.5: crawlers must parse at least the first 500 KiB; we parse exactly that much. */
export const ROBOTS_MAX_BYTES = 500 * 1024;

export interface RobotsRule {
  /** The normalised pattern, with `*` wildcards and an optional trailing `$`. */
  pattern: string;
  allow: boolean;
}

export interface RobotsRules {
  rules: RobotsRule[];
  /** Crawl-delay of the matched group(s), in milliseconds; the largest when several are given. */
  crawlDelayMs?: number;
  sitemaps: string[];
  /** Which group applied: our product token, `*`, or none (everything allowed). */
  matchedGroup: 'product' | 'star' | 'none';
}

interface Group {
  agents: string[];
  rules: RobotsRule[];
  crawlDelays: number[];
}

/** Percent-encodes non-ASCII and normalises existing escapes so patterns and paths compare as octets (RFC 9309 §2.2.2). */
export function normalizeRobotsPath(path: string): string {
  let out = '';
  for (const ch of path) {
    const code = ch.codePointAt(0) ?? 0;
    out += code > 0x7e || code < 0x21 ? encodeURIComponent(ch) : ch;
  }
  return normalizePercentEncoding(out);
}

/** The product token of a User-Agent line or string: the leading run of letters, `_` and `-` (RFC 9309 §2.2.1). */
export function productToken(userAgent: string): string {
  const m = /^[A-Za-z_-]+/.exec(userAgent.trim());
  return (m ? m[0] : userAgent.trim()).toLowerCase();
}

function parseLines(text: string): Group[] & { sitemaps?: string[] } {
  const groups: Group[] = [];
  const sitemaps: string[] = [];
  let current: Group | undefined;
  let lastWasAgent = false;
  for (const raw of text.replace(/^\uFEFF/, '').split(/\r\n|\r|\n/)) {
    const line = raw.replace(/#.*$/, '').trim();
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const key = line.slice(0, colon).trim().toLowerCase().replace(/[\s_]/g, '-');
    const value = line.slice(colon + 1).trim();
    if (key === 'user-agent' || key === 'useragent') {
      if (!current || !lastWasAgent) {
        current = { agents: [], rules: [], crawlDelays: [] };
        groups.push(current);
      }
      current.agents.push(value === '*' ? '*' : productToken(value));
      lastWasAgent = true;
      continue;
    }
    lastWasAgent = false;
    if (key === 'sitemap') {
      if (value) sitemaps.push(value);
    } else if (!current) {
      continue; // rules before any user-agent line belong to no group (RFC 9309 §2.1)
    } else if (key === 'allow' || key === 'disallow') {
      // An empty Disallow allows everything: it adds no rule.
      if (value) current.rules.push({ pattern: normalizeRobotsPath(value), allow: key === 'allow' });
    } else if (key === 'crawl-delay') {
      const seconds = Number(value);
      if (Number.isFinite(seconds) && seconds >= 0) current.crawlDelays.push(seconds);
    }
  }
  return Object.assign(groups, { sitemaps });
}

/**
 * Parses robots.txt for one crawler: merges every group naming our product token
 * (case-insensitive), else every `*` group; keeps the Sitemap lines of the whole file.
 */
export function parseRobotsTxt(text: string, userAgentToken: string): RobotsRules {
  const token = productToken(userAgentToken);
  const groups = parseLines(text.slice(0, ROBOTS_MAX_BYTES));
  const sitemaps = groups.sitemaps ?? [];
  let matched = groups.filter((g) => g.agents.includes(token));
  let matchedGroup: RobotsRules['matchedGroup'] = 'product';
  if (matched.length === 0) {
    matched = groups.filter((g) => g.agents.includes('*'));
    matchedGroup = matched.length ? 'star' : 'none';
  }
  const delays = matched.flatMap((g) => g.crawlDelays);
  return {
    rules: matched.flatMap((g) => g.rules),
    crawlDelayMs: delays.length ? Math.round(Math.max(...delays) * 1000) : undefined,
    sitemaps,
    matchedGroup,
  };
}

/** Matches a robots pattern (`*` = any run, trailing `$` = end) against the start of a path, in linear-ish time. */
export function patternMatches(rawPattern: string, path: string): boolean {
  const anchored = rawPattern.endsWith('$');
  const pattern = anchored ? rawPattern.slice(0, -1) : rawPattern;
  let p = 0;
  let s = 0;
  let starP = -1;
  let starS = 0;
  while (s < path.length) {
    if (p < pattern.length && pattern[p] === '*') {
      starP = p++;
      starS = s;
    } else if (p < pattern.length && pattern[p] === path[s]) {
      p++;
      s++;
    } else if (p === pattern.length && !anchored) {
      return true;
    } else if (starP >= 0) {
      p = starP + 1;
      s = ++starS;
    } else {
      return false;
    }
  }
  while (p < pattern.length && pattern[p] === '*') p++;
  return p === pattern.length;
}

/** The length that decides precedence: the pattern's octets (RFC 9309 §2.2.2, "most specific match"). */
function specificity(pattern: string): number {
  return pattern.length;
}

/**
 * Decides a path (with query) against the rules: the longest matching pattern wins and
 * Allow wins a tie; no match means allowed. `/robots.txt` itself is always allowed.
 */
export function isPathAllowed(rules: RobotsRules, pathAndQuery: string): boolean {
  const path = normalizeRobotsPath(pathAndQuery);
  if (path === '/robots.txt') return true;
  let best = -1;
  let allowed = true;
  for (const rule of rules.rules) {
    const len = specificity(rule.pattern);
    if (len < best || (len === best && !rule.allow)) continue;
    if (!patternMatches(rule.pattern, path)) continue;
    if (len > best || rule.allow) allowed = rule.allow;
    best = len;
  }
  return allowed;
}
