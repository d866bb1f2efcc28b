// Discover: a crawl's search queries and social accounts become frontier URLs. Each target is
// called through its backend (archived as a search or social interaction), stored as a "page" of
// its own whose body is the typed content, with one edge per result or link in a post (anchor:
// the result's title or the post's text), so the link graph says where every URL came from. The
// links enter the frontier at depth 1 and their origins join the run's scope, as a seed's would.
import type { WarcWriter } from '../../archive/warc-writer.js';
import type { CrawlSettings } from '../../config/settings.js';
import type { Env } from '../../config/resolve.js';
import { errorMessage } from '../../errors.js';
import type { Resolver } from '../../fetch/address-guard.js';
import type { Fetcher } from '../../fetch/http-fetcher.js';
import type { BlobStore, CrawlStore, EdgeRecord, PageRecord, RunRecord } from '../../ports/index.js';
import { ApiClient } from '../../targets/api-client.js';
import type { FetchedContent } from '../../targets/content.js';
import { routeTarget, type Target } from '../../targets/route.js';
import { fetchTarget, replayApi } from '../../targets/target-fetch.js';
import { targetLinks, targetMime, type TargetLink } from '../../targets/target-links.js';
import { urlId } from '../../url/canonical.js';
import type { LinkCandidate } from './admission.js';

/** A target that is not a URL: what Discover calls. */
export type ApiTarget = Exclude<Target, { kind: 'url' }>;

export interface DiscoverDeps {
  store: CrawlStore;
  blobs: BlobStore;
  archive?: WarcWriter;
  /** Only for the shape of a call's dependencies: API targets make no page request. */
  fetcher: Fetcher;
  client: ApiClient;
  /** Where the backends' endpoints and keys are read (`TRAWL_SEARXNG_URL`, `TRAWL_BRAVE_API_KEY`, `APIFY_TOKEN`, …). */
  env: Env;
  robotsToken: string;
  clock: () => number;
  canonicalize: (href: string) => string | null;
}

/** What one target gave the run. */
export interface TargetDiscovery {
  target: string;
  key: string;
  kind: 'search' | 'social';
  /** `live`: called now; `archive`: this run's stored answer (a resumed run calls nothing twice). */
  source: 'live' | 'archive';
  /** URLs it led to. */
  links: number;
  /** Why the call failed (archived as a failed interaction); the crawl goes on without its links. */
  error?: string;
}

export interface Discovered {
  candidates: LinkCandidate[];
  /** The origins of the links: they join the run's scope. */
  scope: string[];
  discoveries: TargetDiscovery[];
}

/** The targets of a run that are not URLs: kept in its config, so a resumed run (or the cloud's Discover step) finds them. */
export function runTargets(run: Pick<RunRecord, 'config'>): string[] {
  const targets = run.config.targets;
  return Array.isArray(targets) ? targets.filter((t): t is string => typeof t === 'string') : [];
}

/** The HTTP client of the search and social backends, with the crawl's User-Agent, timeout and address guard. */
export function apiClientFor(settings: Pick<CrawlSettings, 'userAgent' | 'allowPrivateNetwork' | 'timeoutMs'>, resolver?: Resolver): ApiClient {
  return new ApiClient({ userAgent: settings.userAgent, allowPrivateNetwork: settings.allowPrivateNetwork, resolver, timeoutMs: settings.timeoutMs });
}

/** The target's "page": its key as URL, the typed content (a blob) as body, never indexed. */
function targetPage(runId: number, t: ApiTarget, content: FetchedContent, hash: string, bytes: number): PageRecord {
  const type = content.type === 'social-posts' ? 'social-posts' : 'search-results';
  return {
    urlId: urlId(t.key),
    url: t.key,
    host: t.kind === 'search' ? 'search' : t.platform,
    runId,
    status: 200,
    mime: targetMime(type),
    contentHash: hash,
    bytes,
    truncated: false,
    fetchedAt: content.fetchedAt,
    title: t.kind === 'search' ? t.query : t.key,
    indexable: false,
    nofollow: false,
    fetcher: 'http',
  };
}

function targetEdge(fromId: string, snapshot: string, link: TargetLink): EdgeRecord {
  return {
    fromId,
    snapshot,
    toId: urlId(link.url),
    toUrl: link.url,
    anchor: link.anchor,
    context: link.context,
    section: 'body',
    rel: '',
    internal: false,
    nofollow: false,
  };
}

/** This run's stored answer for the target, when `reuse` asks for it and there is one; else a live call. */
async function targetContent(
  deps: DiscoverDeps,
  runId: number,
  input: string,
  t: ApiTarget,
  options: { limit?: number; reuse?: boolean },
): Promise<{ content: FetchedContent; source: 'live' | 'archive' }> {
  if (options.reuse) {
    try {
      return { content: await replayApi(deps, input, t.key, runId), source: 'archive' };
    } catch {
      // Never answered in this run (killed before the call, or it failed): call it now.
    }
  }
  const content = await fetchTarget({ ...deps, runId }, input, { limit: options.limit });
  return { content, source: 'live' };
}

/** Calls one target and stores its page and edges; returns its links as canonical URLs. */
async function discoverOne(
  deps: DiscoverDeps,
  runId: number,
  input: string,
  options: { limit?: number; reuse?: boolean },
): Promise<{ discovery: TargetDiscovery; links: TargetLink[] }> {
  const t = routeTarget(input) as ApiTarget;
  const base = { target: input, key: t.key, kind: t.kind } as const;
  let got: Awaited<ReturnType<typeof targetContent>>;
  try {
    got = await targetContent(deps, runId, input, t, options);
  } catch (err) {
    return { discovery: { ...base, source: 'live', links: 0, error: errorMessage(err) }, links: [] };
  }
  const links: TargetLink[] = [];
  const seen = new Set<string>();
  for (const link of targetLinks(got.content)) {
    const url = deps.canonicalize(link.url);
    if (!url || seen.has(url)) continue;
    seen.add(url);
    links.push({ ...link, url });
  }
  // The same bytes the archive keeps for the call: content-addressed, so storing them again is a no-op.
  const body = Buffer.from(JSON.stringify(got.content));
  const hash = await deps.blobs.put(body);
  const fromId = urlId(t.key);
  await deps.store.commitFetch({
    runId,
    urlId: fromId,
    state: 'done',
    attempts: 1,
    page: targetPage(runId, t, got.content, hash, body.length),
    edges: links.map((l) => targetEdge(fromId, hash, l)),
  });
  return { discovery: { ...base, source: got.source, links: links.length }, links };
}

/**
 * Calls each target (or, with `reuse`, takes this run's stored answer), stores its page and edges,
 * and returns the links as depth-1 candidates with the target as their source. A failed call
 * fails only its target.
 */
export async function discoverTargets(
  deps: DiscoverDeps,
  runId: number,
  targets: readonly string[],
  options: { limit?: number; reuse?: boolean } = {},
): Promise<Discovered> {
  const out: Discovered = { candidates: [], scope: [], discoveries: [] };
  const origins = new Set<string>();
  for (const input of targets) {
    const { discovery, links } = await discoverOne(deps, runId, input, options);
    out.discoveries.push(discovery);
    for (const link of links) {
      origins.add(new URL(link.url).origin);
      out.candidates.push({
        href: link.url,
        depth: 1,
        kind: 'page',
        from: discovery.key,
        link: { anchor: link.anchor, context: link.context, section: 'body', sameHost: false },
      });
    }
  }
  out.scope = [...origins].sort();
  return out;
}
