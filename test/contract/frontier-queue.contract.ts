import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { FrontierQueue, HostTurn } from '../../shared/ports/index.js';
import { using, type Adapter } from './adapter.js';

/** A queue under test with a way to look at what it holds. */
export interface QueueProbe {
  queue: FrontierQueue;
  /** Receives what is visible now (and hides it for `visibilityS` seconds): bodies with their receipts and groups. */
  receive(visibilityS?: number): Promise<Array<{ body: string; receipt: string; group?: string }>>;
  /** What reached the dead-letter queue, with the reason attribute. */
  deadLetters(): Promise<Array<{ body: string; reason?: string; group?: string }>>;
}

const turn = (host: string, n: number, runId = 1): HostTurn => ({ runId, host, turn: n });

/** The behaviour every FrontierQueue adapter must have. */
export function frontierQueueContract(name: string, adapter: Adapter<QueueProbe>): void {
  test(`${name}: one message group per host, a turn sent once per run, host, turn and copy`, () =>
    using(adapter, async (p) => {
      await p.queue.sendTurns([turn('h1.test', 1), turn('h2.test', 1), turn('h1.test', 1), turn('h1.test', 1, 2), { ...turn('h2.test', 1), copy: 'm-7' }]);
      const got = [];
      for (let i = 0; i < 6; i++) got.push(...(await p.receive(60)));
      assert.deepEqual(
        got
          .map((m) => {
            const b = JSON.parse(m.body) as HostTurn;
            return `${m.group}:${b.runId}/${b.turn}`;
          })
          .sort(),
        ['h1.test:1/1', 'h1.test:2/1', 'h2.test:1/1', 'h2.test:1/1'],
      );
      assert.ok(
        got.every((m) => !('copy' in (JSON.parse(m.body) as object))),
        'the copy tag is not in the body',
      );
    }));

  test(`${name}: a message handed back is received again after its delay`, () =>
    using(adapter, async (p) => {
      await p.queue.sendTurns([turn('h3.test', 4)]);
      const [first] = await p.receive(60);
      assert.ok(first);
      await p.queue.handBack(first.receipt, 0);
      let again: Array<{ body: string }> = [];
      for (let i = 0; i < 20 && again.length === 0; i++) again = await p.receive(60);
      assert.deepEqual(JSON.parse(again[0]!.body), { runId: 1, host: 'h3.test', turn: 4 });
    }));

  test(`${name}: a malformed message goes to the dead-letter queue with its reason`, () =>
    using(adapter, async (p) => {
      await p.queue.deadLetter('{"not":"a turn"}', 'malformed frontier message: runId: expected number', 'h4.test', 'm-1');
      assert.deepEqual(await p.deadLetters(), [{ body: '{"not":"a turn"}', reason: 'malformed frontier message: runId: expected number', group: 'h4.test' }]);
    }));
}
