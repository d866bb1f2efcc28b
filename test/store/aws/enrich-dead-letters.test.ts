// The cloud's enrichment dead letters on the DynamoDB emulator: a page's EXTRACT item carries the
// mark of its dead letter, so an enrichment deletes one only where there is one.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { DynamoCrawlStore } from '../../../shared/store/aws/dynamo-store.js';
import { DynamoEnrichStore } from '../../../shared/store/aws/dynamo-enrich.js';
import { S3BlobStore, S3Objects } from '../../../shared/store/aws/s3-store.js';
import { pageItem } from '../../../shared/store/aws/dynamo-items.js';
import { enrichmentRecord } from '../../contract/enrich-store.contract.js';
import { extract, page } from '../../store-records.js';
import { startEmulators, type Emulators } from '../../../support/cloud/emulators.js';

let emu: Emulators;
before(async () => {
  emu = await startEmulators();
});
after(() => emu.stop());

test("an enrichment deletes its page's dead letter only where the page is marked, the mark outlives a new extraction, and an unmarked old one is left out once the page is enriched", async () => {
  const names = await emu.provision('dead-letters');
  const objects = new S3Objects(emu.clients.s3, names.bucket);
  const blobs = new S3BlobStore(objects);
  const store = new DynamoCrawlStore(emu.clients.doc, names.table, { blobs });
  const deletes: string[] = [];
  const counted = {
    send: (command: never) => {
      const c = command as { constructor: { name: string }; input: { Key?: { PK?: string } } };
      if (c.constructor.name === 'DeleteCommand') deletes.push(String(c.input.Key?.PK));
      return emu.clients.doc.send(command);
    },
  } as never;
  const enrich = new DynamoEnrichStore(counted, names.table, blobs, objects);
  for (const id of ['a1', 'b2']) {
    await emu.clients.doc.send(new PutCommand({ TableName: names.table, Item: pageItem(page({ runId: 1, urlId: id })) }));
    await store.saveExtraction([], extract(id, `the text of ${id}`, 's1'), []);
  }
  const enrichOnce = async (id: string, at: number) => {
    const candidate = await enrich.enrichCandidate(id);
    assert.ok(candidate, id);
    await enrich.putEnrichment({ ...enrichmentRecord(id, `Page ${id}`, []), updatedAt: at }, candidate.markdown);
  };

  // A page enriched with no dead letter: nothing deleted.
  await enrichOnce('a1', 10);
  assert.deepEqual(deletes, []);

  // A dead letter marks its page; a new extraction keeps the mark; the next enrichment deletes it.
  await enrich.recordEnrichFailure({ urlId: 'b2', url: 'http://a.test/b2', stage: 'summary', error: 'throttled', attempts: 1, failedAt: 20 });
  await store.saveExtraction([], extract('b2', 'the new text of b2', 's2'), []);
  assert.deepEqual(
    (await enrich.enrichFailures()).map((f) => f.urlId),
    ['b2'],
  );
  assert.equal((await store.getExtract('b2'))?.markdown, 'the new text of b2');
  assert.equal('deadLettered' in (await store.getExtract('b2'))!, false, 'the mark is the store’s, not the record’s');
  await enrichOnce('b2', 30);
  assert.deepEqual(deletes, ['ENRICH_FAILURES']);
  assert.deepEqual(await enrich.enrichFailures(), []);

  // A dead letter an earlier version wrote (no mark): listed until its page has a newer record.
  await emu.clients.doc.send(
    new PutCommand({
      TableName: names.table,
      Item: {
        PK: 'ENRICH_FAILURES',
        SK: 'a1',
        type: 'ENRICH_FAILURE',
        urlId: 'a1',
        url: 'http://a.test/a1',
        stage: 'tags',
        error: 'x',
        attempts: 1,
        failedAt: 40,
      },
    }),
  );
  assert.deepEqual(
    (await enrich.enrichFailures()).map((f) => f.urlId),
    ['a1'],
  );
  await enrichOnce('a1', 50);
  assert.deepEqual(await enrich.enrichFailures(), []);
});
