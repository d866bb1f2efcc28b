// What only the DynamoDB store does (the port behaviour is in test/contract): texts too large for an item spill to S3.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { DynamoCrawlStore } from '../../../shared/store/aws/dynamo-store.js';
import { S3BlobStore, S3Objects } from '../../../shared/store/aws/s3-store.js';
import { startEmulators, type Emulators } from '../../cloud/emulators.js';

let emu: Emulators;
let n = 0;
before(async () => {
  emu = await startEmulators();
});
after(() => emu.stop());

async function fresh(): Promise<{ store: DynamoCrawlStore; table: string; queueUrl: string; objects: S3Objects }> {
  const names = await emu.provision(`ledger-${++n}`);
  const objects = new S3Objects(emu.clients.s3, names.bucket);
  return {
    store: new DynamoCrawlStore(emu.clients.doc, names.table, { blobs: new S3BlobStore(objects) }),
    table: names.table,
    queueUrl: names.queueUrl,
    objects,
  };
}

test('texts too large for an item go to S3 and come back whole', async () => {
  const { store } = await fresh();
  const big = 'word '.repeat(60_000);
  await store.saveExtraction(
    [],
    {
      urlId: 'p',
      runId: 1,
      snapshot: 's',
      wordCount: 60_000,
      readingMinutes: 200,
      method: 'readability',
      markdown: big,
      textHash: 't',
      simhash: '0123456789abcdef',
      metadata: {},
    },
    [],
  );
  assert.equal((await store.getExtract('p'))?.markdown, big);
  await store.putHost({
    host: 'h',
    state: { host: 'h', nextAllowedAt: 0, backoffUntil: 0, backoffStep: 0, consecutiveFailures: 0, crawlDelayMs: 0 },
    robotsStatus: 200,
    robotsBody: `User-agent: *\n${'Disallow: /x\n'.repeat(20_000)}`,
  });
  assert.equal((await store.getHost('h'))?.robotsBody?.length, 'User-agent: *\n'.length + 'Disallow: /x\n'.length * 20_000);
});
