// The Step Functions retries of trawl's Lambda steps: the budgets, and the task with them.
import { Duration } from 'aws-cdk-lib';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import * as tasks from 'aws-cdk-lib/aws-stepfunctions-tasks';
import type { Construct } from 'constructs';
import type { RetryBudget } from './quotas.js';
import { RENDER_HOST_WAIT_MS } from '../shared/pipeline/cloud/render-wait.js';

/** Lambda refused to run the function: its concurrency (reserved or the account's) is used up. */
const LAMBDA_THROTTLE = 'Lambda.TooManyRequestsException';

/** Errors our handlers raise when AWS throttles them, and Lambda's own service errors: retried with back-off. */
export const THROTTLING_ERRORS = [
  'Lambda.TooManyRequestsException',
  'Lambda.ServiceException',
  'Lambda.AWSLambdaException',
  'Lambda.SdkClientException',
  'ThrottlingException',
  'ProvisionedThroughputExceededException',
  'RequestLimitExceeded',
  'TooManyRequestsException',
  'SlowDown',
];

/**
 * A step that ran out of time: its state's timeout (States.Timeout), the Lambda's own
 * (Sandbox.Timedout), or a Lambda killed mid-run (Lambda.Unknown). The run machine's steps are safe
 * to repeat, so they retry these.
 */
export const TIMEOUT_ERRORS = ['States.Timeout', 'Sandbox.Timedout', 'Lambda.Unknown'];
/** The run machine's step timeout: past the longest Lambda timeout (15 minutes), so a lost invocation times out and is retried. */
export const RUN_STEP_TIMEOUT = Duration.minutes(16);

/**
 * Retries of the run machine's steps (Standard: no time limit but the run's), which also retry a
 * step that timed out.
 */
export const RUN_RETRY: RetryBudget = { intervalSeconds: 2, backoffRate: 2, maxAttempts: 5, retriesTimeouts: true };
/**
 * Retries of a page step (Express: 5 minutes for the whole path). A step that timed out is not
 * retried: the URL's claim lapses and the run's stall recovery sends it again.
 */
export const PAGE_RETRY: RetryBudget = { intervalSeconds: 1, backoffRate: 2, maxAttempts: 2 };
/**
 * Waiting for capacity in a step that calls a rate-limited model (Summarize, Index): the model's
 * own limit (ModelThrottled) and Lambda's throttle of the step's capped concurrency share one
 * retrier, with full jitter, so a burst waits its turn instead of failing the page's enrichment.
 * A throttled attempt never ran, so only the waits count against the budget. `maxAttempts` is the
 * step's `modelRetries` plus one: the handler gives up gracefully on its last model retry
 * (THROTTLE_RETRIES), and one more attempt is left for a throttle that came first.
 */
export const CAPACITY_RETRY: RetryBudget = { intervalSeconds: 1, backoffRate: 2, maxAttempts: 4, maxDelaySeconds: 4 };
export const capacityRetry = (modelRetries: number): RetryBudget => ({ ...CAPACITY_RETRY, maxAttempts: modelRetries + 1 });
/** Render's host claim held by another worker (HostBusy, raised after waiting for it in the Lambda). */
export const HOST_BUSY_RETRY: RetryBudget = { intervalSeconds: 3, backoffRate: 2, maxAttempts: 3, failedAttemptSeconds: RENDER_HOST_WAIT_MS / 1000 };

export function addRetry(state: sfn.TaskStateBase, errors: string[], r: RetryBudget): sfn.TaskStateBase {
  return state.addRetry({
    errors,
    interval: Duration.seconds(r.intervalSeconds),
    backoffRate: r.backoffRate,
    maxAttempts: r.maxAttempts,
    ...(r.maxDelaySeconds !== undefined ? { maxDelay: Duration.seconds(r.maxDelaySeconds) } : {}),
    jitterStrategy: sfn.JitterType.FULL,
  });
}

/** One step of the page workflow: Extract, Summarize, Index, and a user's own. */
/** A Lambda step with our retries: `retry` for its errors and throttles, `capacity` for a model step's throttles. */
export function invoke(
  scope: Construct,
  name: string,
  fn: lambda.IFunction,
  options: Partial<tasks.LambdaInvokeProps> = {},
  { retry = RUN_RETRY, capacity }: { retry?: RetryBudget; capacity?: RetryBudget } = {},
): sfn.TaskStateBase {
  // Lambda's service errors are in our own list, with our own budget (CDK's default retry adds up to 126 s).
  const task = new tasks.LambdaInvoke(scope, name, {
    lambdaFunction: fn,
    payloadResponseOnly: true,
    retryOnServiceExceptions: false,
    // A run machine step never waits for ever on an invocation that was lost.
    ...(retry.retriesTimeouts ? { taskTimeout: sfn.Timeout.duration(RUN_STEP_TIMEOUT) } : {}),
    ...options,
  });
  // Step Functions takes the first retrier that names the error: a model step's throttles get their own.
  if (capacity) addRetry(task, [LAMBDA_THROTTLE, 'ModelThrottled'], capacity);
  const errors = THROTTLING_ERRORS.filter((e) => !capacity || e !== LAMBDA_THROTTLE);
  return addRetry(task, retry.retriesTimeouts ? [...errors, ...TIMEOUT_ERRORS] : errors, retry);
}
