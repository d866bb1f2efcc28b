import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { DataDirError } from '../../errors.js';
import { FileBlobStore, LocalBlobStore } from './blob-store.js';
import { DataDirLock } from './data-lock.js';
import { FileObjects } from './file-objects.js';
import { DB_FILE, prepareDataDir, SqliteCrawlStore, type OpenOptions } from './sqlite-store.js';
import { SqliteGraph } from './sqlite-graph.js';
import { SqliteChanges } from './sqlite-changes.js';
import { SqliteEnrichStore } from './sqlite-search.js';
import { SqliteVectorIndex } from './sqlite-vectors.js';

/** The embedded runtime's adapters over one data directory. */
export interface LocalStores {
  dataDir: string;
  store: SqliteCrawlStore;
  blobs: LocalBlobStore;
  graph: SqliteGraph;
  /** What changed between runs. */
  changes: SqliteChanges;
  objects: FileObjects;
  /** Summaries, tags, embedding metadata and the full-text index (the source of truth for search). */
  enrich: SqliteEnrichStore;
  /** The vector sink. */
  vectors: SqliteVectorIndex;
  /** Where WARC files are written. */
  warcDir: string;
  close(): Promise<void>;
}

/** Throws the one-line error for a directory no crawl has written yet. */
export function requireDataDir(dir: string, what = 'no trawl data'): void {
  if (!existsSync(join(dir, DB_FILE))) {
    throw new DataDirError(
      `${what} in ${dir}: no crawl has run there; run trawl crawl <url> --data ${dir} first, or pass --data with the directory of an earlier crawl`,
    );
  }
}

function stores(dataDir: string, store: SqliteCrawlStore, release: () => void): LocalStores {
  return {
    dataDir,
    store,
    blobs: new LocalBlobStore(store, new FileBlobStore(join(dataDir, 'blobs'), (file, bytes) => store.writeFile(file, bytes))),
    graph: new SqliteGraph(store.db),
    changes: new SqliteChanges(store.db),
    objects: new FileObjects(dataDir),
    enrich: new SqliteEnrichStore(store.db),
    vectors: new SqliteVectorIndex(store.db),
    warcDir: join(dataDir, 'warc'),
    async close() {
      try {
        await store.close();
      } finally {
        release();
      }
    },
  };
}

/**
 * Opens a data directory to write: creates it if needed, takes its lock (one writer at a time),
 * and checks the database before anything new goes in.
 */
export function openLocalForWriting(dataDir: string, command: string, options: Pick<OpenOptions, 'writerThread' | 'stages'> = {}): LocalStores {
  prepareDataDir(dataDir);
  const lock = DataDirLock.acquire(dataDir, command);
  try {
    return stores(dataDir, new SqliteCrawlStore(dataDir, { check: true, ...options }), () => lock.release());
  } catch (err) {
    lock.release();
    throw err;
  }
}

/** Opens an existing data directory to read: never writes, works while a crawl writes to it. */
export function openLocalForReading(dataDir: string): LocalStores {
  requireDataDir(dataDir);
  return stores(dataDir, new SqliteCrawlStore(dataDir, { readonly: true }), () => {});
}
