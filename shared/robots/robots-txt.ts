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

/**
 * The token a crawler's groups are matched with: a valid product token as given; a User-Agent
 * header (`trawl/1.0 (+https://…)`) by its product token; anything else as given, so it matches
 * no named group. Google's parser does the same: a crawler that calls itself "Foo Bar" (a space
 * cannot be in a token) obeys `*`, not the `Foo` group (its AcceptUserAgentUpToFirstSpace case).
 */
function matchedToken(given: string): string {
  const trimmed = given.trim();
  if (/^[A-Za-z_-]+$/.test(trimmed) || /^[A-Za-z_-]+\//.test(trimmed)) return productToken(trimmed);
  return trimmed.toLowerCase();
}

/**
 * Google's parser (github.com/google/robotstxt) keeps at most this many bytes of a line and drops
 * the rest (2083 × 8 − 1: eight times the longest URL some browsers take, less the buffer's end).
 * Matched here so a long Allow or Disallow value is cut, and matches, as Googlebot's would.
 */
export const ROBOTS_MAX_LINE_BYTES = 2083 * 8 - 1;

/** A line cut to ROBOTS_MAX_LINE_BYTES of UTF-8 (a character the cut splits is dropped whole). */
function cutLine(line: string): string {
  if (line.length * 3 <= ROBOTS_MAX_LINE_BYTES) return line;
  const bytes = Buffer.from(line, 'utf8');
  if (bytes.length <= ROBOTS_MAX_LINE_BYTES) return line;
  let end = ROBOTS_MAX_LINE_BYTES;
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end).toString('utf8');
}

type Key = 'user-agent' | 'allow' | 'disallow' | 'sitemap' | 'crawl-delay' | 'other';

/** A line's key, by its start as Google's parser reads it (case-insensitive, with the frequent typos). */
function keyOf(raw: string): Key {
  const k = raw.toLowerCase();
  if (k.startsWith('user-agent') || k.startsWith('useragent') || k.startsWith('user agent')) return 'user-agent';
  if (k.startsWith('allow')) return 'allow';
  if (['disallow', 'dissallow', 'dissalow', 'disalow', 'diasllow', 'disallaw'].some((t) => k.startsWith(t))) return 'disallow';
  if (k.startsWith('sitemap') || k.startsWith('site-map')) return 'sitemap';
  if (k.replace(/[\s_]/g, '-') === 'crawl-delay') return 'crawl-delay';
  return 'other';
}

/** `key: value`, or — Google's allowance for a forgotten colon — `key value` when the line is exactly two words. */
function keyValue(line: string): { key: Key; value: string } | undefined {
  const colon = line.indexOf(':');
  if (colon >= 0) {
    const key = line.slice(0, colon).trim();
    return key ? { key: keyOf(key), value: line.slice(colon + 1).trim() } : undefined;
  }
  const words = line.split(/[ \t]+/);
  return words.length === 2 ? { key: keyOf(words[0]!), value: words[1]! } : undefined;
}

/** A User-agent line's value as it is matched: `*` (also `* anything`), or its product token up to the first character that cannot be in one. */
function agentOf(value: string): string {
  if (value === '*' || /^\*\s/.test(value)) return '*';
  return (/^[A-Za-z_-]*/.exec(value)?.[0] ?? '').toLowerCase();
}

function parseLines(text: string): Group[] & { sitemaps?: string[] } {
  const groups: Group[] = [];
  const sitemaps: string[] = [];
  let current: Group | undefined;
  // A run of User-agent lines opens one group; only a rule (Allow, Disallow) closes the run —
  // Sitemap, Crawl-delay and unknown lines do not, as in Google's parser.
  let inAgents = false;
  for (const raw of text.replace(/^\uFEFF/, '').split(/\r\n|\r|\n/)) {
    const line = cutLine(raw).replace(/#.*$/, '').trim();
    const kv = line && keyValue(line);
    if (!kv) continue;
    const { key, value } = kv;
    if (key === 'user-agent') {
      if (!current || !inAgents) {
        current = { agents: [], rules: [], crawlDelays: [] };
        groups.push(current);
      }
      current.agents.push(agentOf(value));
      inAgents = true;
    } else if (key === 'sitemap') {
      if (value) sitemaps.push(value);
    } else if (!current) {
      continue; // rules before any user-agent line belong to no group (RFC 9309 §2.1)
    } else if (key === 'allow' || key === 'disallow') {
      inAgents = false;
      // An empty Disallow allows everything: it adds no rule.
      if (!value) continue;
      const allow = key === 'allow';
      current.rules.push({ pattern: normalizeRobotsPath(value), allow });
      // Google's parser: allowing a directory's index.htm(l) allows the directory itself.
      const slash = value.lastIndexOf('/');
      if (allow && slash >= 0 && value.slice(slash).startsWith('/index.htm'))
        current.rules.push({ pattern: normalizeRobotsPath(`${value.slice(0, slash + 1)}$`), allow: true });
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
  const token = matchedToken(userAgentToken);
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
