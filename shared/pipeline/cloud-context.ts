import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { WarcWriter } from '../archive/warc-writer.js';
import { settingsFrom } from '../config/settings.js';
import { InlineExtractor } from '../extract/extractor.js';
import type { Resolver } from '../fetch/address-guard.js';
import { HttpFetcher } from '../fetch/http-fetcher.js';
import { defaultPriority } from '../frontier/priority.js';
import type { Logger } from '../log/logger.js';
import type { BlobStore, CrawlStore, FrontierQueue, ObjectStore, RunLedger, RunRecord } from '../store/ports.js';
import { s3Keys } from '../store/aws/table.js';
import { canonicalize } from '../url/canonical.js';
import { robotsTokenOf, type CrawlContext } from './context.js';

/** What every cloud stage is built from: the adapters, made once per Lambda container. */
export interface CloudDeps {
  store: CrawlStore & RunLedger;
  blobs: BlobStore;
  objects: ObjectStore;
  frontier: FrontierQueue;
  logger: Logger;
  clock?: () => number;
  /** Tests resolve the synthetic web's names; Lambda uses DNS. */
  resolver?: Resolver;
}

/** A stage's context for one run: the run's settings, a fetcher, and a WARC writer whose files go to S3. */
export interface CloudContext extends CrawlContext {
  store: CrawlStore & RunLedger;
  frontier: FrontierQueue;
  objects: ObjectStore;
  run: RunRecord;
  /** Names this invocation in host claims and WARC file names. */
  workerId: string;
  /** Uploads the WARC files written to `warc/run-<id>/` and releases the fetcher. */
  close(): Promise<void>;
}

export class RunNotFoundError extends Error {
  constructor(runId: number) {
    super(`run ${runId} is not in the table: the message belongs to a run that was never created or was deleted; it is dropped`);
    this.name = 'RunNotFoundError';
  }
}

/** The settings a run was started with (stored in its record), without the embedded-only data directory. */
export function runSettings(run: RunRecord) {
  const { data: _data, crawl: _crawl, ...rest } = run.config;
  return settingsFrom(rest, `run ${run.id}`);
}

export async function cloudContext(deps: CloudDeps, runId: number): Promise<CloudContext> {
  const run = await deps.store.getRun(runId);
  if (!run) throw new RunNotFoundError(runId);
  const settings = runSettings(run);
  const workerId = randomBytes(6).toString('hex');
  const fetcher = new HttpFetcher({
    userAgent: settings.userAgent, allowPrivateNetwork: settings.allowPrivateNetwork, maxBodyBytes: settings.maxBodyBytes,
    connectTimeoutMs: settings.connectTimeoutMs, totalTimeoutMs: settings.timeoutMs, resolver: deps.resolver,
  });
  const canonical = { trackingParams: settings.trackingParams, sessionParams: settings.sessionParams };
  const dir = mkdtempSync(join(tmpdir(), 'trawl-warc-'));
  const archive = new WarcWriter(dir, { maxFileBytes: settings.warcMaxBytes, fileTag: workerId });
  return {
    settings, store: deps.store, blobs: deps.blobs, objects: deps.objects, frontier: deps.frontier, fetcher, canonical, archive,
    extractor: new InlineExtractor(canonical), clock: deps.clock ?? Date.now, priority: defaultPriority, logger: deps.logger,
    robotsToken: robotsTokenOf(settings.userAgent), canonicalize: (href) => canonicalize(href, undefined, canonical), run, workerId,
    async close() {
      archive.close();
      try {
        for (const file of archive.files) await deps.objects.put(s3Keys.warc(runId, basename(file)), readFileSync(file), 'application/warc');
      } finally {
        rmSync(dir, { recursive: true, force: true });
        await fetcher.close();
      }
    },
  };
}

/** Runs `fn` with a context for the run and always closes it (the WARC files reach S3 even when `fn` fails). */
export async function withRun<T>(deps: CloudDeps, runId: number, fn: (ctx: CloudContext) => Promise<T>): Promise<T> {
  const ctx = await cloudContext(deps, runId);
  try {
    return await fn(ctx);
  } finally {
    await ctx.close();
  }
}
