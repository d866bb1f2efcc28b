import { canonicalize } from '../shared/url/canonical.js';
import { isPathAllowed, parseRobotsTxt } from '../shared/robots/robots-txt.js';
import type { SyntheticWeb } from '../support/web/server.js';

export interface WebMetrics {
  requests: number;
  usefulPages: number;
  duplicateFetches: number;
  trapFetches: number;
  robotsViolations: number;
}

/**
 * Judges a crawl from the server's log: useful pages are distinct canonical URLs answered 200
 * that are neither traps nor disallowed; a duplicate is a second request for a canonical URL
 * that was not a retry after 429/503; violations are judged with RFC 9309 for the crawler's
 * robots.txt token (a robots.txt answering 5xx disallows the whole host).
 */
export function webMetrics(web: SyntheticWeb, robotsToken: string): WebMetrics {
  const robots = new Map<string, ((target: string) => boolean) | null>();
  for (const host of web.hosts) {
    const res = host.handle(
      { path: '/robots.txt', target: '/robots.txt', query: new URLSearchParams(), headers: {} },
      { origin: (n) => web.origins[n]!, hits: new Map(), now: Date.now },
    );
    if (res.status >= 500) robots.set(host.name, () => false);
    else if (res.status >= 400) robots.set(host.name, null);
    else {
      const rules = parseRobotsTxt(String(res.body), robotsToken);
      robots.set(host.name, (t) => isPathAllowed(rules, t));
    }
  }
  const seen = new Map<string, number>();
  const useful = new Set<string>();
  let duplicateFetches = 0;
  let trapFetches = 0;
  let robotsViolations = 0;
  for (const e of web.log) {
    if (e.target === '/robots.txt') continue;
    const spec = web.hosts.find((h) => h.name === e.host)!;
    const canonical = canonicalize(`${web.origins[e.host]}${e.target}`) ?? e.target;
    const allowed = robots.get(e.host);
    if (allowed && !allowed(e.target)) robotsViolations++;
    if (spec.isTrap(e.target)) trapFetches++;
    const previous = seen.get(canonical);
    if (previous !== undefined && previous !== 429 && previous !== 503) duplicateFetches++;
    seen.set(canonical, e.status);
    if (e.status === 200 && !spec.isTrap(e.target) && (!allowed || allowed(e.target))) useful.add(canonical);
  }
  return { requests: web.log.filter((e) => e.target !== '/robots.txt').length, usefulPages: useful.size, duplicateFetches, trapFetches, robotsViolations };
}
