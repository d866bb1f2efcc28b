// `import type { PageRecord, … } from 'trawl/types'`: the shapes of what trawl stores and
// returns, for code that reads the store or handles events in detail. Types only.
export type * from './index.js';
export type { FetchedContent, WebSearchResult, SocialPost, FeedEntry } from './targets/content.js';
export type { ScoredLink, Selection, Candidate } from './scoring/select.js';
export type { EnrichRunResult, EnrichProgress } from './pipeline/embedded/enrich-run.js';
export type { MatchReason, SearchMode } from './search/hybrid.js';
export type { EnrichmentRecord, EnrichFailure, SearchFilters, StampedAt, EmbeddingMeta } from './ports/search-index.js';
export type { ModelStamp, ProviderName } from './enrich/providers.js';
export type { BoundCut } from './extract/bounds.js';
export type { ProgressStats } from './pipeline/stages/progress.js';
export type { HistoryEntry } from './archive/replay.js';
export type { ChangeKind, ChangeMeasure, ChangeQuery, ChangeRecord } from './ports/change-store.js';
export type { DiffPart } from './changes/text-diff.js';
export type { FetchResponse } from './fetch/http-fetcher.js';
export type { ExportRecord, ArchiveCheck, TableReport } from './ports/data-dir-reports.js';
export type {
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
  UrlReason,
} from './ports/records.js';
