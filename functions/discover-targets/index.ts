// Discover (run state machine): the run's search queries and social accounts become frontier URLs,
// with the backends' keys read from the deployment's secret (TARGETS_SECRET_ARN), never from this
// function's environment; then the seeds and the links go to the frontier.
import { lambdaEnvironment } from '../../shared/config/lambda-environment.js';
import { discoverRun, type DiscoverReport } from '../../shared/pipeline/cloud/cloud-discover.js';
import type { RunState } from '../../shared/pipeline/cloud/run-control.js';
import { SecretEnv, secretsClient } from '../../shared/store/aws/secrets.js';
import { instrumented, MetricUnit, runtime } from '../runtime.js';

const secrets = new Map<string, SecretEnv>();

/** The backends' settings: the function's non-secret ones (endpoints such as TRAWL_SEARXNG_URL), then the secret's. */
async function backendEnv(): Promise<Record<string, string | undefined>> {
  const arn = lambdaEnvironment().targetsSecretArn;
  if (!arn) return process.env;
  const endpoint = process.env.AWS_ENDPOINT_URL_SECRETS_MANAGER;
  const key = `${arn}|${endpoint ?? ''}`;
  let secret = secrets.get(key);
  if (!secret) secrets.set(key, (secret = new SecretEnv(arn, secretsClient(endpoint))));
  return { ...process.env, ...(await secret.read()) };
}

export async function handler(event: RunState): Promise<RunState & { discovered: DiscoverReport[] }> {
  const rt = runtime('discover-targets');
  return instrumented(rt, async () => {
    const state = await discoverRun(rt, event, backendEnv);
    const failed = state.discovered.filter((d) => d.error).length;
    rt.metrics.addMetric('TargetsFailed', MetricUnit.Count, failed);
    rt.metrics.addMetric(
      'TargetLinks',
      MetricUnit.Count,
      state.discovered.reduce((n, d) => n + d.links, 0),
    );
    rt.logger.info('targets discovered', { runId: event.runId, targets: state.discovered.length, failed });
    return state;
  });
}
