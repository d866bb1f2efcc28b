import { join } from 'node:path';
import type { CrawlSettings } from '../config/settings.js';
import type { Resolver } from '../fetch/address-guard.js';
import { HttpFetcher, type Fetcher } from '../fetch/http-fetcher.js';
import { defaultPriority, type PriorityFn } from '../frontier/priority.js';
import { createLogger, type Logger } from '../log/logger.js';
import { FileBlobStore } from '../store/local/blob-store.js';
import { prepareDataDir, SqliteCrawlStore } from '../store/local/sqlite-store.js';
import { DataDirLock } from '../store/local/data-lock.js';
import { canonicalize } from '../url/canonical.js';
import { robotsTokenOf, type CrawlContext } from './context.js';
import { WarcWriter } from '../archive/warc-writer.js';
import { InlineExtractor, WorkerExtractor } from '../extract/extractor.js';
import { availableParallelism } from 'node:os';
import { SqliteGraph } from '../store/local/sqlite-graph.js';
import type { CrawlStore, GraphStore } from '../store/ports.js';

export interface EmbeddedOverrides {
  clock?: () => number;
  fetcher?: Fetcher;
  /** Builds the fetcher from the store (the archive replay reads the store's index). */
  fetcherFor?: (store: CrawlStore) => Fetcher;
  resolver?: Resolver;
  priority?: PriorityFn;
  logger?: Logger;
  /** What takes the data directory's lock, for the message a second writer sees (default `trawl`). */
  command?: string;
}

/** Builds the embedded runtime: SQLite + blob files in the data directory, the live HTTP fetcher. */
export function openEmbedded(settings: CrawlSettings, overrides: EmbeddedOverrides = {}): CrawlContext & { graph: GraphStore; close(): Promise<void> } {
  // One writer per data directory: the lock is taken before anything is opened for writing.
  prepareDataDir(settings.data);
  const lock = DataDirLock.acquire(settings.data, overrides.command ?? 'trawl');
  let store: SqliteCrawlStore;
  try {
    store = new SqliteCrawlStore(settings.data, { check: true });
  } catch (err) {
    lock.release();
    throw err;
  }
  const blobs = new FileBlobStore(join(settings.data, 'blobs'));
  const fetcher = overrides.fetcher ?? overrides.fetcherFor?.(store) ?? new HttpFetcher({
    userAgent: settings.userAgent,
    allowPrivateNetwork: settings.allowPrivateNetwork,
    maxBodyBytes: settings.maxBodyBytes,
    connectTimeoutMs: settings.connectTimeoutMs,
    totalTimeoutMs: settings.timeoutMs,
    resolver: overrides.resolver,
  });
  const canonical = { trackingParams: settings.trackingParams, sessionParams: settings.sessionParams };
  const archive = new WarcWriter(join(settings.data, 'warc'), { maxFileBytes: settings.warcMaxBytes });
  const workers = settings.extractWorkers === 'auto' ? Math.max(1, availableParallelism() - 1) : settings.extractWorkers;
  const extractor = workers > 0 ? new WorkerExtractor(canonical, { size: workers, timeoutMs: settings.extractTimeoutMs, memoryMb: settings.extractMemoryMb }) : new InlineExtractor(canonical);
  return {
    settings, store, blobs, fetcher, canonical, archive, extractor,
    graph: new SqliteGraph(store.db),
    clock: overrides.clock ?? Date.now,
    priority: overrides.priority ?? defaultPriority,
    logger: overrides.logger ?? createLogger('warn'),
    robotsToken: robotsTokenOf(settings.userAgent),
    canonicalize: (href) => canonicalize(href, undefined, canonical),
    async close() {
      try {
        await extractor.close();
        archive.close();
        await fetcher.close();
        await store.close();
      } finally {
        lock.release();
      }
    },
  };
}
