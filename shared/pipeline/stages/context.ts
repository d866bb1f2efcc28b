import { pageActionsOf } from '../../render/action-rules.js';
import type { PageAction } from '../../render/actions.js';
import { sessionCookiesOf, type SessionCookie } from '../../fetch/session-cookies.js';
import { availableParallelism, freemem } from 'node:os';
import { WarcWriter } from '../../archive/warc-writer.js';
import type { BodyKeeping } from '../../ports/content-hash.js';
import { Closers } from '../../util/closer.js';
import type { CrawlSettings } from '../../config/settings.js';
import { InlineExtractor, type Extractor } from '../../extract/extractor.js';
import type { Resolver } from '../../fetch/address-guard.js';
import { fetcherFor, type Fetcher } from '../../fetch/http-fetcher.js';
import type { PriorityFn } from '../../frontier/priority.js';
import { crawlScoring, scoringPriority, type CrawlScoring } from '../../scoring/crawl-scoring.js';
import { previewFetcherFor } from '../../scoring/head-preview.js';
import { createLogger, type Logger } from '../../log/logger.js';
import type { PolitenessConfig } from '../../politeness/host-state.js';
import { productToken } from '../../robots/robots-txt.js';
import type { BlobStore, ChunkRecord, CrawlStore, EdgeRecord, ExtractRecord, PageRecord } from '../../ports/index.js';
import { canonicalize, type CanonicalOptions } from '../../url/canonical.js';
import { ChromiumRenderer } from '../../render/chromium.js';
import { renderConcurrencyFor } from '../../render/decision.js';
import type { Renderer } from '../../render/renderer.js';
import type { CheerioAPI } from 'cheerio';
import { StageClock } from '../../log/stage-clock.js';
import type { ContentInFlight } from '../../dedupe/in-flight.js';

/** A page as stored by the crawl: what `onPage` receives, after the commit. */
export interface StoredPage {
  url: string;
  page: PageRecord;
  /** Absent for a links-only crawl, a duplicate body, or a page whose processing failed. */
  extract?: ExtractRecord;
  chunks: ChunkRecord[];
  /** The page's outlinks with anchor text, context and section. */
  links: EdgeRecord[];
  /** The CSS-selector fields of the profile and `--field` that matched (empty when none). */
  fields: NonNullable<ExtractRecord['fields']>;
  /** The page's HTML (as extracted: the rendered DOM when it was rendered) as cheerio's `$`, parsed on first use; undefined for anything but HTML. */
  readonly $: CheerioAPI | undefined;
}

/** What every stage function needs; built by `buildContext` for both runtimes. */
export interface CrawlContext {
  settings: CrawlSettings;
  store: CrawlStore;
  blobs: BlobStore;
  fetcher: Fetcher;
  /** Reads pages only up to </head>, 5 s each: a focused crawl's link previews (`--preview`); absent otherwise. */
  previewFetcher?: Fetcher;
  clock: () => number;
  priority: PriorityFn;
  /** The scoring profile, the query and the fields extracted. */
  scoring: CrawlScoring;
  logger: Logger;
  /** The robots.txt product token, from the User-Agent's first word. */
  robotsToken: string;
  canonical: CanonicalOptions;
  /** The canonical form of a URL under this crawl's parameter lists, or null when it is not http(s). */
  canonicalize(href: string): string | null;
  /** Where raw exchanges go as WARC; absent when nothing is archived (replay, one-off extraction). */
  archive?: WarcWriter;
  /** Where fetched bodies are kept for the stages after the fetch: see `ContextParts.bodies`. */
  bodies: BodyKeeping;
  /** Where pages are extracted: this thread, or a pool of worker threads. */
  extractor: Extractor;
  /**
   * Who renders the pages that need JavaScript: this process (`local`, with `renderer`), the
   * page workflow's Render step (`workflow`: cloud Extract), or nobody (`none`: pages stay as served).
   */
  rendering: Rendering;
  /** The browser (started on the first page that needs it); absent unless `rendering` is `local`. */
  renderer?: Renderer;
  /** The actions to run on a page before it is read (`--actions`): such a page is rendered. */
  pageActions?: (url: string) => PageAction[] | undefined;
  /** The user's session cookies (`--cookies`): a render's context gets those of its page's host. */
  sessionCookies: readonly SessionCookie[];
  /** Where the crawl's time goes, by stage (`--stage-times`; off: it only runs the work). */
  stages: StageClock;
  /**
   * The pages extracted but not yet committed, where a crawl processes several at once (the
   * embedded crawl's page flow): duplicates among them are found there. Absent where each page is
   * committed before the next is extracted (cloud workers, replay).
   */
  inFlight?: ContentInFlight;
  /** Releases what the context opened (workers, sockets, the WARC file); not the store. */
  close(): Promise<void>;
}

/** The pieces a runtime hands in; everything else is built from the settings here, once. */
export interface ContextParts {
  settings: CrawlSettings;
  store: CrawlStore;
  blobs: BlobStore;
  /** Where WARC files are written (a directory); none: nothing is archived. */
  warcDir?: string;
  /** Put into WARC file names, so writers sharing a destination never collide. */
  warcFileTag?: string;
  /** A WARC writer to use instead of one of its own in `warcDir` (shared with other contexts); its owner closes it. */
  warc?: WarcWriter;
  /**
   * `blobs` (default): a fetched body goes to the blob store as well as the WARC file, where
   * re-extraction reads it by hash. `archive`: only to the WARC file (a context without one keeps
   * blobs); the cloud reads the record back with one ranged GET, so S3 holds the bytes once and a
   * page costs one PUT less.
   */
  bodies?: BodyKeeping;
  /** The live HTTP fetcher is built from the settings unless one is given (the archive replay). */
  fetcher?: Fetcher;
  resolver?: Resolver;
  /**
   * The page extractor, which the context closes; default: on the calling thread (Lambda, replay,
   * one-off commands). The embedded crawl hands in its worker threads (`extractorFor`), which no
   * Lambda stage's bundle then carries (nor pdf.js with them).
   */
  extractor?: Extractor;
  /** Default `local`: a Chromium renderer from the settings (none when no host can be rendered). */
  rendering?: Rendering;
  /** The renderer to use instead of building one (a Lambda container's browser, the archive's rendered views); its owner closes it. */
  renderer?: Renderer;
  /** The frontier's priority function; default: the scoring's (focused, or the general default). */
  priority?: PriorityFn;
  /** The profile, query and fields, already checked; default: loaded from the settings here. */
  scoring?: CrawlScoring;
  clock?: () => number;
  logger?: Logger;
  /** The stage clock (a runtime that times its store too hands in the one the store adds to). */
  stages?: StageClock;
  /** The registry of pages between extraction and commit, for a runtime that processes several pages at once. */
  inFlight?: ContentInFlight;
}

export type Rendering = 'local' | 'workflow' | 'none';

/** Whether any page of a crawl with these settings can be rendered (`--render never` without a host override: none). */
function mayRender(s: CrawlSettings): boolean {
  return s.render !== 'never' || s.renderHost.some((entry) => !entry.toLowerCase().endsWith('=never'));
}

/** The settings' Chromium renderer for this process. */
export function rendererFor(s: CrawlSettings, parts: Pick<ContextParts, 'resolver'>, logger: Logger): Renderer {
  return new ChromiumRenderer({
    userAgent: s.userAgent,
    concurrency: renderConcurrencyFor(s.renderConcurrency, { cores: availableParallelism(), freeMb: freemem() / 1024 ** 2, pageMemoryMb: s.renderMemoryMb }),
    timeoutMs: s.renderTimeoutMs,
    settleMs: s.renderSettleMs,
    maxRequests: s.renderMaxRequests,
    recycleAfter: s.renderRecycleAfter,
    memoryMb: s.renderMemoryMb,
    allowPrivateNetwork: s.allowPrivateNetwork,
    resolver: parts.resolver,
    logger,
  });
}

export function politenessConfig(s: CrawlSettings): PolitenessConfig {
  return {
    delayMs: s.delayMs,
    backoffBaseMs: s.backoffBaseMs,
    backoffMaxMs: s.backoffMaxMs,
    maxRetryAfterMs: s.maxRetryAfterMs,
    maxConsecutiveFailures: s.maxHostFailures,
    maxCrawlDelayMs: s.maxCrawlDelayMs,
  };
}

export function robotsTokenOf(userAgent: string): string {
  return productToken(userAgent);
}

/** The canonicalisation options of a crawl's settings. */
export function canonicalOptionsOf(settings: Pick<CrawlSettings, 'trackingParams' | 'sessionParams'>): CanonicalOptions {
  return { trackingParams: settings.trackingParams, sessionParams: settings.sessionParams };
}

/** A WARC writer in `dir` with the settings' file size and digest. */
export function warcWriterFor(dir: string, settings: CrawlSettings, options: { fileTag?: string; clock?: StageClock; bodies?: BodyKeeping } = {}): WarcWriter {
  return new WarcWriter(dir, {
    maxFileBytes: settings.warcMaxBytes,
    digest: settings.warcDigest,
    fileTag: options.fileTag,
    clock: options.clock,
    // Where a body's only copy is its record (the cloud), an unchanged one is archived whole.
    identicalPayloadRevisits: options.bodies !== 'archive',
  });
}

/**
 * The one wiring of a crawl: fetcher, WARC writer, canonicalisation, priority, extraction and
 * hooks from the settings and the adapters a runtime chose. A new setting is wired here once.
 */
export function buildContext(parts: ContextParts): CrawlContext {
  const { settings } = parts;
  const scoring = parts.scoring ?? crawlScoring(settings);
  const canonical = canonicalOptionsOf(settings);
  // Read once: the fetcher sends them, the renderer's contexts get them.
  const sessionCookies = sessionCookiesOf(settings);
  const fetcher = parts.fetcher ?? fetcherFor(settings, { resolver: parts.resolver, cookies: sessionCookies });
  const previewFetcher = settings.preview && scoring.focused && !parts.fetcher ? previewFetcherFor(settings, { resolver: parts.resolver }) : undefined;
  const stages = parts.stages ?? new StageClock(settings.stageTimes);
  const archive =
    parts.warc ?? (parts.warcDir ? warcWriterFor(parts.warcDir, settings, { fileTag: parts.warcFileTag, clock: stages, bodies: parts.bodies }) : undefined);
  const extractor = parts.extractor ?? new InlineExtractor(canonical);
  const logger = parts.logger ?? createLogger('warn');
  const rendering: Rendering = mayRender(settings) ? (parts.rendering ?? 'local') : 'none';
  const renderer = rendering === 'local' ? (parts.renderer ?? rendererFor(settings, parts, logger)) : undefined;
  return {
    settings,
    store: parts.store,
    blobs: parts.blobs,
    fetcher,
    previewFetcher,
    canonical,
    archive,
    bodies: archive ? (parts.bodies ?? 'blobs') : 'blobs',
    extractor,
    rendering,
    renderer,
    clock: parts.clock ?? Date.now,
    priority: parts.priority ?? scoringPriority(scoring),
    scoring,
    logger,
    robotsToken: robotsTokenOf(settings.userAgent),
    canonicalize: (href) => canonicalize(href, undefined, canonical),
    stages,
    inFlight: parts.inFlight,
    pageActions: pageActionsOf(settings),
    sessionCookies,
    async close() {
      // Every closer runs, whatever another throws; the failures come back together.
      const closers = new Closers();
      closers.add(() => previewFetcher?.close());
      closers.add(() => fetcher.close());
      if (!parts.warc) closers.add(() => archive?.close());
      closers.add(() => extractor.close());
      // A renderer handed in belongs to the caller (a Lambda container keeps its browser warm).
      if (!parts.renderer) closers.add(() => renderer?.close());
      await closers.close();
    },
  };
}
