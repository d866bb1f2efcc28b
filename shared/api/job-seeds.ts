import { UsageError, errorMessage } from '../errors.js';
import { preflight } from '../fetch/preflight.js';
import { routeTarget } from '../targets/route.js';

/** Seeds one crawl job started over HTTP or MCP may have: more is a site list, for `crawls.json` or the CLI. */
export const MAX_JOB_SEEDS = 100;

/**
 * Checks a job's seeds before a job exists, so a bad one is a 400 (or a tool error) naming it,
 * never a job that fails later: each must be a target trawl can fetch (an http(s) URL, a search
 * query or a social account; no `file:` or `javascript:`), and a URL on a private or loopback
 * address needs a server started with `--allow-private-network`.
 */
export async function checkJobSeeds(seeds: readonly string[], allowPrivateNetwork: boolean): Promise<void> {
  if (seeds.length === 0) throw new UsageError('no seeds: give at least one URL, search query or social account');
  if (seeds.length > MAX_JOB_SEEDS)
    throw new UsageError(`${seeds.length} seeds: a job takes at most ${MAX_JOB_SEEDS}; start several jobs, or list the sites in crawls.json`);
  for (const seed of seeds) {
    const target = routeTarget(seed);
    if (target.kind !== 'url') continue;
    try {
      await preflight(target.url, { allowPrivateNetwork, unresolved: 'pass' });
    } catch (err) {
      throw new UsageError(errorMessage(err), { cause: err });
    }
  }
}
