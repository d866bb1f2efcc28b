import { DescribeExecutionCommand, ExecutionDoesNotExist, StartExecutionCommand, type SFNClient } from '@aws-sdk/client-sfn';
import type { WorkflowExecution, WorkflowRunner } from '../../ports/index.js';

/**
 * Starts executions of one state machine (the Express page workflow, or the standard run machine)
 * and describes them by name (standard machines only: Express executions are not kept). Names
 * longer than 80 characters are cut.
 */
export class SfnWorkflow implements WorkflowRunner {
  constructor(
    private readonly sfn: SFNClient,
    readonly stateMachineArn: string,
  ) {}

  async start(name: string, input: unknown): Promise<void> {
    await this.sfn.send(new StartExecutionCommand({ stateMachineArn: this.stateMachineArn, name: name.slice(0, 80), input: JSON.stringify(input) }));
  }

  async describe(name: string): Promise<WorkflowExecution | undefined> {
    // arn:aws:states:<region>:<account>:stateMachine:<machine> → …:execution:<machine>:<name>
    const executionArn = `${this.stateMachineArn.replace(':stateMachine:', ':execution:')}:${name.slice(0, 80)}`;
    try {
      const out = await this.sfn.send(new DescribeExecutionCommand({ executionArn }));
      return {
        status: out.status ?? 'RUNNING',
        startedAt: out.startDate?.getTime() ?? 0,
        ...(out.output ? { output: JSON.parse(out.output) as unknown } : {}),
        ...(out.error || out.cause ? { error: [out.error, out.cause].filter(Boolean).join(': ') } : {}),
      };
    } catch (err) {
      if (err instanceof ExecutionDoesNotExist) return undefined;
      throw err;
    }
  }
}
