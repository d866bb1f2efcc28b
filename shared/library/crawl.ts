import { monitorOf, told } from '../changes/monitor.js';
import { CHANGE_KINDS } from '../config/change-kinds.js';
import { basename } from 'node:path';
import { type CrawlSettings, type SettingName } from '../config/settings.js';
import { resolveSettings, type Env } from '../config/resolve.js';
import { errorMessage, UsageError } from '../errors.js';
import type { Resolver } from '../fetch/address-guard.js';
import type { PriorityFn } from '../frontier/priority.js';
import type { Logger } from '../log/logger.js';
import { buildContext, canonicalOptionsOf } from '../pipeline/stages/context.js';
import { extractorFor } from '../extract/extractor.js';
import { Closers } from '../util/closer.js';
import { preflight } from '../fetch/preflight.js';
import type { CrawlHooks } from '../pipeline/stages/progress.js';
import { crawlScoring } from '../scoring/crawl-scoring.js';
import { CrawlRunner } from '../pipeline/embedded/crawl-runner.js';
import { preflightProvider, createProviders } from '../enrich/provider-factory.js';
import { InlineEnricher } from '../pipeline/embedded/enrich-inline.js';
import { enrichAll } from '../pipeline/embedded/enrich-run.js';
import { resumableRun } from '../pipeline/embedded/run-start.js';
import { selectStage } from '../pipeline/stages/select-stage.js';
import { openLocalForReading, openLocalForWriting, requireDataDir } from '../store/local/open-local.js';
import type { RunSummary } from '../ports/index.js';
import { routeTarget, type Target } from '../targets/route.js';
import { checkTargetBackend } from '../targets/target-fetch.js';
import type { CrawlSettingsOptions } from './settings-options.js';
import { StageClock } from '../log/stage-clock.js';
import { ContentInFlight } from '../dedupe/in-flight.js';
import { extractSpecOf, schemaValidator } from '../enrich/extract-spec.js';

/** Everything `crawl` takes: every crawl setting, the hooks, and the pieces a program may inject. */
export interface CrawlOptions extends CrawlSettingsOptions, CrawlHooks {
  /**
   * The frontier's priority function (higher first within a host).
   * @default the priority of the `profile` setting
   */
  priority?: PriorityFn;
  /** Aborting it stops the crawl cleanly: requests in flight finish and the run stays resumable (`resume: true`). */
  signal?: AbortSignal;
  /**
   * Where log lines go.
   * @default warnings and errors as JSON lines on stderr
   */
  logger?: Logger;
  /**
   * Resolves host names; the address guard checks every address it returns.
   * @default the system resolver
   */
  resolver?: Resolver;
  /**
   * Environment variables read for settings not given here (`TRAWL_MAX_PAGES`, …), and for the
   * endpoints and keys of the search and social backends (`TRAWL_SEARXNG_URL`, `TRAWL_BRAVE_API_KEY`,
   * `APIFY_TOKEN`, …); `{}` ignores them.
   * @default process.env
   */
  env?: Env;
}

/** The settings of a crawl: defaults, then `TRAWL_*` variables of `env`, then the options given. */
export function settingsOf(options: CrawlSettingsOptions & { env?: Env } = {}): CrawlSettings {
  const { env = process.env, ...values } = options as Record<string, unknown> & { env?: Env };
  return resolveSettings(values as Partial<Record<SettingName, unknown>>, env, (name) => `option ${name}`);
}

/** A crawl's seeds, routed: URLs to fetch, and search queries and social accounts to start from. */
export interface CrawlSeeds {
  /** Canonical http(s) URLs, each once. */
  urls: string[];
  /** Search queries and social accounts, as given (trimmed), each once. */
  targets: string[];
}

/** What a seed was taken for, in an error about it. */
function seedKind(seed: string, t: Target): string {
  if (t.kind === 'search') return /^search:/i.test(seed) ? 'a web search query' : 'a web search query (a URL needs http:// or https://)';
  return t.kind === 'social' ? `${/^[aeiox]/.test(t.platform) ? 'an' : 'a'} ${t.platform} account` : 'a URL';
}

/**
 * Checks seeds and routes them: URLs (`https://example.com/`, or `example.com`), web search
 * queries (`search:…` or plain words) and social accounts (`r/name`, a Bluesky, Mastodon, X,
 * Instagram or TikTok profile URL). A query or account whose backend `env` does not configure is
 * refused here, before anything is created.
 */
export function validateSeeds(seeds: readonly string[], env: Env = {}): CrawlSeeds {
  if (seeds.length === 0)
    throw new UsageError(
      'no seed given: pass at least one URL (https://example.com/), search query (search:fire sprinkler inspection) or account (r/Minneapolis)',
    );
  const urls = new Set<string>();
  const targets = new Set<string>();
  for (const seed of seeds) {
    if (typeof seed !== 'string') throw new UsageError(`invalid seed ${JSON.stringify(seed)}: give a URL, a search query or an account as a string`);
    let t: Target;
    try {
      t = routeTarget(seed);
    } catch (err) {
      throw new UsageError(`invalid seed ${JSON.stringify(seed)}: ${errorMessage(err)}`);
    }
    if (t.kind === 'url') {
      urls.add(t.url);
      continue;
    }
    try {
      checkTargetBackend(t, env);
    } catch (err) {
      throw new UsageError(`seed ${JSON.stringify(seed)} is ${seedKind(seed.trim(), t)}, and ${errorMessage(err)}; or give an absolute http(s) URL`);
    }
    targets.add(seed.trim());
  }
  return { urls: [...urls], targets: [...targets] };
}

/** Says why a resume cannot work, reading the data directory without changing it. */
async function checkResumable(dataDir: string): Promise<void> {
  requireDataDir(dataDir, 'nothing to resume');
  const local = openLocalForReading(dataDir);
  try {
    await resumableRun(local.store, dataDir);
  } finally {
    await local.close();
  }
}

/** How this process names itself in the data directory's lock (what a second writer is told). */
function processLabel(): string {
  const [, script = 'node', ...args] = process.argv;
  const name = /(^|\/)(main\.[jt]s|trawl(\.js)?)$/.test(script) ? 'trawl' : basename(script);
  return `${name} ${args.join(' ')}`.trim().slice(0, 200);
}

/**
 * Crawls from the seeds (URLs, search queries and social accounts: see `validateSeeds`) into the data directory (`data`, default `./trawl-data`) and resolves to
 * the run summary. Politeness, the archive, extraction and the link graph are always on; every
 * setting has a typed option. Everything is validated before the data directory is touched.
 *
 * @example
 * const summary = await crawl(['https://example.com/'], { maxPages: 200, onPage: ({ url, extract }) => console.log(url, extract?.title) });
 */
export async function crawl(seeds: readonly string[], options: CrawlOptions = {}): Promise<RunSummary> {
  const settings = settingsOf(options);
  const env = options.env ?? process.env;
  const routed = settings.resume && seeds.length === 0 ? { urls: [], targets: [] } : validateSeeds(seeds, env);
  if (settings.resume) await checkResumable(settings.data);
  // The profile and the fields' selectors are checked before the data directory is touched.
  const scoring = crawlScoring(settings);
  // A seed the address guard would refuse (a site on this machine or the intranet) fails here, naming the flag, not after a crawl that stored nothing.
  for (const url of routed.urls) await preflight(url, { allowPrivateNetwork: settings.allowPrivateNetwork, resolver: options.resolver, unresolved: 'pass' });
  // The crawl's writes run on a thread of their own (see sqlite-writer-thread.ts); with --stage-times, timed there too.
  const stages = new StageClock(settings.stageTimes);
  // Each resource is closed from the moment it is open: a failure while opening the next (a data
  // directory whose warc/ is a file) still releases the lock and the writer thread.
  // A provider that cannot answer is refused before the data directory is made or a page fetched.
  const spec = extractSpecOf(settings);
  if (spec) schemaValidator(spec.schema);
  if (settings.enrich || spec) await preflightProvider(settings, env);
  const closers = new Closers();
  try {
    const local = openLocalForWriting(settings.data, processLabel(), { writerThread: true, stages });
    closers.add(() => local.close());
    const ctx = buildContext({
      settings,
      scoring,
      stages,
      store: local.store,
      blobs: local.blobs,
      warcDir: local.warcDir,
      priority: options.priority,
      logger: options.logger,
      resolver: options.resolver,
      inFlight: new ContentInFlight(),
      extractor: extractorFor(settings, canonicalOptionsOf(settings)),
    });
    closers.add(() => ctx.close());
    // A schema to extract pages to is part of their enrichment: it turns enrichment on.
    const enrichDeps =
      settings.enrich || extractSpecOf(settings)
        ? // One worker thread for the local methods: the crawl thread keeps fetching and storing.
          { enrich: local.enrich, vectors: local.vectors, providers: createProviders(settings, env, { workers: 1 }), clock: Date.now }
        : undefined;
    if (enrichDeps) closers.add(() => enrichDeps.providers.close?.());
    const inline = enrichDeps && new InlineEnricher(enrichDeps, settings.enrichConcurrency);
    const onPage: CrawlHooks['onPage'] = inline
      ? async (page) => {
          if (page.extract) inline.offer(page.page.urlId);
          await options.onPage?.(page);
        }
      : options.onPage;
    const runner = new CrawlRunner(ctx, {
      seeds: routed.urls,
      targets: routed.targets,
      targetEnv: env,
      resolver: options.resolver,
      resume: settings.resume,
      graph: local.graph,
      changes: local.changes,
      hooks: { onEvent: options.onEvent, onPage },
    });
    const stop = () => runner.stop();
    options.signal?.addEventListener('abort', stop, { once: true });
    closers.add(() => options.signal?.removeEventListener('abort', stop));
    if (options.signal?.aborted) stop();
    const summary = await runner.crawl();
    if (summary.changes) {
      const monitor = monitorOf(settings);
      const all = await local.changes.changes({ runId: summary.runId, kinds: [...CHANGE_KINDS] });
      options.onEvent?.({ type: 'changes', runId: summary.runId, counts: summary.changes, told: all.filter((c) => told(monitor, c)) });
    }
    if (settings.select && summary.status === 'finished') {
      const { selections, report } = await selectStage(local, summary.runId, summary.seeds, ctx.scoring, settings.selectCap);
      options.onEvent?.({ type: 'selected', selections, report });
    }
    if (inline && enrichDeps) {
      await inline.drain();
      // The sweep: pages the backlog could not take, and failures, get one more try.
      const result = await enrichAll(enrichDeps, { mode: 'new', concurrency: settings.enrichConcurrency });
      result.enriched += inline.enriched;
      result.unchanged -= inline.enriched;
      options.onEvent?.({ type: 'enriched', result, inline: inline.enriched });
    }
    return summary;
  } finally {
    await closers.close();
  }
}
