import { DEFAULT_TRAP_LIMITS, trapShape } from '../../frontier/traps.js';
import { admissionFloor } from '../../frontier/priority.js';
import type { FrontierRow, HostTurn } from '../../ports/index.js';
import { inBatches } from '../../util/batches.js';
import { urlId } from '../../url/canonical.js';
import { Admitter, type LinkCandidate } from '../stages/admission.js';
import type { CloudContext } from './cloud-context.js';
import { toFetchCommit, type ProcessResult } from '../stages/process-stage.js';

/**
 * Admits candidates as the embedded runner does (scope, depth, nofollow, trap shapes), with the
 * per-run trap counters kept in the ledger so every worker sees the same counts. SQS has no
 * priorities: a focused crawl gets best-first by admitting only links whose score reaches the
 * profile's threshold (the rest are recorded as skipped `below-threshold`, never sent).
 */
export async function admitCloud(ctx: CloudContext, candidates: LinkCandidate[]): Promise<FrontierRow[]> {
  const minPriority = admissionFloor(ctx.scoring);
  const scope = [...ctx.run.seeds, ...(ctx.run.scope ?? [])];
  const admitter = new Admitter({
    runId: ctx.run.id,
    scope,
    settings: ctx.settings,
    priority: ctx.priority,
    canonical: ctx.canonical,
    clock: ctx.clock,
    minPriority,
  });
  const rows: FrontierRow[] = [];
  const seen = new Set<string>();
  for (const c of candidates) {
    const url = admitter.canonicalize(c.href);
    if (!url || seen.has(urlId(url))) continue;
    seen.add(urlId(url));
    const admission = admitter.admit(c);
    if (!('row' in admission)) continue;
    const { row } = admission;
    if (row.state === 'queued') {
      const shape = trapShape(row.url, DEFAULT_TRAP_LIMITS, ctx.clock());
      if ('variants' in shape) {
        for (const v of shape.variants) {
          if (await ctx.store.rememberVariant(ctx.run.id, v.key, v.value, v.limit)) continue;
          row.state = 'skipped';
          row.reason = v.reason;
          break;
        }
      }
    }
    rows.push(row);
  }
  return rows;
}

/**
 * Counts newly queued URLs at their hosts and sends a turn to each host that had none (a host with
 * a live turn gets to them in its own time). One update a host, whatever the number of URLs.
 */
export async function queueAtHosts(ctx: CloudContext, rows: FrontierRow[]): Promise<void> {
  const byHost = new Map<string, number>();
  for (const r of rows) if (r.state === 'queued') byHost.set(r.host, (byHost.get(r.host) ?? 0) + 1);
  const now = ctx.clock();
  const turns = await inBatches([...byHost], 16, ([host, n]) => ctx.store.addHostWork(ctx.run.id, host, n, now));
  const started = turns.filter((t): t is HostTurn => t !== undefined);
  if (started.length) await ctx.frontier.sendTurns(started);
}

/** Admits candidates and queues the URLs the run had not seen at their hosts (seeds, robots.txt sitemaps). */
export async function enqueueCandidates(ctx: CloudContext, candidates: LinkCandidate[]): Promise<void> {
  const rows = await admitCloud(ctx, candidates);
  const inserted = new Set(await ctx.store.addUrls(rows));
  await queueAtHosts(
    ctx,
    rows.filter((r) => inserted.has(r.urlId)),
  );
}

/**
 * Stores what one fetch (or its extraction) produced and queues the new URLs at their hosts.
 * Safe to repeat: the store's conditional writes insert each URL once, so a redelivered
 * message or a second Express start counts nothing twice. A fetch to retry goes back to its
 * host's queue with the time it may be tried again.
 */
export async function commitCloud(ctx: CloudContext, row: FrontierRow, result: ProcessResult, notBefore = 0, fetchCounted = false): Promise<void> {
  const attempts = row.attempts + 1;
  const discovered = await admitCloud(ctx, result.candidates);
  const commit = toFetchCommit(result, { runId: row.runId, urlId: row.urlId, attempts, notBefore: result.retry ? notBefore : 0, discovered });
  const inserted = new Set(await ctx.store.commitFetch(fetchCounted ? { ...commit, fetchCounted } : commit));
  await queueAtHosts(ctx, [...discovered.filter((r) => inserted.has(r.urlId)), ...(result.retry ? [{ ...row, state: 'queued' as const }] : [])]);
}

/** The page slots a fetch of `row` held (the run's and its host's), given back when the fetch will be made again. */
export async function givePageSlotsBack(
  store: Pick<CloudContext['store'], 'releasePageSlot' | 'releaseHostSlot'>,
  runId: number,
  row: { kind?: string; host: string },
): Promise<void> {
  if (row.kind !== 'page') return;
  await store.releasePageSlot(runId);
  await store.releaseHostSlot(runId, row.host);
}
