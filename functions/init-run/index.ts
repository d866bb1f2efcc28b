// InitRun (run state machine): the EventBridge rule's input is one crawl of crawls.json.
import { initRun, type RunInput, type RunState, type SkippedRun } from '../../shared/pipeline/cloud/run-control.js';
import { instrumented, runtime } from '../runtime.js';

export async function handler(event: RunInput): Promise<RunState | SkippedRun> {
  const rt = runtime('init-run');
  return instrumented(rt, async () => {
    const state = await initRun(rt, event);
    if ('runId' in state) rt.logger.info('run started', { crawl: event.crawl, runId: state.runId, seeds: event.seeds.length });
    return state;
  });
}
