import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { settingsFrom } from '../../config/resolve.js';
import { crawlScoring, type CrawlScoring } from '../../scoring/crawl-scoring.js';
import { parseProfile } from '../../scoring/profile.js';
import { RunNotFoundError } from '../../errors.js';
import type { Resolver } from '../../fetch/address-guard.js';
import type { Logger } from '../../log/logger.js';
import type {
  ArchivedPages,
  BlobStore,
  ChangeStore,
  CrawlStore,
  EventSink,
  FrontierQueue,
  HostQueues,
  ObjectStore,
  RequestActivity,
  RunLedger,
  RunRecord,
} from '../../ports/index.js';
import { buildContext, type CrawlContext, type Rendering } from '../stages/context.js';
import type { CrawlSettings } from '../../config/settings.js';
import type { Renderer } from '../../render/renderer.js';
import type { InvocationWarcs } from './invocation-warcs.js';

/** The cloud's store: the crawl's records, the claims and counters the workers share, the hosts' queues. */
export type CloudStore = CrawlStore & RunLedger & HostQueues & RequestActivity;

/** What every cloud stage is built from: the adapters, made once per Lambda container. */
export interface CloudDeps {
  store: CloudStore;
  blobs: BlobStore;
  objects: ObjectStore;
  frontier: FrontierQueue;
  logger: Logger;
  clock?: () => number;
  /** Tests resolve the synthetic web's names; Lambda uses DNS. */
  resolver?: Resolver;
  /** `workflow` (default): pages that need rendering go to the page workflow's Render step; `local`: this function renders (the Render step). */
  rendering?: Rendering;
  /** The renderer of this container for a run's settings (kept warm across invocations); default: one per invocation. */
  renderer?: (settings: CrawlSettings) => Renderer;
  /**
   * How long a fetch worker's claim on a URL lasts: past the fetch and its page workflow (Express,
   * 5 minutes). A claim that lapses is taken again by the stall recovery.
   * @default URL_LEASE_MS (10 minutes)
   */
  urlLeaseMs?: number;
  /**
   * How long a host's live turn may go without being handed on before a stall's recovery takes it
   * as lost and gives the host a new one.
   * @default TURN_STALE_MS (15 minutes)
   */
  turnStaleMs?: number;
  /** The construct's event bus (InitRun and FinalizeRun tell a run's start and end there); absent: no events. */
  events?: EventSink;
  /** Changes between runs (FinalizeRun counts them and tells the monitored ones on the bus); absent: none. */
  changes?: ChangeStore;
  /** A run's stored pages, for the WACZ FinalizeRun writes; absent: no WACZ. */
  archivedPages?: ArchivedPages;
  /** The WARC files of an invocation that takes several turns at once; absent: each context writes and uploads its own. */
  warcs?: InvocationWarcs;
  /** Extract writes each page's extraction under `extracted/` as well as into the table (the construct's `extractedSnapshots`). */
  extractedSnapshots?: boolean;
}

/** A stage's context for one run: the run's settings, a fetcher, and a WARC writer whose files go to S3. */
export interface CloudContext extends CrawlContext {
  store: CloudStore;
  frontier: FrontierQueue;
  objects: ObjectStore;
  run: RunRecord;
  /** Names this invocation in host claims and WARC file names. */
  workerId: string;
  urlLeaseMs?: number;
  /** Extract writes each page's extraction under `extracted/` too. */
  extractedSnapshots: boolean;
  /** Uploads the WARC files written to `warc/run-<id>/` (unless the invocation's `warcs` do) and releases the fetcher. */
  close(): Promise<void>;
}

/** The settings a run was started with (stored in its record), without the embedded-only data directory. */
export function runSettings(run: RunRecord) {
  const { data: _data, crawl: _crawl, scoringProfile: _profile, targets: _targets, endsBy: _endsBy, startedBy: _startedBy, ...rest } = run.config;
  return settingsFrom(rest, `run ${run.id}`);
}

/** A run's scoring: its profile (a custom one travels in the run's config), query and fields. */
export function runScoring(run: RunRecord, settings = runSettings(run)): CrawlScoring {
  const custom = run.config.scoringProfile;
  return crawlScoring(settings, custom ? parseProfile(custom, `run ${run.id} profile`) : undefined);
}

/**
 * How long a container reuses a run's RUN item: every fetch worker and Extract invocation reads it,
 * and one item a run takes only 3,000 read units a second (a hand-back costs another read). A
 * run stopped or past its deadline is seen within this long. A run with search or social targets
 * is read every time: Discover widens its scope while its links are being crawled.
 */
export const RUN_CACHE_MS = 5_000;
const runCache = new WeakMap<object, Map<number, { run: RunRecord; at: number }>>();

async function currentRun(deps: CloudDeps, runId: number): Promise<RunRecord | undefined> {
  const now = Date.now();
  const cache = runCache.get(deps.store) ?? new Map<number, { run: RunRecord; at: number }>();
  runCache.set(deps.store, cache);
  const hit = cache.get(runId);
  if (hit && now - hit.at < RUN_CACHE_MS) return hit.run;
  const run = await deps.store.getRun(runId);
  if (run && !run.config.targets) {
    if (cache.size > 1000) cache.clear();
    cache.set(runId, { run, at: now });
  } else cache.delete(runId);
  return run;
}

/** A change this container wrote to a run's RUN item, seen by its next invocations while they reuse the cached item. */
export function rememberRunChange(store: object, runId: number, change: Partial<RunRecord>): void {
  const hit = runCache.get(store)?.get(runId);
  if (hit) hit.run = { ...hit.run, ...change };
}

export async function cloudContext(deps: CloudDeps, runId: number): Promise<CloudContext> {
  const run = await currentRun(deps, runId);
  if (!run) throw new RunNotFoundError(runId);
  const workerId = randomBytes(6).toString('hex');
  const settings = runSettings(run);
  // Lambda extracts on its own thread; the context's WARC files (or the invocation's) go to warc/run-N/ when it ends.
  const dir = deps.warcs ? undefined : mkdtempSync(join(tmpdir(), 'trawl-warc-'));
  const base = buildContext({
    settings,
    scoring: runScoring(run, settings),
    renderer: deps.rendering === 'local' ? deps.renderer?.(settings) : undefined,
    store: deps.store,
    blobs: deps.blobs,
    warcDir: dir,
    warcFileTag: workerId,
    warc: deps.warcs?.writerFor(runId, settings),
    // Bodies live in the WARC record only: the page workflow reads them back by location.
    bodies: 'archive',
    rendering: deps.rendering ?? 'workflow',
    resolver: deps.resolver,
    clock: deps.clock,
    logger: deps.logger,
  });
  return {
    ...base,
    store: deps.store,
    objects: deps.objects,
    frontier: deps.frontier,
    run,
    workerId,
    urlLeaseMs: deps.urlLeaseMs,
    extractedSnapshots: deps.extractedSnapshots ?? false,
    async close() {
      await base.close();
      if (!dir) return;
      try {
        for (const file of base.archive!.files) await deps.objects.putWarc(runId, basename(file), readFileSync(file));
      } finally {
        rmSync(dir, { recursive: true, force: true });
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
