// Opening a run: a new one (the unfinished run before it abandoned, what it deferred carried
// over) or the latest resumed (its crawl state rebuilt from the store as the killed crawl left it).
import { cookiesAtRest } from '../../fetch/session-cookies.js';
import { UsageError } from '../../errors.js';
import { newHostState } from '../../politeness/host-state.js';
import { resumedPriority } from '../../frontier/priority.js';
import type { ArchivedAnswer, CrawlStore, FrontierRow, RunRecord } from '../../ports/index.js';
import { wasFetchedPage } from '../stages/run-records.js';
import type { Admitter, LinkCandidate } from '../stages/admission.js';
import type { CrawlContext } from '../stages/context.js';
import { knownOf, type CrawlState } from './crawl-state.js';

/** Whether the data directory's latest run can be resumed, and why not. */
export async function resumableRun(store: CrawlStore, dataDir: string): Promise<RunRecord> {
  const latest = await store.latestRun();
  const deferred = latest?.status === 'finished' ? (await store.deferredUrls(latest.id)).length : 0;
  if (!latest || latest.status === 'abandoned' || (latest.status === 'finished' && deferred === 0)) {
    const why = latest
      ? `the last crawl (run ${latest.id}) is ${latest.status}${latest.status === 'finished' ? ' with nothing deferred' : ''}`
      : 'no crawl has run there';
    throw new UsageError(`nothing to resume in ${dataDir}: ${why}; start a crawl without --resume`);
  }
  return latest;
}

/** The candidates a new run takes over from the run before it: URLs that run deferred (their hosts were backed off). */
export async function carriedOver(
  store: CrawlStore,
  previous: RunRecord | undefined,
): Promise<{ candidates: LinkCandidate[]; notBefore: Map<string, number> }> {
  const rows = previous ? await store.deferredUrls(previous.id) : [];
  return {
    candidates: rows.map((r) => ({ href: r.url, depth: r.depth, kind: r.kind, fresh: r.fresh, from: r.discoveredFrom })),
    notBefore: new Map(rows.map((r) => [r.url, r.notBefore])),
  };
}

/** A run's seeds as the candidates they start as. */
export function seedCandidates(seeds: readonly string[]): LinkCandidate[] {
  return seeds.map((href): LinkCandidate => ({ href, depth: 0, kind: 'page', structural: true }));
}

/** A new run: an unfinished run before it is abandoned (with a warning), and what the previous run deferred is carried over. */
export async function createRun(
  ctx: CrawlContext,
  seeds: string[],
  targets: string[],
): Promise<{ run: RunRecord; carried: Awaited<ReturnType<typeof carriedOver>> }> {
  const latest = await ctx.store.latestRun();
  if (latest?.status === 'running' || latest?.status === 'interrupted') {
    await ctx.store.setRunStatus(latest.id, 'abandoned', ctx.clock());
    ctx.logger.warn('an unfinished crawl was abandoned; pass --resume to continue one instead', { runId: latest.id });
  }
  const carried = await carriedOver(ctx.store, latest);
  // The run's config as stored: session cookies by reference only, never their values.
  const config = { ...ctx.settings, cookies: cookiesAtRest(ctx.settings.cookies), ...(targets.length ? { targets } : {}) };
  const run = await ctx.store.createRun(seeds, config, ctx.clock());
  return { run, carried };
}

/**
 * A resumed run's crawl state as the killed crawl left it: its in-flight URLs requeued (or failed
 * past their attempts), what it had seen (and the trap counters), its queued URLs in their hosts'
 * queues with each host's back-off and parking kept and one delay before its first request.
 * Returns the pages it had fetched (its used budget), what was requeued, and the answers the
 * archive holds for URLs in flight (`archived`: processed from there, first in their hosts' queues).
 */
export async function restoreRun(
  ctx: CrawlContext,
  run: RunRecord,
  state: CrawlState,
  admitter: Admitter,
  delayMs: number,
): Promise<{ pagesFetched: number; requeued: number; exhausted: number; archived: Map<string, ArchivedAnswer> }> {
  const answers = ctx.store.uncommittedAnswers?.(run.id) ?? new Map<string, ArchivedAnswer>();
  const { requeued, exhausted } = await ctx.store.requeueInFlight(run.id, ctx.settings.maxAttempts);
  const archived = new Map<string, ArchivedAnswer>();
  const seen = await ctx.store.seenUrls(run.id);
  for (const s of seen) {
    state.known.set(s.urlId, knownOf(s.state, s.reason));
    if (!s.reason?.startsWith('trap:')) admitter.traps.admit(s.url); // rebuild the per-run trap counters
  }
  const counts = resumeCounts(seen);
  // Best first: past the frontier's memory bound a host's later URLs wait in the store.
  const first = (row: FrontierRow) => resumedPriority(row.priority, answers.has(row.urlId));
  const queued = (await ctx.store.queuedUrls(run.id)).sort((a, b) => first(b) - first(a));
  for (const row of queued) {
    const q = state.hostQueue(row);
    if (q.size === 0 && !q.robots) {
      const saved = await ctx.store.getHost(row.host);
      q.state = { ...(saved?.state ?? newHostState(row.host)), nextAllowedAt: ctx.clock() + delayMs };
    }
    q.fetched = counts.fetchedPerHost.get(row.host) ?? 0;
    const answer = answers.get(row.urlId);
    if (answer) archived.set(row.urlId, answer);
    // An archived answer costs the host nothing: it goes before the host's other URLs.
    state.enqueue(answer ? { ...row, priority: resumedPriority(row.priority, true) } : row);
  }
  return { pagesFetched: counts.pagesFetched, requeued, exhausted, archived };
}

/** What a resumed run must rebuild from the store: the per-host page counts and the run's used budget. */
interface ResumeCounts {
  pagesFetched: number;
  fetchedPerHost: Map<string, number>;
}

function resumeCounts(seen: Array<{ url: string; kind: FrontierRow['kind']; state: FrontierRow['state']; reason?: string }>): ResumeCounts {
  const fetchedPerHost = new Map<string, number>();
  let pagesFetched = 0;
  for (const s of seen) {
    if (!wasFetchedPage(s)) continue;
    pagesFetched++;
    const host = new URL(s.url).host;
    fetchedPerHost.set(host, (fetchedPerHost.get(host) ?? 0) + 1);
  }
  return { pagesFetched, fetchedPerHost };
}
