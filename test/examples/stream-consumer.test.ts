// The README's stream consumer, fed stream records built from items the cloud store really wrote.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import type { DynamoDBStreamEvent } from 'aws-lambda';
import { changesFrom } from '../../examples/stream-consumer.js';
import { DynamoCrawlStore } from '../../shared/store/aws/dynamo-store.js';
import { S3BlobStore, S3Objects } from '../../shared/store/aws/s3-store.js';
import { keys } from '../../shared/store/aws/table-layout.js';
import { startEmulators, type Emulators } from '../../support/cloud/emulators.js';

let emu: Emulators;
before(async () => {
  emu = await startEmulators();
});
after(() => emu.stop());

test('reports a page whose body changed and the links that appeared', async () => {
  const names = await emu.provision('stream');
  const store = new DynamoCrawlStore(emu.clients.doc, names.table, { blobs: new S3BlobStore(new S3Objects(emu.clients.s3, names.bucket)) });
  const raw = async (key: Record<string, string>) =>
    (await emu.clients.dynamo.send(new GetItemCommand({ TableName: names.table, Key: { PK: { S: key.PK! }, SK: { S: key.SK! } } }))).Item;
  const page = (hash: string, at: number) => ({
    urlId: 'p',
    url: 'http://a.test/p',
    host: 'a.test',
    runId: 1,
    status: 200,
    mime: 'text/html',
    bytes: 1,
    truncated: false,
    fetchedAt: at,
    indexable: true,
    nofollow: false,
    contentHash: hash,
  });
  const run = await store.createRun([], {}, 1);
  await store.commitFetch({ runId: run.id, urlId: 'p', state: 'done', attempts: 1, page: page('h1', 10) });
  const before = await raw(keys.page('p'));
  await store.commitFetch({
    runId: run.id,
    urlId: 'p',
    state: 'done',
    attempts: 2,
    page: page('h2', 20),
    edges: [
      {
        fromId: 'p',
        snapshot: 'h2',
        toId: 'q',
        toUrl: 'http://a.test/q',
        anchor: 'Q',
        context: 'see Q here',
        section: 'body',
        rel: '',
        internal: true,
        nofollow: false,
      },
    ],
  });
  const event = {
    Records: [
      { eventName: 'MODIFY', dynamodb: { OldImage: before, NewImage: await raw(keys.page('p')) } },
      { eventName: 'INSERT', dynamodb: { NewImage: await raw(keys.links('p', 'h2')) } },
      { eventName: 'MODIFY', dynamodb: { OldImage: await raw(keys.page('p')), NewImage: await raw(keys.page('p')) } },
    ],
  } as unknown as DynamoDBStreamEvent;
  const { pages, links } = changesFrom(event);
  assert.deepEqual(pages, [{ url: 'http://a.test/p', contentHash: 'h2', previousHash: 'h1', fetchedAt: 20 }]);
  assert.deepEqual(links, [{ fromId: 'p', toUrl: 'http://a.test/q', anchor: 'Q', context: 'see Q here', section: 'body' }]);
});
