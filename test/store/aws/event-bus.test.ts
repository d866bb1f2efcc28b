// The EventBridge bus puts events ten a call, several calls at once, and sends again only the
// entries a call refused: every event arrives once, and a bus that keeps refusing fails the put
// with the count it did not take.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { EventBridgeBus } from '../../../shared/store/aws/event-bus.js';
import { startEventBridgeServer, type EventBridgeServer } from '../../../support/cloud/eventbridge-server.js';

let server: EventBridgeServer;
let client: EventBridgeClient;
before(async () => {
  server = await startEventBridgeServer();
  client = new EventBridgeClient({ endpoint: server.origin, region: 'us-east-1', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
});
after(async () => {
  client.destroy();
  await server.close();
});

const events = (n: number, tag: string) => Array.from({ length: n }, (_, i) => ({ type: 'trawl.page.changed' as const, detail: { tag, i } }));

test('every event arrives once when calls fail whole and entries are refused alone', async () => {
  const bus = new EventBridgeBus(client, 'bus');
  server.failNext(2);
  server.refuseEvery(7);
  await bus.put(events(95, 'a'));
  server.refuseEvery(0);
  const got = server.events.filter((e) => e.detail.tag === 'a').map((e) => Number(e.detail.i));
  assert.equal(got.length, 95, 'no event lost, none repeated');
  assert.deepEqual(
    [...new Set(got)].sort((x, y) => x - y),
    Array.from({ length: 95 }, (_, i) => i),
  );
});

test('a bus that keeps refusing fails the put, naming what it did not take', async () => {
  const bus = new EventBridgeBus(client, 'bus');
  server.failNext(4);
  await assert.rejects(bus.put(events(3, 'b')), /EventBridge did not take 3 of 3 events on bus: InternalFailure: try again/);
  server.failNext(0);
});
