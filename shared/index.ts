// The public library: `import { crawl, openStore } from 'trawl'`. Re-exports only: what a user
// calls, its options and what it returns. The shapes of stored records, hits and events' parts
// are on `trawl/types` (shared/types.ts).
export { crawl, settingsOf, validateSeeds, type CrawlOptions, type CrawlSeeds } from './library/crawl.js';
export type { CrawlSettingsOptions } from './library/settings-options.js';
export { openStore, type TrawlStore } from './library/store.js';
export { enrich, type EnrichOptions, type SearchOptions } from './library/enrich.js';
export { select, type SelectOptions, type HomepageSelection } from './library/select.js';
// `fetchTarget`, not `fetch`: an import of it would shadow the global `fetch`.
export { fetch as fetchTarget, searchSocial, type FetchOptions } from './library/fetch.js';
export { routeTarget, type Target, type SocialPlatform } from './targets/route.js';
export { loadProfile, parseProfile, type Profile } from './scoring/profile.js';
export { doctor, extract, rebuild, reextract, type DoctorReport, type RebuildReport, type RebuildResult, type ReextractReport } from './library/maintenance.js';
export { extractPage, extractLinksOnly, type PageExtraction, type LinkExtraction, type ExtractOptions } from './extract/extract-page.js';
export { DEFAULT_PAGE_BOUNDS, type PageBounds } from './extract/bounds.js';
export { canonicalize, urlId } from './url/canonical.js';
export { defaultPriority, type PriorityFn, type PriorityInput } from './frontier/priority.js';
export { focusedPriority } from './scoring/focus.js';
export { extractFields, type FieldSpec, type FieldValue } from './extract/fields.js';
export { fieldFromFlag } from './extract/field-specs.js';
export { defaultSettings, type CrawlSettings, type SettingName } from './config/settings.js';
export type { CrawlEvent, CrawlHooks } from './pipeline/stages/progress.js';
export type { StoredPage } from './pipeline/stages/context.js';
export type { Logger } from './log/logger.js';
export type { RunSummary } from './ports/records.js';
export type { SearchResult, SearchHit } from './search/hybrid.js';
export {
  TrawlError,
  UsageError,
  DataDirError,
  DataDirLockedError,
  DiskFullError,
  NeverFetchedError,
  FetchedAndFailedError,
  PageProcessingError,
  nextStep,
  type NextStep,
} from './errors.js';
