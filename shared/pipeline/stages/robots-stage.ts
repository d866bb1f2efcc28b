import { AddressRefusedError, errorMessage } from '../../errors.js';
import { decodeBody } from '../../fetch/charset.js';
import type { Fetcher, FetchResponse } from '../../fetch/http-fetcher.js';
import { robotsCrawlDelayMs, robotsPolicyFrom, robotsSitemaps, type RobotsPolicy } from '../../robots/robots-policy.js';
import { ROBOTS_MAX_BYTES } from '../../robots/robots-txt.js';
import type { HostRecord } from '../../ports/index.js';
import { afterRequest, backoffMs, withCrawlDelay, type HostState, type PolitenessConfig } from '../../politeness/host-state.js';
import { parseRetryAfter } from '../../politeness/retry-after.js';
import { politenessConfig, type CrawlContext } from './context.js';
import type { LinkCandidate } from './admission.js';
import { recordInteraction } from '../../archive/interaction.js';

/** RFC 9309 §2.3.1.2: follow at least five consecutive redirects for robots.txt. */
const ROBOTS_MAX_HOPS = 5;

export interface RobotsLoad {
  policy: RobotsPolicy;
  /** True when robots.txt was requested (not served from the store's cache). */
  requested: boolean;
  /** The status of the last response, if any, for the host's politeness state. */
  lastStatus?: number;
  retryAfter?: string;
  error?: string;
  /** The host has never answered robots.txt (no answer stored from any run): its first contact. */
  firstContact?: boolean;
}

/** Failures that say nothing answers at that name or address, as opposed to a slow or busy host. */
const NOTHING_THERE = /ENOTFOUND|EAI_NONAME|ECONNREFUSED|CERT_|certificate/i;

export interface RobotsFetch {
  policy: RobotsPolicy;
  /** The last response (after redirects), if any. */
  res?: FetchResponse;
  /** The first 500 KiB of the body, decoded. */
  body?: string;
  error?: string;
}

/**
 * Fetches robots.txt of an origin, following up to five redirects, and says what it means for
 * `token`. `onHop` sees every request, for the archive.
 */
export async function fetchRobotsTxt(
  fetcher: Fetcher,
  origin: string,
  token: string,
  onHop?: (url: string, res: FetchResponse | undefined, error: string | undefined) => Promise<void>,
): Promise<RobotsFetch> {
  let url = `${origin}/robots.txt`;
  let res: FetchResponse | undefined;
  let error: string | undefined;
  let refused = false;
  for (let hop = 0; hop <= ROBOTS_MAX_HOPS; hop++) {
    try {
      res = await fetcher.fetch({ url, kind: 'robots' });
      error = undefined;
    } catch (err) {
      error = errorMessage(err);
      refused = err instanceof AddressRefusedError;
      res = undefined;
    }
    await onHop?.(url, res, error);
    if (!res?.location || res.status < 300 || res.status >= 400) break;
    url = res.location;
  }
  const body = res?.body ? decodeBody(res.body.subarray(0, ROBOTS_MAX_BYTES), 'utf-8') : undefined;
  return { policy: robotsPolicyFrom({ status: res?.status, body, error, refused }, token), res, body, error };
}

/**
 * The host after a robots.txt load: its Crawl-delay; after a request, the delay it owes; when
 * robots.txt was unreachable (`failures` times in a row), the back-off, and parking at `maxFailures`.
 */
export function hostAfterRobots(state: HostState, load: RobotsLoad, failures: number, config: PolitenessConfig, now: number): HostState {
  if (load.policy.kind === 'refused') return afterRequest(state, { kind: 'refused', message: load.policy.reason, at: now }, config);
  const next = withCrawlDelay(state, robotsCrawlDelayMs(load.policy), config);
  if (load.policy.kind === 'unreachable') {
    const wait = parseRetryAfter(load.retryAfter, now) ?? backoffMs(failures - 1, config);
    const backedOff: HostState = { ...next, backoffUntil: now + wait, nextAllowedAt: now + Math.max(wait, config.delayMs) };
    if (failures >= config.maxConsecutiveFailures) backedOff.parkedReason = `robots.txt unreachable ${failures} times (${load.policy.reason})`;
    // A host that never answered and whose name does not resolve, or that refuses the connection, is
    // not retried for the rest of the run: backing off would only delay the end, and the cause.
    else if (load.firstContact && failures === 1 && NOTHING_THERE.test(load.policy.reason)) backedOff.parkedReason = `never answered: ${load.policy.reason}`;
    return backedOff;
  }
  return load.requested ? afterRequest(next, { kind: 'response', status: 200, at: now }, config) : next;
}

/** Reads robots.txt for a host: from the store (or the `stored` record the caller just read) while its TTL lasts, else over the network (following ≤ 5 redirects). */
export async function loadRobots(
  ctx: CrawlContext,
  runId: number,
  { origin, host, state: hostState, stored }: { origin: string; host: string; state: HostState; stored?: HostRecord },
): Promise<RobotsLoad> {
  const now = ctx.clock();
  const cached = stored ?? (await ctx.store.getHost(host));
  if (cached?.robotsStatus !== undefined && (cached.robotsExpiresAt ?? 0) > now) {
    return { policy: robotsPolicyFrom({ status: cached.robotsStatus, body: cached.robotsBody }, ctx.robotsToken), requested: false };
  }
  const { policy, res, body, error } = await fetchRobotsTxt(ctx.fetcher, origin, ctx.robotsToken, (url, hop, hopError) =>
    recordInteraction(ctx, runId, { url, kind: 'robots' }, 'robots', { res: hop, error: hopError, at: now }),
  );
  const transient = policy.kind === 'unreachable' || policy.kind === 'refused';
  const record: HostRecord = {
    host,
    state: hostState,
    robotsStatus: res?.status,
    robotsBody: body,
    robotsError: error,
    robotsFetchedAt: now,
    // An unreachable or refused robots.txt is not cached: it is asked again after the host's back-off (or next run).
    robotsExpiresAt: transient ? undefined : now + ctx.settings.robotsTtlMs,
  };
  await ctx.store.putHost(transient ? { ...record, robotsStatus: undefined } : record);
  return { policy, requested: true, lastStatus: res?.status, retryAfter: res?.headers['retry-after'], error, firstContact: cached?.robotsStatus === undefined };
}

/** What one robots.txt turn of a host gives: robots.txt as loaded, the host's state after it, and the sitemaps it names. */
export interface RobotsTurn {
  load: RobotsLoad;
  state: HostState;
  /** The sitemaps robots.txt names, as candidates of depth 0 (none when it was unreachable). */
  sitemaps: LinkCandidate[];
}

/**
 * A host's robots.txt turn, as both runtimes take it: robots.txt read (from the store while its
 * TTL lasts, else over the network: `stored` is the host's record when the caller just read it),
 * the unreachable reads in a row counted in the host's state (`robotsFailures`: one more for an
 * unreachable robots.txt, back to 0 for a readable one), the host's state moved on (its Crawl-delay,
 * its back-off, parked after too many failures or a first contact that found nothing there).
 */
export async function robotsTurn(
  ctx: CrawlContext,
  runId: number,
  at: { origin: string; host: string; state: HostState; stored?: HostRecord },
): Promise<RobotsTurn> {
  const load = await loadRobots(ctx, runId, at);
  const failures = load.policy.kind === 'unreachable' ? (at.state.robotsFailures ?? 0) + 1 : 0;
  const state = hostAfterRobots({ ...at.state, robotsFailures: failures }, load, failures, politenessConfig(ctx.settings), ctx.clock());
  const sitemaps =
    load.policy.kind === 'unreachable' ? [] : robotsSitemaps(load.policy).map((href): LinkCandidate => ({ href, depth: 0, kind: 'sitemap', structural: true }));
  return { load, state, sitemaps };
}
