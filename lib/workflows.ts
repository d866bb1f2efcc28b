import { CfnResource, Duration, Stack, Validations, type RemovalPolicy } from 'aws-cdk-lib';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { nagRef } from './nag.js';
import { checkExpressBudget, taskWorstSeconds } from './quotas.js';
import { addRetry, capacityRetry, HOST_BUSY_RETRY, invoke, PAGE_RETRY } from './workflow-retries.js';

export { CAPACITY_RETRY, HOST_BUSY_RETRY, PAGE_RETRY, RUN_RETRY, THROTTLING_ERRORS } from './workflow-retries.js';

export interface PageStep {
  /** The state's name (also the key of its result under `$.results`). */
  name: string;
  fn: lambda.IFunction;
  timeout: Duration;
  /**
   * The step calls a rate-limited model: its event is `{ task, retry }` (`retry`: `$$.State.RetryCount`,
   * so the last attempt can give up gracefully); `ModelThrottled` and Lambda's throttle share one
   * retrier of this many retries plus one, with back-off (CAPACITY_RETRY).
   */
  modelRetries?: number;
}

export interface WorkflowsProps {
  /** X-Ray traces of page workflows (the run machine is always traced). */
  tracePages?: boolean;
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
  /**
   * Search is deployed: when Progress says the full-text log passed its bound (`rebuildText`), the
   * loop has FinalizeRun's function build a new generation before it waits again.
   */
  rebuildText?: boolean;
  logRetention: logs.RetentionDays;
  removalPolicy: RemovalPolicy;
}

/** The run's end's Distributed Maps over the run's shards, in order (their labels name their map runs). */
export const SHARD_MAPS = ['CollectShards', 'GatherShards', 'LinkShards', 'DegreeShards', 'RankShards', 'WriteShards', 'ChangeShards', 'PackageParts'] as const;

/** The run state machine (Standard) and the page workflow (Express), JSONPath throughout. */
export class CrawlWorkflows extends Construct {
  readonly runMachine: sfn.StateMachine;
  readonly pageWorkflow: sfn.StateMachine;

  constructor(scope: Construct, id: string, props: WorkflowsProps) {
    super(scope, id);
    this.checkPageBudget(props);
    this.pageWorkflow = this.machine('PageWorkflow', sfn.StateMachineType.EXPRESS, this.pageDefinition(props), Duration.minutes(5), props);
    this.runMachine = this.machine('RunMachine', sfn.StateMachineType.STANDARD, this.runDefinition(props), Duration.days(8), props);
  }

  /** The longest path (Extract, Render, Extract again, every later step) with every retry fits Express's limit. */
  private checkPageBudget(props: WorkflowsProps): void {
    const worst = (s: { timeout: Duration; modelRetries?: number }) =>
      taskWorstSeconds(s.timeout.toSeconds(), [PAGE_RETRY, ...(s.modelRetries !== undefined ? [capacityRetry(s.modelRetries)] : [])]);
    const [extract, ...rest] = props.pageSteps;
    const path = [
      ...(extract ? [{ name: extract.name, worstSeconds: worst(extract) }] : []),
      ...(props.render && extract
        ? [
            { name: 'Render', worstSeconds: taskWorstSeconds(props.render.timeout.toSeconds(), [PAGE_RETRY, HOST_BUSY_RETRY]) },
            { name: 'ExtractRendered', worstSeconds: worst(extract) },
          ]
        : []),
      ...rest.map((s) => ({ name: s.name, worstSeconds: worst(s) })),
    ];
    checkExpressBudget(`Crawler "${this.node.scope?.node.id ?? 'crawler'}"`, path);
  }

  private pageDefinition(props: WorkflowsProps): sfn.IChainable {
    const recordFailure = invoke(
      this,
      'RecordFailure',
      props.recordFailure,
      {
        payload: sfn.TaskInput.fromObject({ 'task.$': '$', 'error.$': '$.error' }),
        resultPath: '$.failure',
      },
      { retry: PAGE_RETRY },
    ).next(new sfn.Fail(this, 'PageFailed', { error: 'PageProcessingFailed', cause: 'a page step failed; the failure is recorded in the archive' }));
    const steps = props.pageSteps.map((step) => {
      const state = invoke(
        this,
        step.name,
        step.fn,
        {
          resultPath: `$.results.${step.name}`,
          taskTimeout: sfn.Timeout.duration(step.timeout),
          ...(step.modelRetries !== undefined ? { payload: sfn.TaskInput.fromObject({ 'task.$': '$', 'retry.$': '$$.State.RetryCount' }) } : {}),
        },
        { retry: PAGE_RETRY, capacity: step.modelRetries !== undefined ? capacityRetry(step.modelRetries) : undefined },
      );
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
    const again = invoke(
      this,
      'ExtractRendered',
      extract.fn,
      { resultPath: `$.results.${extract.name}`, taskTimeout: sfn.Timeout.duration(extract.timeout) },
      { retry: PAGE_RETRY },
    )
      .addCatch(recordFailure, { errors: ['States.ALL'], resultPath: '$.error' })
      .next(rest);
    const render = addRetry(
      invoke(
        this,
        'Render',
        props.render.fn,
        { resultPath: '$.results.Render', taskTimeout: sfn.Timeout.duration(props.render.timeout) },
        { retry: PAGE_RETRY },
      ),
      ['HostBusy'],
      HOST_BUSY_RETRY,
    )
      .addCatch(again, { errors: ['States.ALL'], resultPath: '$.results.Render' })
      .next(again);
    const needsRender = new sfn.Choice(this, 'NeedsRender').when(sfn.Condition.isPresent(`$.results.${extract.name}.render`), render).otherwise(rest);
    return sfn.Chain.start(first).next(needsRender);
  }

  private runDefinition(props: WorkflowsProps): sfn.IChainable {
    // Any state that fails ends the run `failed` (FinalizeRun with the error: queued URLs settled,
    // the report written), never `running` for ever. A failed InitRun has no run to settle.
    const runFailed = new sfn.Fail(this, 'RunFailed', {
      error: 'RunFailed',
      cause: 'a run step failed; the run is recorded as failed with the error in its report',
    });
    const failRun = invoke(this, 'FailRun', props.finalizeRun, { resultPath: '$.failure' });
    // FailRun failed too: the run is marked failed in one write (and its report and event written where they can be).
    const markFailed = invoke(this, 'MarkRunFailed', props.finalizeRun, {
      payload: sfn.TaskInput.fromObject({ 'runId.$': '$.runId', 'crawl.$': '$.crawl', 'failure.$': '$.failure', markFailed: true }),
      resultPath: '$.marked',
    });
    markFailed.addCatch(runFailed, { errors: ['States.ALL'], resultPath: '$.marked' }).next(runFailed);
    failRun.addCatch(markFailed, { errors: ['States.ALL'], resultPath: '$.failure' }).next(runFailed);
    const finalize = this.finalizeDefinition(props, failRun, runFailed);
    // A run-loop state that fails goes to the run's end with the error: the run ends failed.
    const caught = <T extends sfn.TaskStateBase>(state: T): T => state.addCatch(finalize, { errors: ['States.ALL'], resultPath: '$.error' }) as T;
    const init = invoke(this, 'InitRun', props.initRun).addCatch(runFailed, { errors: ['States.ALL'], resultPath: '$.error' });
    const wait = new sfn.Wait(this, 'WaitForProgress', { time: sfn.WaitTime.duration(Duration.seconds(props.pollSeconds)) });
    const progress = caught(invoke(this, 'Progress', props.progress));
    const choice = new sfn.Choice(this, 'RunOver').when(sfn.Condition.booleanEquals('$.done', true), finalize);
    if (props.rebuildText) {
      // A failed rebuild does not fail the run: queries read a longer log until FinalizeRun builds one.
      const rebuild = invoke(this, 'RebuildText', props.finalizeRun, {
        payload: sfn.TaskInput.fromObject({ action: 'rebuild-text', runId: sfn.JsonPath.numberAt('$.runId') }),
        resultPath: '$.textRebuild',
      });
      rebuild.addCatch(wait, { errors: ['States.ALL'], resultPath: '$.textRebuild' }).next(wait);
      choice.when(sfn.Condition.and(sfn.Condition.isPresent('$.rebuildText'), sfn.Condition.booleanEquals('$.rebuildText', true)), rebuild);
    }
    choice.otherwise(wait);
    wait.next(progress).next(choice);
    // A run of the same crawl still going: InitRun started nothing.
    const skipped = new sfn.Succeed(this, 'RunSkipped', { comment: 'a run of this crawl is still running' });
    const started = new sfn.Choice(this, 'Started').when(sfn.Condition.isPresent('$.skipped'), skipped);
    init.next(started);
    if (!props.discover) {
      started.otherwise(wait);
      return init;
    }
    const discover = caught(invoke(this, 'Discover', props.discover.fn, { taskTimeout: sfn.Timeout.duration(props.discover.timeout) })).next(wait);
    const hasTargets = new sfn.Choice(this, 'HasTargets')
      .when(sfn.Condition.and(sfn.Condition.isPresent('$.discover'), sfn.Condition.booleanEquals('$.discover', true)), discover)
      .otherwise(wait);
    started.otherwise(hasTargets);
    return init;
  }

  /**
   * A run's end, spread over the run's shards so that no Lambda reads the whole run: FinalizeStart
   * stops the run; a run of more pages than FinalizeRun ranks alone takes one Distributed Map a
   * ranking phase, a child per shard (collect loops over the shard a chunk at a time), and the
   * rounds repeat until RankCheck finds them converged; then FinalizeRun writes the top pages,
   * report, WACZ and events. A step that fails ends the run
   * failed through FailRun (`$.finalizeError`).
   */
  private finalizeDefinition(props: WorkflowsProps, failRun: sfn.IChainable, runFailed: sfn.Fail): sfn.TaskStateBase {
    const ended = <T extends sfn.TaskStateBase | sfn.DistributedMap>(state: T): T =>
      state.addCatch(failRun, { errors: ['States.ALL'], resultPath: '$.finalizeError' }) as T;
    const start = ended(
      invoke(this, 'FinalizeStart', props.finalizeRun, {
        payload: sfn.TaskInput.fromObject({ action: 'finalize-start', 'state.$': '$' }),
        resultPath: '$.finalize',
      }),
    );
    /** A Distributed Map of `step` (FinalizeRun's `action`) over the run's shards, or over its `items`; `loop` while the step answers a cursor. */
    const shardMap = (
      id: string,
      step: string,
      action: string,
      {
        selector = {},
        loop = false,
        resultPath = sfn.JsonPath.DISCARD,
        resultSelector,
        items = 'shards',
      }: {
        selector?: Record<string, unknown>;
        loop?: boolean;
        resultPath?: string;
        resultSelector?: Record<string, unknown>;
        items?: 'shards' | 'parts' | 'changeShards';
      } = {},
    ) => {
      const map = new sfn.DistributedMap(this, id, {
        itemsPath: `$.finalize.${items}`,
        itemSelector: { action, 'runId.$': '$.runId', [items === 'parts' ? 'part.$' : 'shard.$']: '$$.Map.Item.Value', ...selector },
        mapExecutionType: sfn.StateMachineType.STANDARD,
        resultPath,
        ...(resultSelector ? { resultSelector } : {}),
        label: id,
      });
      const task = invoke(this, step, props.finalizeRun);
      if (loop) {
        // A shard is read a chunk at a time: the step answers with the cursor of the next chunk.
        task.next(new sfn.Choice(this, `${step}More`).when(sfn.Condition.isPresent('$.cursor'), task).otherwise(new sfn.Succeed(this, `${step}Done`)));
      }
      map.itemProcessor(task);
      return ended(map);
    };
    // Each shard's pages, in shard order, go to every later step (`counts`).
    const collect = shardMap('CollectShards', 'CollectShard', 'collect', {
      loop: true,
      resultPath: '$.finalize.collected',
      resultSelector: { 'counts.$': '$[*].base' },
    });
    const counts = { 'counts.$': '$.finalize.collected.counts' };
    const gather = shardMap('GatherShards', 'GatherShard', 'gather', { selector: counts });
    const link = shardMap('LinkShards', 'LinkShard', 'link', { selector: counts });
    const degrees = shardMap('DegreeShards', 'DegreeShard', 'degrees', { selector: counts });
    // RankCheck runs before the first round (it writes the shares of rank the round reads) and after each.
    const rank = shardMap('RankShards', 'RankShard', 'rank', { selector: { 'round.$': '$.finalize.round', ...counts }, resultPath: '$.finalize.deltas' });
    const check = ended(
      invoke(this, 'RankCheck', props.finalizeRun, {
        payload: sfn.TaskInput.fromObject({ action: 'rank-check', 'runId.$': '$.runId', 'finalize.$': '$.finalize' }),
        resultPath: '$.finalize',
      }),
    );
    const write = shardMap('WriteShards', 'WriteShard', 'write', { loop: true, selector: { 'round.$': '$.finalize.round', ...counts } });
    // The run's changes, a partition of them a child: link kinds decided (after the ranks), monitored changes told.
    const changes = shardMap('ChangeShards', 'ChangeShard', 'changes', {
      selector: { 'crawl.$': '$.crawl', 'status.$': '$.finalize.status' },
      resultPath: '$.finalize.changeCounts',
      items: 'changeShards',
    });
    // The run's archive in parts (its WARC files grouped by FinalizeStart), a child a part.
    const wacz = shardMap('PackageParts', 'PackagePart', 'package', { selector: { 'crawl.$': '$.crawl' }, items: 'parts' });
    // A run that failed (a run-loop state's error, carried to its end) ends its execution failed too.
    const end = ended(invoke(this, 'FinalizeRun', props.finalizeRun)).next(
      new sfn.Choice(this, 'RunEnded').when(sfn.Condition.stringEquals('$.status', 'failed'), runFailed).otherwise(new sfn.Succeed(this, 'RunDone')),
    );
    start.next(new sfn.Choice(this, 'SpreadOverShards').when(sfn.Condition.booleanEquals('$.finalize.spread', true), collect).otherwise(end));
    collect.next(gather).next(link).next(degrees).next(check);
    check.next(
      new sfn.Choice(this, 'Ranked').when(sfn.Condition.booleanEquals('$.finalize.done', true), write.next(changes).next(wacz).next(end)).otherwise(rank),
    );
    rank.next(check);
    return start;
  }

  private machine(id: string, type: sfn.StateMachineType, definition: sfn.IChainable, timeout: Duration, props: WorkflowsProps): sfn.StateMachine {
    const logGroup = new logs.LogGroup(this, `${id}Logs`, { retention: props.logRetention, removalPolicy: props.removalPolicy });
    const machine = new sfn.StateMachine(this, id, {
      stateMachineType: type,
      queryLanguage: sfn.QueryLanguage.JSON_PATH,
      definitionBody: sfn.DefinitionBody.fromChainable(definition),
      timeout,
      // A page workflow per page: X-Ray's sampled traces cost ~$1.2 per million pages, so they are opt-in.
      tracingEnabled: type === sfn.StateMachineType.EXPRESS ? (props.tracePages ?? false) : true,
      // The page workflow logs errors only, without execution data: at ALL with data it wrote ~32 KB a
      // page (a fifth of the cost per page) and crawled sites' cookies. The run machine logs it all.
      logs:
        type === sfn.StateMachineType.EXPRESS
          ? { destination: logGroup, level: sfn.LogLevel.ERROR, includeExecutionData: false }
          : { destination: logGroup, level: sfn.LogLevel.ALL, includeExecutionData: true },
    });
    if (type === sfn.StateMachineType.EXPRESS && !props.tracePages) {
      Validations.of(machine).acknowledge({
        id: 'AwsSolutions-SF2',
        reason:
          'The page workflow runs once per page: sampled X-Ray traces cost more than its Express execution (bench:cloud). Opt in with tracePages; the run machine is traced, and every step logs its errors.',
      });
    }
    if (type === sfn.StateMachineType.EXPRESS) {
      Validations.of(machine).acknowledge({
        id: 'AwsSolutions-SF1',
        reason:
          "The page workflow runs once per page: at ALL with execution data it logged ~32 KB a page (a fifth of the cost per page) and crawled sites' cookies. Errors are logged; every fetch is in the archive and failures in DynamoDB.",
      });
    }
    const fns = [
      props.initRun,
      ...(props.discover ? [props.discover.fn] : []),
      props.progress,
      props.finalizeRun,
      props.recordFailure,
      ...props.pageSteps.map((s) => s.fn),
      ...(props.render ? [props.render.fn] : []),
    ];
    if (type === sfn.StateMachineType.STANDARD) {
      // The Distributed Maps' child executions and map runs: CDK scopes them to this machine's executions.
      const name = JSON.stringify({
        'Fn::Select': [6, { 'Fn::Split': [':', { Ref: Stack.of(this).getLogicalId(machine.node.defaultChild as CfnResource) }] }],
      });
      // Rendered as the stack resolves them: placeholders in an environment-agnostic stack, the
      // region and account the CDK CLI gives a stack with an environment.
      const stack = Stack.of(this);
      const executions = `arn:${nagRef(this, stack.partition)}:states:${nagRef(this, stack.region)}:${nagRef(this, stack.account)}:execution:${name}`;
      const policy = machine.node.tryFindChild('DistributedMapPolicy');
      if (policy)
        Validations.of(policy).acknowledge(
          ...['', ...SHARD_MAPS.map((m) => `/${m}`)].map((suffix) => ({
            id: `AwsSolutions-IAM5[Resource::${executions}${suffix}:*]`,
            reason:
              "The run's end runs a child execution per shard in its Distributed Maps: the grant covers this machine's own executions and map runs, no other machine's.",
          })),
        );
    }
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
