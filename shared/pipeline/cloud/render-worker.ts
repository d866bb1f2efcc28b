import { HostBusyError } from '../../errors.js';
export { HostBusyError } from '../../errors.js';
import type { HostState } from '../../politeness/host-state.js';
import { robotsPolicyFrom } from '../../robots/robots-policy.js';
import type { CloudContext } from './cloud-context.js';
import { politenessConfig } from '../stages/context.js';
import { taskBody } from './task-body.js';
import { claimRetryMs, HOST_LEASE_MS, type PageTask } from './fetch-worker.js';
import { failedCapture, hostAfterRender, renderStage, robotsCheck, type RenderCapture, type RenderWanted } from '../stages/render-stage.js';

/** How long the Render step waits for its host before it hands the page back to Step Functions' retry. */
export interface RenderWait {
  maxWaitMs: number;
  sleep?: (ms: number) => Promise<void>;
}

/**
 * The page workflow's Render step: the render is a visit to the host, so it takes the same host
 * claim as the fetch worker (delay, Crawl-delay, back-off, one worker at a time) before the
 * browser loads the page, and updates the host's politeness and render stats when it releases it.
 */
export async function renderWorker(ctx: CloudContext, task: PageTask, wanted: RenderWanted, wait: RenderWait): Promise<RenderCapture> {
  const sleep = wait.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const started = ctx.clock();
  for (;;) {
    const now = ctx.clock();
    const claim = await ctx.store.claimHost(task.row.host, ctx.workerId, now, HOST_LEASE_MS);
    if (claim.claimed) {
      let state: HostState = { ...claim.record.state, host: task.row.host };
      try {
        const body = await taskBody(ctx, task);
        const { robotsStatus, robotsBody } = claim.record;
        const robots = robotsStatus === undefined ? undefined : robotsPolicyFrom({ status: robotsStatus, body: robotsBody }, ctx.robotsToken);
        const doc = { status: task.response.status, headers: task.response.headers, body, warc: task.warc, fetchedAt: task.at };
        const capture = await renderStage(ctx, task.row, doc, wanted, { robotsAllows: robotsCheck(robots) });
        state = hostAfterRender(state, capture, { runId: task.runId, url: task.row.url }, politenessConfig(ctx.settings), ctx.clock());
        return capture;
      } finally {
        await ctx.store.releaseHost(state, ctx.workerId);
      }
    }
    const waited = now - started;
    if (claim.parkedReason) return failedCapture(wanted.reason, now, `host parked: ${claim.parkedReason}`);
    const delay = claimRetryMs(claim, now);
    if (waited + delay > wait.maxWaitMs) throw new HostBusyError(task.row.host, waited);
    await sleep(delay);
  }
}
