// The port contracts, run against the AWS adapters on in-process emulators (DynamoDB, S3).
import { after, before } from 'node:test';
import { DynamoCrawlStore } from '../../shared/store/aws/dynamo-store.js';
import { S3BlobStore, S3Objects } from '../../shared/store/aws/s3-store.js';
import { startEmulators, type Emulators } from '../cloud/emulators.js';
import { blobStoreContract, crawlStoreContract } from './crawl-store.contract.js';

let emu: Emulators;
let n = 0;
before(async () => {
  emu = await startEmulators();
});
after(() => emu.stop());

async function fresh(): Promise<{ objects: S3Objects; table: string }> {
  const { table, bucket } = await emu.provision(`contract-${++n}`);
  return { objects: new S3Objects(emu.clients.s3, bucket), table };
}

crawlStoreContract('dynamodb', {
  async open() {
    const { objects, table } = await fresh();
    return new DynamoCrawlStore(emu.clients.doc, table, { blobs: new S3BlobStore(objects) });
  },
  close: (store) => store.close(),
});
blobStoreContract('s3', { open: async () => new S3BlobStore((await fresh()).objects), close: async () => {} });
