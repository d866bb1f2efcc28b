import { StartExecutionCommand, type SFNClient } from '@aws-sdk/client-sfn';
import type { WorkflowStarter } from '../ports/index.js';

/** Starts executions of one state machine (the Express page workflow). Names longer than 80 characters are cut. */
export class SfnWorkflow implements WorkflowStarter {
  constructor(
    private readonly sfn: SFNClient,
    readonly stateMachineArn: string,
  ) {}

  async start(name: string, input: unknown): Promise<void> {
    await this.sfn.send(new StartExecutionCommand({ stateMachineArn: this.stateMachineArn, name: name.slice(0, 80), input: JSON.stringify(input) }));
  }
}
