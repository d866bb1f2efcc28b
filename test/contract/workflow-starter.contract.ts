import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { WorkflowStarter } from '../../shared/ports/index.js';
import { using, type Adapter } from './adapter.js';

/** A starter under test with the executions its endpoint received. */
export interface StarterProbe {
  starter: WorkflowStarter;
  started(): Array<{ name: string; input: unknown }>;
}

/** The behaviour every WorkflowStarter adapter must have. */
export function workflowStarterContract(name: string, adapter: Adapter<StarterProbe>): void {
  test(`${name}: starts an execution with its name and JSON input; long names are cut to the service's limit`, () =>
    using(adapter, async (p) => {
      await p.starter.start('r1-abc-0-xyz', { runId: 1, row: { url: 'http://a.test/' } });
      await p.starter.start('n'.repeat(120), { runId: 2 });
      assert.deepEqual(p.started(), [
        { name: 'r1-abc-0-xyz', input: { runId: 1, row: { url: 'http://a.test/' } } },
        { name: 'n'.repeat(80), input: { runId: 2 } },
      ]);
    }));
}
