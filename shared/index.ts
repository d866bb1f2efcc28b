// The public library: `import { crawl, openStore } from 'trawl'`. Re-exports only.
export { crawl, settingsOf, validateSeeds, type CrawlOptions, type CrawlSeeds } from './library/crawl.js';
export type { CrawlSettingsOptions } from './library/settings-options.js';
export { openStore, type TrawlStore } from './library/store.js';
export { enrich, type EnrichOptions, type SearchOptions } from './library/enrich.js';
export { select, type SelectOptions, type HomepageSelection } from './library/select.js';
// `fetchTarget` is the name to use: `fetch` shadows the global in any file that imports it (kept one release as an alias).
export { fetch as fetchTarget, fetch, searchSocial, type FetchOptions } from './library/fetch.js';
export { routeTarget, type Target, type SocialPlatform } from './targets/route.js';
export type { FetchedContent, SearchResult as WebSearchResult, SocialPost, FeedEntry } from './targets/content.js';
export { loadProfile, parseProfile, type Profile } from './scoring/profile.js';
export type { ScoredLink, Selection, Candidate } from './scoring/select.js';
export type { EnrichRunResult, EnrichProgress } from './pipeline/embedded/enrich-run.js';
export type { SearchResult, SearchHit, MatchReason, SearchMode } from './search/hybrid.js';
export type { EnrichmentRecord, EnrichFailure, SearchFilters, StampedAt, EmbeddingMeta } from './store/ports/search-index.js';
export type { ModelStamp, ProviderName } from './enrich/providers.js';
export { doctor, extract, reextract, type DoctorReport, type ReextractReport } from './library/maintenance.js';
export { extractPage, extractLinksOnly, type PageExtraction, type LinkExtraction, type ExtractOptions } from './extract/extract-page.js';
export { DEFAULT_PAGE_BOUNDS, type PageBounds, type BoundCut } from './extract/bounds.js';
export { canonicalize, urlId } from './url/canonical.js';
export { defaultPriority, type PriorityFn, type PriorityInput } from './frontier/priority.js';
export { focusedPriority } from './scoring/focus.js';
export { extractFields, fieldFromFlag, type FieldSpec, type FieldValue } from './extract/fields.js';
export { SETTINGS, defaultSettings, type CrawlSettings, type SettingName } from './config/settings.js';
export type { CrawlEvent, ProgressStats } from './pipeline/stages/progress.js';
export type { StoredPage } from './pipeline/stages/context.js';
export type { CrawlHooks } from './pipeline/stages/progress.js';
export type { Logger } from './log/logger.js';
export type { HistoryEntry } from './archive/replay.js';
export type { FetchResponse } from './fetch/http-fetcher.js';
export type { ExportRecord } from './store/local/sqlite-export.js';
export type {
  RunSummary,
  RunRecord,
  RunStatus,
  PageRecord,
  ExtractRecord,
  SelectionRecord,
  SelectedPage,
  ChunkRecord,
  EdgeRecord,
  LinkView,
  RankedPage,
  UnfetchedUrl,
  FetchRecord,
  UrlState,
} from './store/records.js';
export {
  TrawlError,
  UsageError,
  DataDirError,
  DataDirLockedError,
  NeverFetchedError,
  FetchedAndFailedError,
  PageProcessingError,
  nextStep,
  type NextStep,
} from './errors.js';
