// Each run's own extract schema for the Summarize step: a crawl's `limits.extractSchema` or a
// request's `extractSchema` takes the construct's place for that run's pages. Apart from the
// workflow's steps, so the stages that only count (Progress, FinalizeRun) carry no model client.
import { extractSpecOf } from '../../enrich/extract-spec.js';
import { withSpec, type Providers } from '../../enrich/provider-factory.js';
import type { RunRecord } from '../../ports/index.js';
import type { RunSpecs } from './enrich-workflow.js';

/**
 * Reads each run's extract schema from its settings once a container (a run's settings do not
 * change): the providers extracting to it, or undefined when the run names none.
 */
export function runSpecs(getRun: (runId: number) => Promise<RunRecord | undefined>, providers: Providers): RunSpecs {
  const known = new Map<number, Promise<Providers | undefined>>();
  return (runId) => {
    let p = known.get(runId);
    if (!p) {
      p = getRun(runId).then((run) => {
        const spec = run && extractSpecOf(run.config as { extractSchema?: string | Record<string, unknown>; extractPrompt?: string });
        return spec ? withSpec(providers, spec) : undefined;
      });
      // A failed read is asked again by the next page.
      p.catch(() => known.delete(runId));
      known.set(runId, p);
    }
    return p;
  };
}
