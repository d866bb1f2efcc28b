/** Starts a workflow execution (the page workflow) with a JSON input; at least once. */
export interface WorkflowStarter {
  start(name: string, input: unknown): Promise<void>;
}
