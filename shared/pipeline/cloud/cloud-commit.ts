import { DEFAULT_TRAP_LIMITS, trapShape } from '../../frontier/traps.js';
import { admissionFloor } from '../../frontier/priority.js';
import type { FrontierRow } from '../../store/ports/index.js';
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

/** Admits candidates and sends the URLs the run had not seen to the frontier (seeds, robots.txt sitemaps). */
export async function enqueueCandidates(ctx: CloudContext, candidates: LinkCandidate[]): Promise<void> {
  const rows = await admitCloud(ctx, candidates);
  const inserted = new Set(await ctx.store.addUrls(rows));
  await ctx.frontier.send(rows.filter((r) => r.state === 'queued' && inserted.has(r.urlId)));
}

/**
 * Stores what one fetch (or its extraction) produced and sends the new URLs to the frontier.
 * Safe to repeat: the store's conditional writes insert each URL once, so a redelivered
 * message or a second Express start sends nothing twice.
 */
export async function commitCloud(ctx: CloudContext, row: FrontierRow, result: ProcessResult, notBefore = 0): Promise<void> {
  const attempts = row.attempts + 1;
  const discovered = await admitCloud(ctx, result.candidates);
  const inserted = new Set(
    await ctx.store.commitFetch(toFetchCommit(result, { runId: row.runId, urlId: row.urlId, attempts, notBefore: result.retry ? notBefore : 0, discovered })),
  );
  await ctx.frontier.send(discovered.filter((r) => r.state === 'queued' && inserted.has(r.urlId)));
  if (result.retry) await ctx.frontier.send([{ ...row, attempts, notBefore, state: 'queued' }]);
}
