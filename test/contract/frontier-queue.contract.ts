import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { FrontierQueue, FrontierRow } from '../../shared/store/ports/index.js';
import { using, type Adapter } from './adapter.js';
import { frontierRow } from '../helpers.js';

/** A queue under test with a way to look at what it holds. */
export interface QueueProbe {
  queue: FrontierQueue;
  /** Receives what is visible now (and hides it for `visibilityS` seconds): bodies with their receipts and groups. */
  receive(visibilityS?: number): Promise<Array<{ body: string; receipt: string; group?: string }>>;
  /** What reached the dead-letter queue, with the reason attribute. */
  deadLetters(): Promise<Array<{ body: string; reason?: string; group?: string }>>;
}

const row = (id: string, host: string, attempts = 0): FrontierRow => frontierRow({ runId: 1, urlId: id, url: `http://${host}/${id}`, attempts });

/** The behaviour every FrontierQueue adapter must have. */
export function frontierQueueContract(name: string, adapter: Adapter<QueueProbe>): void {
  test(`${name}: one message group per host, deduplicated per run, URL and attempt`, () =>
    using(adapter, async (p) => {
      await p.queue.send([row('a', 'h1.test'), row('b', 'h2.test'), row('a', 'h1.test'), row('a', 'h1.test', 1)]);
      const got = [];
      for (let i = 0; i < 5; i++) got.push(...(await p.receive(60)));
      assert.deepEqual(
        got
          .map((m) => {
            const b = JSON.parse(m.body) as FrontierRow;
            return `${m.group}:${b.urlId}#${b.attempts}`;
          })
          .sort(),
        ['h1.test:a#0', 'h1.test:a#1', 'h2.test:b#0'],
      );
    }));

  test(`${name}: a message handed back is received again after its delay`, () =>
    using(adapter, async (p) => {
      await p.queue.send([row('c', 'h3.test')]);
      const [first] = await p.receive(60);
      assert.ok(first);
      await p.queue.handBack(first.receipt, 0);
      let again: Array<{ body: string }> = [];
      for (let i = 0; i < 20 && again.length === 0; i++) again = await p.receive(60);
      assert.equal((JSON.parse(again[0]!.body) as FrontierRow).urlId, 'c');
    }));

  test(`${name}: a malformed message goes to the dead-letter queue with its reason`, () =>
    using(adapter, async (p) => {
      await p.queue.deadLetter('{"not":"a row"}', 'malformed frontier message: runId: expected number', 'h4.test', 'm-1');
      assert.deepEqual(await p.deadLetters(), [{ body: '{"not":"a row"}', reason: 'malformed frontier message: runId: expected number', group: 'h4.test' }]);
    }));
}
