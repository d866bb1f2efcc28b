import type { FetchResponse } from '../../fetch/http-fetcher.js';
import { afterRequest, readyAt, type HostState } from '../../politeness/host-state.js';
import type { FrontierRow, PageRecord, WarcLocation } from '../../ports/index.js';
import { commitCloud } from './cloud-commit.js';
import type { CloudContext } from './cloud-context.js';
import { politenessConfig } from '../stages/context.js';
import { fetchStage } from '../stages/fetch-stage.js';
import { needsContent, processStage } from '../stages/process-stage.js';
import { pageSlotsAfter } from '../stages/run-records.js';

/** Everything the page workflow needs to extract a fetched page; the body is read back from its WARC record (`taskBody`). */
export interface PageTask {
  runId: number;
  row: FrontierRow;
  response: Omit<FetchResponse, 'body'>;
  contentHash?: string;
  /** The page that first fetched these bytes, claimed at fetch time. */
  bodyOwner?: string;
  previous?: PageRecord;
  at: number;
  warc?: WarcLocation;
  /** The fetch worker counted the request in the run's activity: the page's commit does not count it again. */
  counted?: boolean;
}

/**
 * Fetches a claimed URL under its host's claim: a page with content goes on to the page workflow
 * (`page`), anything else (an error, a redirect, a 304, a refusal) is committed here. The host's
 * state after the request goes to `setState`, for the claim's release.
 */
export async function fetchClaimed(
  ctx: CloudContext,
  row: FrontierRow,
  state: HostState,
  setState: (s: HostState) => void,
): Promise<{ outcome: string; page?: PageTask }> {
  const politeness = politenessConfig(ctx.settings);
  const outcome = await fetchStage(ctx, row);
  if (needsContent(outcome)) {
    setState(afterRequest(state, { kind: 'response', status: outcome.res.status, at: ctx.clock() }, politeness));
    const { body: _body, ...response } = outcome.res;
    return {
      outcome: `http-${outcome.res.status}`,
      page: {
        runId: row.runId,
        row,
        response,
        contentHash: outcome.contentHash,
        bodyOwner: outcome.bodyOwner,
        previous: outcome.previous,
        at: outcome.at,
        warc: outcome.warc,
      },
    };
  }
  const result = await processStage(ctx, row, outcome);
  const next = result.hostEvent ? afterRequest(state, result.hostEvent, politeness) : state;
  setState(next);
  const countsAsPage = row.kind === 'page';
  const slots = pageSlotsAfter(countsAsPage, { retry: result.retry, answered: result.fetch?.status !== undefined });
  if (slots.releaseRunSlot) await ctx.store.releasePageSlot(row.runId);
  // The host slot was claimed before the fetch: given back unless the page used it.
  if (countsAsPage && !slots.usesHostSlot) await ctx.store.releaseHostSlot(row.runId, row.host);
  await commitCloud(ctx, row, result, readyAt(next));
  if (next.parkedReason) ctx.logger.warn('host parked', { host: row.host, reason: next.parkedReason });
  return { outcome: result.reason ?? result.state };
}
