// The port contracts, run against the embedded adapters (the AWS adapters join with the cloud runtime).
import { FileBlobStore } from '../../shared/store/local/blob-store.js';
import { SqliteCrawlStore } from '../../shared/store/local/sqlite-store.js';
import { tempDir } from '../helpers.js';
import { blobStoreContract, crawlStoreContract } from './crawl-store.contract.js';

const dirs = new Map<object, () => void>();

crawlStoreContract('sqlite', {
  async open() {
    const { dir, cleanup } = tempDir();
    const store = new SqliteCrawlStore(dir);
    dirs.set(store, cleanup);
    return store;
  },
  async close(store) {
    await store.close();
    dirs.get(store)?.();
  },
});

blobStoreContract('files', {
  async open() {
    const { dir, cleanup } = tempDir();
    const blobs = new FileBlobStore(dir);
    dirs.set(blobs, cleanup);
    return blobs;
  },
  async close(blobs) {
    dirs.get(blobs)?.();
  },
});
