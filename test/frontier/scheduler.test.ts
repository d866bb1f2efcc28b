// The heap of hosts: a host is in line once, at its next allowed time, and never lost.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HostScheduler } from '../../shared/frontier/scheduler.js';
import { HostQueue } from '../../shared/frontier/host-queue.js';

function hostWithTurn(): HostQueue {
  const q = new HostQueue('a.test', 'http://a.test');
  q.robots = { kind: 'allow-all', status: 404 };
  q.turns.push({ run: () => Promise.resolve(), cancel: () => undefined });
  return q;
}

test('a host launched for a turn while in line is put in line again when it is done, at the same time or another', () => {
  const scheduler = new HostScheduler();
  const q = hostWithTurn();
  scheduler.schedule(q);
  // The runner launches it for its turn without asking the scheduler; its node is dropped as busy.
  q.busy = true;
  assert.equal(scheduler.next(Date.now()), undefined);
  assert.equal(scheduler.isEmpty(), true);
  // Its turn changed nothing of its politeness state: it is ready at the same time as before.
  q.busy = false;
  scheduler.schedule(q);
  assert.equal(scheduler.isEmpty(), false);
  const next = scheduler.next(Date.now());
  assert.ok(next && 'queue' in next && next.queue === q, 'the host is in line again');
});

test('a host scheduled twice at the same time is in line once', () => {
  const scheduler = new HostScheduler();
  const q = hostWithTurn();
  scheduler.schedule(q);
  scheduler.schedule(q);
  const first = scheduler.next(Date.now());
  assert.ok(first && 'queue' in first);
  assert.equal(scheduler.next(Date.now()), undefined);
});
