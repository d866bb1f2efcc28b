// The port contracts, run against the embedded adapters (SQLite and files).
import { FileBlobStore } from '../../shared/store/local/blob-store.js';
import { FileObjects } from '../../shared/store/local/file-objects.js';
import { SqliteCrawlStore } from '../../shared/store/local/sqlite-store.js';
import { SqliteGraph } from '../../shared/store/local/sqlite-graph.js';
import { inTempDir } from './adapter.js';
import { blobStoreContract } from './blob-store.contract.js';
import { crawlStoreContract } from './crawl-store.contract.js';
import { graphStoreContract } from './graph-store.contract.js';
import { objectStoreContract } from './object-store.contract.js';
import { vectorIndexContract } from './vector-index.contract.js';
import { SqliteEnrichStore, SqliteVectorIndex } from '../../shared/store/local/sqlite-search.js';
import { enrichStoreContract } from './enrich-store.contract.js';

crawlStoreContract(
  'sqlite',
  inTempDir(
    (dir) => new SqliteCrawlStore(dir),
    (store) => store.close(),
  ),
);
blobStoreContract(
  'files',
  inTempDir((dir) => new FileBlobStore(dir)),
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
