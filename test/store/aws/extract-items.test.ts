// A page's EXTRACT item on the DynamoDB emulator: markdown from MARKDOWN_GZIP_FROM bytes on is kept
// gzipped, and every reader (the record, its chunks, the archive's page list) gets it back whole.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { DynamoCrawlStore } from '../../../shared/store/aws/dynamo-store.js';
import { DynamoArchivedPages } from '../../../shared/store/aws/dynamo-archived.js';
import { S3BlobStore, S3Objects } from '../../../shared/store/aws/s3-store.js';
import { MARKDOWN_GZIP_FROM, pageItem } from '../../../shared/store/aws/dynamo-items.js';
import { keys } from '../../../shared/store/aws/table-layout.js';
import { extract, page } from '../../store-records.js';
import { startEmulators, type Emulators } from '../../../support/cloud/emulators.js';

let emu: Emulators;
before(async () => {
  emu = await startEmulators();
});
after(() => emu.stop());

test('markdown long enough is gzipped in its EXTRACT item and read back whole by the record, its chunks and the archive’s page list; short markdown stays as it is', async () => {
  const names = await emu.provision('extract-items');
  const store = new DynamoCrawlStore(emu.clients.doc, names.table, { blobs: new S3BlobStore(new S3Objects(emu.clients.s3, names.bucket)) });
  const long = Array.from({ length: 40 }, (_, i) => `Sentence ${i} of a page about harbours and their boats.`).join(' ');
  assert.ok(Buffer.byteLength(long) > 4 * MARKDOWN_GZIP_FROM);
  const chunk = { urlId: 'p1', seq: 0, id: 'c0', position: 0, tokens: 9, text: long.slice(0, 120) };
  await store.saveExtraction([], extract('p1', long, 's1', { runId: 1, textHash: 'th1' }), [chunk]);
  await store.saveExtraction([], extract('p2', 'A short page.', 's1', { runId: 1 }), []);

  const item = (id: string) => emu.clients.doc.send(new GetCommand({ TableName: names.table, Key: keys.extract(id) })).then((r) => r.Item!);
  const stored = await item('p1');
  assert.equal(stored.markdown, undefined);
  assert.ok(stored.markdownGz instanceof Uint8Array && stored.markdownGz.byteLength < Buffer.byteLength(long) / 2, 'gzipped, and smaller');
  assert.equal((await item('p2')).markdown, 'A short page.');

  assert.equal((await store.getExtract('p1'))?.markdown, long);
  assert.equal('markdownGz' in (await store.getExtract('p1'))!, false);
  assert.equal((await store.getExtract('p2'))?.markdown, 'A short page.');
  assert.deepEqual(await store.chunks('p1'), [chunk]);

  await emu.clients.doc.send(new PutCommand({ TableName: names.table, Item: pageItem(page({ runId: 1, urlId: 'p1', contentHash: 'h1' })) }));
  const listed = [];
  for await (const p of new DynamoArchivedPages(emu.clients.doc, names.table).archivedPagesOf(1, ['p1'])) listed.push(p);
  assert.equal(listed[0]?.text, long);
});
