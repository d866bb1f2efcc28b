import type { HostRenderStats } from '../render/decision.js';
/** Everything the scheduler knows about one host; transitions are pure functions of the state, the event and the clock. */
export interface HostState {
  host: string;
  /** Earliest time the next request may start. */
  nextAllowedAt: number;
  /** Set by 429/503 or network trouble: no request before this time. */
  backoffUntil: number;
  /** 429/503 responses in a row without Retry-After: the exponent of the back-off. */
  backoffStep: number;
  consecutiveFailures: number;
  /** robots.txt reads that found the host unreachable, in a row (a readable robots.txt resets it). */
  robotsFailures?: number;
  crawlDelayMs: number;
  parkedReason?: string;
  /** What rendering brought this host in the current run (the render decision reads it). */
  render?: HostRenderStats;
}

export interface PolitenessConfig {
  /** The floor between two requests to one host; max(Crawl-delay, delayMs) applies. */
  delayMs: number;
  backoffBaseMs: number;
  backoffMaxMs: number;
  /** A Retry-After longer than this parks the host instead of waiting. */
  maxRetryAfterMs: number;
  /** This many failures in a row park the host. */
  maxConsecutiveFailures: number;
  /** A robots.txt Crawl-delay above this parks the host: we never crawl faster than a site asks. */
  maxCrawlDelayMs: number;
}

export type ResponseEvent =
  | { kind: 'response'; status: number; retryAfterMs?: number; at: number }
  | { kind: 'network-error'; message: string; at: number }
  /** The address guard refused the host: no request can ever reach it, so it is parked at once. */
  | { kind: 'refused'; message: string; at: number };

export function newHostState(host: string): HostState {
  return { host, nextAllowedAt: 0, backoffUntil: 0, backoffStep: 0, consecutiveFailures: 0, crawlDelayMs: 0 };
}

/** The gap after each request: the larger of the site's Crawl-delay and our configured delay. */
export function hostDelayMs(state: HostState, config: PolitenessConfig): number {
  return Math.max(state.crawlDelayMs, config.delayMs);
}

/** Exponential back-off: base × 2^step, capped. Defaults: 30 s doubling up to 10 min. */
export function backoffMs(step: number, config: PolitenessConfig): number {
  return Math.min(config.backoffMaxMs, config.backoffBaseMs * 2 ** step);
}

function park(state: HostState, reason: string): HostState {
  return { ...state, parkedReason: reason };
}

/** Whether a status asks us to slow down (RFC 9110 §15.5.30 / §15.6.4). */
export function isThrottle(status: number): boolean {
  return status === 429 || status === 503;
}

/** The host after a request finished: delay, back-off, failure count and parking. */
export function afterRequest(state: HostState, event: ResponseEvent, config: PolitenessConfig): HostState {
  const delay = hostDelayMs(state, config);
  if (event.kind === 'refused') return park(state, `address refused: ${event.message}`);
  if (event.kind === 'network-error') {
    const failures = state.consecutiveFailures + 1;
    const wait = backoffMs(state.backoffStep, config);
    const next = {
      ...state,
      consecutiveFailures: failures,
      backoffStep: state.backoffStep + 1,
      backoffUntil: event.at + wait,
      nextAllowedAt: event.at + Math.max(delay, wait),
    };
    return failures >= config.maxConsecutiveFailures ? park(next, `${failures} network failures in a row (last: ${event.message})`) : next;
  }
  const { status } = event;
  if (isThrottle(status)) {
    const wait = event.retryAfterMs ?? backoffMs(state.backoffStep, config);
    const failures = state.consecutiveFailures + 1;
    const next = {
      ...state,
      consecutiveFailures: failures,
      backoffStep: event.retryAfterMs === undefined ? state.backoffStep + 1 : state.backoffStep,
      backoffUntil: event.at + wait,
      nextAllowedAt: event.at + Math.max(delay, wait),
    };
    if (wait > config.maxRetryAfterMs) return park(next, `HTTP ${status} asked to wait ${Math.round(wait / 1000)} s, longer than the limit`);
    return failures >= config.maxConsecutiveFailures ? park(next, `${failures} HTTP ${status} responses in a row`) : next;
  }
  if (status >= 500) {
    const failures = state.consecutiveFailures + 1;
    const next = { ...state, consecutiveFailures: failures, nextAllowedAt: event.at + delay };
    return failures >= config.maxConsecutiveFailures ? park(next, `${failures} server errors in a row (last: HTTP ${status})`) : next;
  }
  return { ...state, consecutiveFailures: 0, backoffStep: 0, nextAllowedAt: event.at + delay };
}

/**
 * The host after its robots.txt told it a Crawl-delay: recorded as asked, and a delay above the
 * cap parks the host with the reason (clamping it would crawl faster than the site asks).
 */
export function withCrawlDelay(state: HostState, crawlDelayMs: number, config: PolitenessConfig): HostState {
  const next = { ...state, crawlDelayMs: Math.min(crawlDelayMs, config.maxCrawlDelayMs) };
  if (crawlDelayMs <= config.maxCrawlDelayMs) return next;
  return park(next, `Crawl-delay of ${formatSeconds(crawlDelayMs)} is above the ${formatSeconds(config.maxCrawlDelayMs)} cap (--max-crawl-delay-ms)`);
}

function formatSeconds(ms: number): string {
  return ms >= 1e12 ? `${(ms / 1000).toExponential(1)} s` : `${Math.round(ms / 1000)} s`;
}

/**
 * The host as a visit to it begins (a render, whose requests go on for a while): its next visit
 * waits its delay from now, as after a request answered now.
 */
export function visitStarted(state: HostState, config: PolitenessConfig, at: number): HostState {
  return { ...state, nextAllowedAt: Math.max(state.nextAllowedAt, at + hostDelayMs(state, config)) };
}

/** When the host may next be asked, honouring back-off. */
export function readyAt(state: HostState): number {
  return Math.max(state.nextAllowedAt, state.backoffUntil);
}
