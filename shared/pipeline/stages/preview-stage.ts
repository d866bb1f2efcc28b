// Link previews in a focused crawl (`--preview`): the heads (title, meta description) of a page's
// best new links on its own host, fetched within the host's turn — its robots.txt, its delay and
// one request at a time, as any request to it — read only up to </head>, archived as `preview`
// interactions, and scored with the link (the title and description weigh most).
import { recordInteraction } from '../../archive/interaction.js';
import type { FetchResponse } from '../../fetch/http-fetcher.js';
import { afterRequest, readyAt, type HostState, type PolitenessConfig } from '../../politeness/host-state.js';
import { robotsAllows, type RobotsPolicy } from '../../robots/robots-policy.js';
import { termsOf } from '../../scoring/contextual.js';
import { focusScore } from '../../scoring/focus.js';
import { headOf } from '../../scoring/head-preview.js';
import type { LinkCandidate } from './admission.js';
import type { Gate } from '../../util/gate.js';
import type { CrawlContext } from './context.js';
import { responseEvent } from './process-stage.js';

export interface PreviewHost {
  host: string;
  state: HostState;
  robots?: RobotsPolicy;
}

export interface PreviewDeps {
  ctx: CrawlContext;
  runId: number;
  politeness: PolitenessConfig;
  /** Whether the run has seen the URL already (a known URL is not previewed again). */
  known: (href: string) => boolean;
  /** Waits until the time given (the host's next allowed request). */
  wait: (until: number) => Promise<void>;
  /** The crawl-wide limit of previews in flight (5 at once across hosts). */
  gate: Gate;
}

/** Previews in flight at once across hosts. */
export const PREVIEWS_AT_ONCE = 5;

/**
 * Previews the best `limit` new same-host page links of a processed page (by their score without a
 * preview) and puts their head title and description on the candidates. Returns the host's state
 * after the requests (delays and back-offs apply as to any request).
 */
export async function previewStage(deps: PreviewDeps, host: PreviewHost, candidates: LinkCandidate[], limit: number): Promise<HostState> {
  const { ctx } = deps;
  const fetcher = ctx.previewFetcher;
  if (!fetcher) return host.state;
  const seen = new Set<string>();
  const terms = [...new Set(termsOf(ctx.scoring.query))];
  const picks = candidates
    .filter((c) => c.kind === 'page' && !c.nofollow && c.link?.sameHost)
    .map((c) => ({ c, url: ctx.canonicalize(c.href) }))
    .filter((x): x is { c: LinkCandidate; url: string } => {
      if (!x.url || seen.has(x.url) || new URL(x.url).host !== host.host || deps.known(x.url)) return false;
      seen.add(x.url);
      return true;
    })
    // By the link's own score (a link without a word of the topic is what a preview can rescue); never an excluded one.
    .map((x) => ({ ...x, s: focusScore(ctx.scoring.profile, terms, { url: x.url, depth: x.c.depth, inlinks: 0, fresh: false, ...x.c.link }) }))
    .filter((x) => !x.s.excluded)
    .map((x) => ({ ...x, score: x.s.total }))
    .sort((a, b) => b.score - a.score || (a.url < b.url ? -1 : 1))
    .slice(0, limit);
  let state = host.state;
  for (const { c, url } of picks) {
    const { pathname, search } = new URL(url);
    if (host.robots && !robotsAllows(host.robots, pathname + search)) continue;
    if (state.parkedReason || state.backoffUntil > ctx.clock()) break;
    await deps.wait(readyAt(state));
    const at = ctx.clock();
    let res: FetchResponse | undefined;
    let error: string | undefined;
    try {
      res = await deps.gate.run(() => fetcher.fetch({ url, kind: 'page', stopAfter: '</head>' }));
    } catch (err) {
      error = (err as Error).message;
    }
    state = afterRequest(state, res ? responseEvent(ctx, res) : { kind: 'network-error', message: error ?? 'no response', at: ctx.clock() }, deps.politeness);
    await recordInteraction(ctx, deps.runId, { url, kind: 'page', stopAfter: '</head>' }, 'preview', { res, error, at });
    const head = res && headOf(res, url);
    if (head) c.link = { ...c.link, ...head };
  }
  return state;
}
