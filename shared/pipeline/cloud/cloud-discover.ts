// Discover (run state machine): the run's search queries and social accounts are called with the
// keys of the cloud's secret, stored like an embedded crawl's (discover-stage), their origins put
// in the run's scope, and only then are the seeds and the links sent to the frontier, so no worker
// judges a link against a scope that is about to grow. A retry takes the answers this run already
// stored (no API is called twice), and sending is idempotent.
import type { Env } from '../../config/resolve.js';
import type { LinkCandidate } from '../stages/admission.js';
import { enqueueCandidates } from './cloud-commit.js';
import { withRun, type CloudContext, type CloudDeps } from './cloud-context.js';
import { apiClientFor, discoverTargets, runTargets, type ApiTarget, type Discovered } from '../stages/discover-stage.js';
import { errorMessage } from '../../errors.js';
import { routeTarget } from '../../targets/route.js';
import type { RunState } from './run-control.js';

/** What Discover reports of each target in the run's execution history (no content, no keys). */
export interface DiscoverReport {
  key: string;
  links: number;
  source: 'live' | 'archive';
  error?: string;
}

/** The targets' discoveries, or, when the backends' settings cannot be read (a secret that is not JSON), each target failed with why. */
async function discoverAll(ctx: CloudContext, deps: CloudDeps, readEnv: () => Promise<Env>): Promise<Discovered> {
  const targets = runTargets(ctx.run);
  let env: Env;
  try {
    env = await readEnv();
  } catch (err) {
    const error = errorMessage(err);
    const discoveries = targets.map((target) => {
      const t = routeTarget(target) as ApiTarget;
      return { target, key: t.key, kind: t.kind, source: 'live' as const, links: 0, error };
    });
    return { candidates: [], scope: [], discoveries };
  }
  const client = apiClientFor(ctx.settings, deps.resolver);
  try {
    return await discoverTargets({ ...ctx, client, env }, ctx.run.id, targets, { limit: ctx.settings.targetLimit || undefined, reuse: true });
  } finally {
    await client.close();
  }
}

/** Discover: calls the run's targets (with the settings `readEnv` gives), widens the scope, then sends the seeds and the links. */
export async function discoverRun(deps: CloudDeps, state: RunState, readEnv: () => Promise<Env>): Promise<RunState & { discovered: DiscoverReport[] }> {
  return withRun(deps, state.runId, async (ctx) => {
    const found = await discoverAll(ctx, deps, readEnv);
    for (const d of found.discoveries) if (d.error) ctx.logger.warn('a target failed; the run goes on without its links', { key: d.key, error: d.error });
    await ctx.store.widenRunScope(ctx.run.id, found.scope);
    ctx.run.scope = [...new Set([...(ctx.run.scope ?? []), ...found.scope])];
    const seeds = ctx.run.seeds.map((href): LinkCandidate => ({ href, depth: 0, kind: 'page', structural: true }));
    await enqueueCandidates(ctx, [...seeds, ...found.candidates]);
    return {
      ...state,
      discovered: found.discoveries.map((d) => ({ key: d.key, links: d.links, source: d.source, ...(d.error ? { error: d.error } : {}) })),
    };
  });
}
