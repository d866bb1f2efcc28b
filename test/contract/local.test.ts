// The port contracts, run against the embedded adapters (the AWS adapters join with the cloud runtime).
import { FileBlobStore } from '../../shared/store/local/blob-store.js';
import { SqliteCrawlStore } from '../../shared/store/local/sqlite-store.js';
import { tempDir } from '../helpers.js';
import { blobStoreContract, crawlStoreContract, type Adapter } from './crawl-store.contract.js';

/** An adapter whose store lives in a fresh temporary directory, removed when it is closed. */
function inTempDir<T extends object>(make: (dir: string) => T, close: (store: T) => Promise<void> = async () => {}): Adapter<T> {
  const cleanups = new Map<T, () => void>();
  return {
    async open() {
      const { dir, cleanup } = tempDir();
      const store = make(dir);
      cleanups.set(store, cleanup);
      return store;
    },
    async close(store) {
      await close(store);
      cleanups.get(store)?.();
    },
  };
}

crawlStoreContract('sqlite', inTempDir((dir) => new SqliteCrawlStore(dir), (store) => store.close()));
blobStoreContract('files', inTempDir((dir) => new FileBlobStore(dir)));
