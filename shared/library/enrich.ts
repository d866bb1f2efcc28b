import { availableParallelism } from 'node:os';
import type { Env } from '../config/resolve.js';
import { createProviders, preflightProvider } from '../enrich/provider-factory.js';
import { enrichAll, type EnrichProgress, type EnrichRunResult } from '../pipeline/embedded/enrich-run.js';
import { hybridSearch, type SearchMode, type SearchResult } from '../search/hybrid.js';
import { openLocalForWriting, type LocalStores } from '../store/local/open-local.js';
import type { SearchFilters } from '../ports/index.js';
import { settingsOf } from './crawl.js';
import type { CrawlSettingsOptions } from './settings-options.js';

export interface EnrichOptions extends CrawlSettingsOptions {
  /** Redo only enrichments made with other models or prompts than the configured ones. @default false */
  stale?: boolean;
  onProgress?: (progress: EnrichProgress) => void;
  /** Aborting it stops the pass between pages; the rest is left for the next one. */
  signal?: AbortSignal;
  /** @default process.env */
  env?: Env;
}

/**
 * Summarize and Index over a finished crawl: summaries, tags, embeddings, the full-text and the
 * vector index, for every page that needs them (see `stale`).
 *
 * @example const result = await enrich({ data: './trawl-data', provider: 'local' });
 */
export async function enrich(options: EnrichOptions = {}): Promise<EnrichRunResult> {
  const settings = settingsOf(options);
  await preflightProvider(settings, options.env ?? process.env);
  const local = openLocalForWriting(settings.data, 'enrich');
  // The local methods run in one worker thread per core.
  const providers = createProviders(settings, options.env ?? process.env, { workers: availableParallelism() });
  try {
    const result = await enrichAll(
      { enrich: local.enrich, vectors: local.vectors, providers, clock: Date.now },
      {
        mode: options.stale ? 'stale' : 'new',
        concurrency: settings.enrichConcurrency,
        onProgress: options.onProgress,
        stopped: () => options.signal?.aborted ?? false,
      },
    );
    return options.signal?.aborted ? { ...result, stopped: true } : result;
  } finally {
    await providers.close?.();
    await local.close();
  }
}

export interface SearchOptions extends SearchFilters {
  /** @default 10 */
  limit?: number;
  /** @default 'hybrid' */
  mode?: SearchMode;
  /** The provider settings the pages were embedded with (the query is embedded the same way). */
  settings?: Pick<CrawlSettingsOptions, 'provider' | 'embedModel' | 'embedDimension' | 'openaiBaseUrl' | 'bedrockRegion'>;
  env?: Env;
}

/** Hybrid search over the enriched pages of a data directory opened for reading. */
export async function searchStores(local: LocalStores, query: string, options: SearchOptions = {}): Promise<SearchResult> {
  const { limit, mode, settings: provider = {}, env = process.env, ...filters } = options;
  const { embedder } = createProviders(settingsOf({ ...provider, env }), env);
  return hybridSearch({ enrich: local.enrich, vectors: local.vectors, embedder }, { q: query, filters, limit, mode });
}
