import { Duration, Validations, type RemovalPolicy } from 'aws-cdk-lib';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import * as tasks from 'aws-cdk-lib/aws-stepfunctions-tasks';
import { Construct } from 'constructs';
import { nagRef } from './nag.js';

/** Errors our handlers raise when AWS throttles them, plus the task timeout: retried with back-off. */
export const THROTTLING_ERRORS = [
  'Lambda.TooManyRequestsException',
  'ThrottlingException',
  'ProvisionedThroughputExceededException',
  'RequestLimitExceeded',
  'TooManyRequestsException',
  'SlowDown',
  'States.Timeout',
];

/** One step of the page workflow: Extract, Summarize, Index, and a user's own. */
export interface PageStep {
  /** The state's name (also the key of its result under `$.results`). */
  name: string;
  fn: lambda.IFunction;
  timeout: Duration;
  /**
   * The step calls a rate-limited model: its event is `{ task, retry }` (`retry`: `$$.State.RetryCount`,
   * so the last attempt can give up gracefully) and `ModelThrottled` is retried this many times with back-off.
   */
  modelRetries?: number;
}

export interface WorkflowsProps {
  initRun: lambda.IFunction;
  /** Taken after InitRun when the run has search or social targets: calls them, then sends the seeds and their links. */
  discover?: { fn: lambda.IFunction; timeout: Duration };
  progress: lambda.IFunction;
  finalizeRun: lambda.IFunction;
  recordFailure: lambda.IFunction;
  /** The page workflow's steps in order; each sees the page task and the results of the steps before it. The first is Extract. */
  pageSteps: PageStep[];
  /** The Chromium step, taken when Extract says the page needs rendering; Extract then runs again on the DOM. */
  render?: { fn: lambda.IFunction; timeout: Duration };
  /** Seconds between two progress checks of a run. */
  pollSeconds: number;
  logRetention: logs.RetentionDays;
  removalPolicy: RemovalPolicy;
}

function invoke(scope: Construct, name: string, fn: lambda.IFunction, options: Partial<tasks.LambdaInvokeProps> = {}): sfn.TaskStateBase {
  return new tasks.LambdaInvoke(scope, name, { lambdaFunction: fn, payloadResponseOnly: true, ...options }).addRetry({
    errors: THROTTLING_ERRORS,
    interval: Duration.seconds(2),
    backoffRate: 2,
    maxAttempts: 5,
    jitterStrategy: sfn.JitterType.FULL,
  });
}

/** The run state machine (Standard) and the page workflow (Express), JSONPath throughout. */
export class CrawlWorkflows extends Construct {
  readonly runMachine: sfn.StateMachine;
  readonly pageWorkflow: sfn.StateMachine;

  constructor(scope: Construct, id: string, props: WorkflowsProps) {
    super(scope, id);
    this.pageWorkflow = this.machine('PageWorkflow', sfn.StateMachineType.EXPRESS, this.pageDefinition(props), Duration.minutes(5), props);
    this.runMachine = this.machine('RunMachine', sfn.StateMachineType.STANDARD, this.runDefinition(props), Duration.days(8), props);
  }

  private pageDefinition(props: WorkflowsProps): sfn.IChainable {
    const recordFailure = invoke(this, 'RecordFailure', props.recordFailure, {
      payload: sfn.TaskInput.fromObject({ 'task.$': '$', 'error.$': '$.error' }),
      resultPath: '$.failure',
    }).next(new sfn.Fail(this, 'PageFailed', { error: 'PageProcessingFailed', cause: 'a page step failed; the failure is recorded in the archive' }));
    const steps = props.pageSteps.map((step) => {
      const state = invoke(this, step.name, step.fn, {
        resultPath: `$.results.${step.name}`,
        taskTimeout: sfn.Timeout.duration(step.timeout),
        ...(step.modelRetries !== undefined ? { payload: sfn.TaskInput.fromObject({ 'task.$': '$', 'retry.$': '$$.State.RetryCount' }) } : {}),
      });
      if (step.modelRetries !== undefined) {
        state.addRetry({
          errors: ['ModelThrottled'],
          interval: Duration.seconds(5),
          backoffRate: 2,
          maxAttempts: step.modelRetries,
          jitterStrategy: sfn.JitterType.FULL,
        });
      }
      return state.addCatch(recordFailure, { errors: ['States.ALL'], resultPath: '$.error' });
    });
    const done = new sfn.Succeed(this, 'PageDone');
    if (steps.length === 0) return done;
    let rest: sfn.IChainable = done;
    for (const step of steps.slice(1).reverse()) rest = (step as sfn.TaskStateBase).next(rest);
    const [extract, first] = [props.pageSteps[0]!, steps[0]!];
    if (!props.render) return sfn.Chain.start(first).next(rest);
    // Extract → needs rendering? → Render → Extract again on the DOM; a Render that fails outright is
    // handed to the second Extract as its error, which extracts the page as served.
    const again = invoke(this, 'ExtractRendered', extract.fn, { resultPath: `$.results.${extract.name}`, taskTimeout: sfn.Timeout.duration(extract.timeout) })
      .addCatch(recordFailure, { errors: ['States.ALL'], resultPath: '$.error' })
      .next(rest);
    const render = invoke(this, 'Render', props.render.fn, { resultPath: '$.results.Render', taskTimeout: sfn.Timeout.duration(props.render.timeout) })
      .addRetry({ errors: ['HostBusy'], interval: Duration.seconds(5), backoffRate: 2, maxAttempts: 6, jitterStrategy: sfn.JitterType.FULL })
      .addCatch(again, { errors: ['States.ALL'], resultPath: '$.results.Render' })
      .next(again);
    const needsRender = new sfn.Choice(this, 'NeedsRender').when(sfn.Condition.isPresent(`$.results.${extract.name}.render`), render).otherwise(rest);
    return sfn.Chain.start(first).next(needsRender);
  }

  private runDefinition(props: WorkflowsProps): sfn.IChainable {
    const init = invoke(this, 'InitRun', props.initRun);
    const wait = new sfn.Wait(this, 'WaitForProgress', { time: sfn.WaitTime.duration(Duration.seconds(props.pollSeconds)) });
    const progress = invoke(this, 'Progress', props.progress);
    const finalize = invoke(this, 'FinalizeRun', props.finalizeRun).next(new sfn.Succeed(this, 'RunDone'));
    const choice = new sfn.Choice(this, 'RunOver').when(sfn.Condition.booleanEquals('$.done', true), finalize).otherwise(wait);
    wait.next(progress).next(choice);
    if (!props.discover) return init.next(wait);
    const discover = invoke(this, 'Discover', props.discover.fn, { taskTimeout: sfn.Timeout.duration(props.discover.timeout) }).next(wait);
    const hasTargets = new sfn.Choice(this, 'HasTargets')
      .when(sfn.Condition.and(sfn.Condition.isPresent('$.discover'), sfn.Condition.booleanEquals('$.discover', true)), discover)
      .otherwise(wait);
    return init.next(hasTargets);
  }

  private machine(id: string, type: sfn.StateMachineType, definition: sfn.IChainable, timeout: Duration, props: WorkflowsProps): sfn.StateMachine {
    const logGroup = new logs.LogGroup(this, `${id}Logs`, { retention: props.logRetention, removalPolicy: props.removalPolicy });
    const machine = new sfn.StateMachine(this, id, {
      stateMachineType: type,
      queryLanguage: sfn.QueryLanguage.JSON_PATH,
      definitionBody: sfn.DefinitionBody.fromChainable(definition),
      timeout,
      tracingEnabled: true,
      logs: { destination: logGroup, level: sfn.LogLevel.ALL, includeExecutionData: true },
    });
    const fns = [
      props.initRun,
      ...(props.discover ? [props.discover.fn] : []),
      props.progress,
      props.finalizeRun,
      props.recordFailure,
      ...props.pageSteps.map((s) => s.fn),
      ...(props.render ? [props.render.fn] : []),
    ];
    Validations.of(machine.role).acknowledge(
      { id: 'AwsSolutions-IAM5[Resource::*]', reason: 'X-Ray tracing and CloudWatch Logs delivery for Step Functions take no resource-level permissions.' },
      ...fns.map((fn) => ({
        id: `AwsSolutions-IAM5[Resource::${nagRef(this, fn.functionArn)}:*]`,
        reason: 'Invoking a stage function includes its versions and aliases (the ":*" suffix CDK adds); no other function.',
      })),
    );
    return machine;
  }
}
