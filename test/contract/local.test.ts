// The port contracts, run against the embedded adapters (SQLite and files).
import { FileBlobStore } from '../../shared/store/local/blob-store.js';
import { FileObjects } from '../../shared/store/local/file-objects.js';
import { openLocalForWriting, type LocalStores } from '../../shared/store/local/open-local.js';
import { SqliteCrawlStore } from '../../shared/store/local/sqlite-store.js';
import { SqliteGraph } from '../../shared/store/local/sqlite-graph.js';
import { inTempDir } from './adapter.js';
import { tempDir } from '../../support/helpers.js';
import { blobStoreContract } from './blob-store.contract.js';
import { crawlStoreContract } from './crawl-store.contract.js';
import { graphStoreContract } from './graph-store.contract.js';
import { objectStoreContract } from './object-store.contract.js';
import { vectorIndexContract } from './vector-index.contract.js';
import { SqliteEnrichStore } from '../../shared/store/local/sqlite-search.js';
import { SqliteVectorIndex } from '../../shared/store/local/sqlite-vectors.js';
import { enrichStoreContract } from './enrich-store.contract.js';

crawlStoreContract(
  'sqlite',
  inTempDir(
    (dir) => new SqliteCrawlStore(dir),
    (store) => store.close(),
  ),
);
// The same contract with every write on the crawl's writer thread (once it is up).
crawlStoreContract('sqlite (writer thread)', {
  async open() {
    const { dir, cleanup } = tempDir();
    const store = new SqliteCrawlStore(dir, { writerThread: true });
    await store.writerReady();
    if (!store.writesOnThread) throw new Error('the writer thread did not start');
    return Object.assign(store, { cleanup });
  },
  async close(store) {
    await store.close();
    (store as unknown as { cleanup: () => void }).cleanup();
  },
});
blobStoreContract(
  'files',
  inTempDir((dir) => new FileBlobStore(dir)),
);
// A data directory's bodies as a crawl keeps them: small ones in its database, on the writer thread.
const crawls = new Map<object, LocalStores>();
blobStoreContract(
  'database and files (writer thread)',
  inTempDir(
    (dir) => {
      const local = openLocalForWriting(dir, 'test', { writerThread: true });
      crawls.set(local.blobs, local);
      return local.blobs;
    },
    async (blobs) => {
      await crawls.get(blobs)?.close();
      crawls.delete(blobs);
    },
  ),
);
objectStoreContract(
  'files',
  inTempDir((dir) => new FileObjects(dir)),
);
graphStoreContract(
  'sqlite',
  inTempDir(
    (dir) => {
      const store = new SqliteCrawlStore(dir);
      return { store, graph: new SqliteGraph(store.db) };
    },
    (pair) => pair.store.close(),
  ),
);
vectorIndexContract(
  'sqlite',
  inTempDir(
    (dir) => {
      const store = new SqliteCrawlStore(dir);
      return Object.assign(new SqliteVectorIndex(store.db), { store });
    },
    (index) => index.store.close(),
  ),
);
// The same behaviour when every query goes through the sketches first (all of them passed on).
vectorIndexContract(
  'sqlite, sketched',
  inTempDir(
    (dir) => {
      const store = new SqliteCrawlStore(dir);
      return Object.assign(new SqliteVectorIndex(store.db, { approximateFrom: 1, candidateShare: 1 }), { store });
    },
    (index) => index.store.close(),
  ),
);
enrichStoreContract(
  'sqlite',
  inTempDir(
    (dir) => {
      const store = new SqliteCrawlStore(dir);
      return { store, enrich: new SqliteEnrichStore(store.db) };
    },
    (pair) => pair.store.close(),
  ),
);
