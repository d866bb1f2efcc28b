import { isPathAllowed, parseRobotsTxt, type RobotsRules } from './robots-txt.js';

/** What robots.txt says about a host right now, from how its fetch ended (RFC 9309 §2.3.1). */
export type RobotsPolicy =
  | { kind: 'rules'; rules: RobotsRules }
  | { kind: 'allow-all'; status: number }
  | { kind: 'unreachable'; reason: string }
  /** The address guard refused the host: not transient, so the host is parked at once. */
  | { kind: 'refused'; reason: string };

export interface RobotsFetchOutcome {
  /** Final HTTP status after redirects, or undefined when no response came. */
  status?: number;
  body?: string;
  error?: string;
  /** The address guard refused to connect (a private or metadata address). */
  refused?: boolean;
}

/**
 * 2xx: parse. 4xx ("unavailable"): everything allowed, except 429, which we treat like 5xx
 * because it asks us to slow down. 5xx, timeouts and network errors ("unreachable"):
 * the whole host is disallowed until robots.txt can be read.
 */
export function robotsPolicyFrom(outcome: RobotsFetchOutcome, userAgentToken: string): RobotsPolicy {
  const { status } = outcome;
  if (outcome.refused) return { kind: 'refused', reason: outcome.error ?? 'address refused' };
  if (status === undefined) return { kind: 'unreachable', reason: outcome.error ?? 'no response' };
  if (status >= 200 && status < 300) return { kind: 'rules', rules: parseRobotsTxt(outcome.body ?? '', userAgentToken) };
  if (status === 429) return { kind: 'unreachable', reason: 'HTTP 429' };
  if (status >= 400 && status < 500) return { kind: 'allow-all', status };
  if (status >= 300 && status < 400) return { kind: 'allow-all', status }; // more than 5 redirects: unavailable (§2.3.1.2)
  return { kind: 'unreachable', reason: `HTTP ${status}` };
}

export function robotsAllows(policy: RobotsPolicy, pathAndQuery: string): boolean {
  if (policy.kind === 'allow-all') return true;
  if (policy.kind === 'unreachable' || policy.kind === 'refused') return pathAndQuery === '/robots.txt';
  return isPathAllowed(policy.rules, pathAndQuery);
}

export function robotsCrawlDelayMs(policy: RobotsPolicy): number {
  return policy.kind === 'rules' ? (policy.rules.crawlDelayMs ?? 0) : 0;
}

export function robotsSitemaps(policy: RobotsPolicy): string[] {
  return policy.kind === 'rules' ? policy.rules.sitemaps : [];
}
