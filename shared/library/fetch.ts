// `fetch(target)`: one door to the web for the library. A URL, a search query or a social account
// is fetched through its backend into the data directory's archive and returned as typed content;
// `openStore(dir).fetch(target)` answers the same call from the archive with no network.
import { preflight } from '../fetch/preflight.js';
import { routeTarget } from '../targets/route.js';
import { WarcWriter } from '../archive/warc-writer.js';
import type { Env } from '../config/resolve.js';
import type { Resolver } from '../fetch/address-guard.js';
import { fetcherFor } from '../fetch/http-fetcher.js';
import { fetchRobotsTxt } from '../pipeline/stages/robots-stage.js';
import { robotsAllows, type RobotsPolicy } from '../robots/robots-policy.js';
import { productToken } from '../robots/robots-txt.js';
import { openLocalForWriting } from '../store/local/open-local.js';
import { ApiClient } from '../targets/api-client.js';
import type { FetchedContent } from '../targets/content.js';
import type { SocialPlatform } from '../targets/route.js';
import { fetchTarget, searchSocial as searchSocialCall, type TargetDeps } from '../targets/target-fetch.js';
import { settingsOf } from './crawl.js';
import type { CrawlSettingsOptions } from './settings-options.js';

export interface FetchOptions extends CrawlSettingsOptions {
  /** Results or posts at most (defaults: search 10, Reddit 25, other platforms 20). */
  limit?: number;
  /** Where the provider settings and keys are read (`TRAWL_SEARXNG_URL`, `TRAWL_BRAVE_API_KEY`, …). @default process.env */
  env?: Env;
  resolver?: Resolver;
}

/** Opens the data directory, runs one call into its archive as a run of its own, and closes everything. */
async function withArchive<T>(target: string, options: FetchOptions, call: (deps: TargetDeps) => Promise<T>): Promise<T> {
  const { env = process.env, resolver, limit: _limit, ...rest } = options;
  const settings = settingsOf({ ...rest, env });
  const token = productToken(settings.userAgent);
  const local = openLocalForWriting(settings.data, `trawl fetch ${target}`.slice(0, 200));
  const fetcher = fetcherFor(settings, { resolver });
  const client = new ApiClient({ userAgent: settings.userAgent, allowPrivateNetwork: settings.allowPrivateNetwork, resolver, timeoutMs: settings.timeoutMs });
  const archive = new WarcWriter(local.warcDir, { maxFileBytes: settings.warcMaxBytes, digest: settings.warcDigest });
  const robots = new Map<string, RobotsPolicy>();
  const run = await local.store.createRun([target], { command: 'fetch' }, Date.now());
  try {
    const result = await call({
      store: local.store,
      blobs: local.blobs,
      archive,
      runId: run.id,
      fetcher,
      client,
      env,
      robotsToken: token,
      async robotsAllows(url) {
        const u = new URL(url);
        let policy = robots.get(u.origin);
        if (!policy) robots.set(u.origin, (policy = (await fetchRobotsTxt(fetcher, u.origin, token)).policy));
        return robotsAllows(policy, u.pathname + u.search);
      },
    });
    return result;
  } finally {
    // A call that failed is finished too: its failure is an interaction of the run.
    await local.store.setRunStatus(run.id, 'finished', Date.now());
    archive.close();
    await Promise.all([fetcher.close(), client.close()]);
    await local.close();
  }
}

/**
 * Fetches a URL, a web search query (`search:…` or any words) or a social account (`r/name`,
 * `https://bsky.app/profile/…`, `https://instance/@user`, X/Instagram/TikTok profiles through
 * Apify) and returns typed content; every exchange is archived in the data directory.
 *
 * @example const { results } = await fetch('search:fire sprinkler inspection Minneapolis') as Extract<FetchedContent, { type: 'search-results' }>;
 */
export async function fetch(target: string, options: FetchOptions = {}): Promise<FetchedContent> {
  const route = routeTarget(target);
  // A URL the address guard would refuse says so, naming the flag, rather than as a robots.txt refusal.
  if (route.kind === 'url') {
    const { env = process.env, resolver, limit: _limit, ...rest } = options;
    await preflight(route.url, { allowPrivateNetwork: settingsOf({ ...rest, env }).allowPrivateNetwork, resolver });
  }
  return withArchive(target, options, (deps) => fetchTarget(deps, target, { limit: options.limit }));
}

/** Hashtag or topic search on a platform (`searchSocial('bluesky', ['#housing', 'Minneapolis'])`), archived like `fetch`. */
export function searchSocial(platform: SocialPlatform, topics: string[], options: FetchOptions = {}): Promise<FetchedContent> {
  return withArchive(`${platform}:${topics.join(' ')}`, options, (deps) => searchSocialCall(deps, platform, topics, options.limit));
}
