/** Starts a workflow execution (the page workflow) with a JSON input; at least once. */
export interface WorkflowStarter {
  start(name: string, input: unknown): Promise<void>;
}

/** One execution of a standard workflow, as its state machine tells it. */
export interface WorkflowExecution {
  status: 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'TIMED_OUT' | 'ABORTED' | 'PENDING_REDRIVE';
  startedAt: number;
  /** Its output once it succeeded. */
  output?: unknown;
  /** Why it failed, when it did. */
  error?: string;
}

/** Starts executions of a standard workflow (the run state machine) and reads them back by name. */
export interface WorkflowRunner extends WorkflowStarter {
  /** The execution of that name; undefined when there is none. */
  describe(name: string): Promise<WorkflowExecution | undefined>;
}
