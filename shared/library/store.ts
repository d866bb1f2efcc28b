import { join } from 'node:path';
import type { Writable } from 'node:stream';
import { ArchiveReplay, type HistoryEntry, type ReplayOptions } from '../archive/replay.js';
import { targetHistory } from '../targets/history.js';
import { cdxjIndex, warcFileSource, writeWacz, type WaczResult, type WarcSource } from '../archive/wacz.js';
import { capturesOfCdxj, capturesParquet, type RecordDetails } from '../archive/capture-index.js';
import { CONTENT_KINDS } from '../ports/index.js';
import { wholeRecordsLength } from '../archive/warc-snapshot.js';
import { UsageError } from '../errors.js';
import { version } from '../util/version.js';
import { productToken } from '../robots/robots-txt.js';
import { DEFAULT_USER_AGENT } from '../config/settings.js';
import type { FetchedContent } from '../targets/content.js';
import { targetId, type SocialPlatform } from '../targets/route.js';
import { replayApi, replayTarget, socialSearchKey } from '../targets/target-fetch.js';

const DEFAULT_TOKEN = productToken(DEFAULT_USER_AGENT);
import type { FetchResponse } from '../fetch/http-fetcher.js';
import { openLocalForReading, type LocalStores } from '../store/local/open-local.js';
import type { ExportRecord } from '../ports/data-dir-reports.js';
import type { ChunkRecord, ExtractRecord, LinkView, PageRecord, RankedPage, RunRecord, RunSummary, UnfetchedUrl } from '../ports/index.js';
import type { ChangeQuery, ChangeRecord, EnrichmentRecord } from '../ports/index.js';
import { textDiff, type DiffPart } from '../changes/text-diff.js';
import type { SearchResult } from '../search/hybrid.js';
import { searchStores, type SearchOptions } from './enrich.js';

/** Read handles on what crawls left in a data directory: the reads the CLI makes, for programs. */
export interface TrawlStore {
  /** Every run, oldest first. */
  runs(): Promise<RunRecord[]>;
  /** The summary of a run (default: the latest); undefined when no crawl has run. */
  summary(runId?: number): Promise<RunSummary | undefined>;
  /** The stored page of a URL (any form of it: it is canonicalised). */
  page(url: string): Promise<PageRecord | undefined>;
  /** Every page with a stored body, oldest fetch first. */
  pages(): Promise<PageRecord[]>;
  /** The extraction of a page: markdown, metadata, SimHash, duplicate flags. */
  extraction(url: string): Promise<ExtractRecord | undefined>;
  chunks(url: string): Promise<ChunkRecord[]>;
  /** Links of the page's current snapshot, with anchor text, context and section. */
  outlinks(url: string): Promise<LinkView[]>;
  /** Links to the page (directly or through a redirect/canonical alias), with the words they use. */
  inlinks(url: string): Promise<LinkView[]>;
  /** The most linked pages (PageRank, inlinks, linking hosts), computed at the end of a crawl. */
  top(limit?: number): Promise<RankedPage[]>;
  /** URLs seen in links but never fetched, by how many hosts link to them. */
  unfetched(limit?: number): Promise<UnfetchedUrl[]>;
  /** Every fetch of a URL across runs, marking content drift. */
  history(url: string): Promise<HistoryEntry[]>;
  /**
   * What changed in a run (default: the latest) since the run before, per URL: new, changed (with
   * how much), removed, orphaned, newly linked, rank shifts; `unchanged` only when asked for.
   */
  changes(query?: ChangeQuery): Promise<ChangeRecord[]>;
  /** The word-level diff of a page a run changed (its markdown before and after); undefined when the run did not change it. */
  changeDiff(runId: number, url: string): Promise<DiffPart[] | undefined>;
  /** The archived response of a URL (newest, or of `runId`; `view: 'rendered'` for the DOM Chromium produced), from the WARC files with no network. */
  replay(url: string, options?: ReplayOptions): Promise<FetchResponse>;
  /**
   * `fetch(target)` answered from the archive, with no network: the same typed content as the live
   * call (a URL's response typed again from its WARC record; a search or social answer as stored).
   * Throws NeverFetchedError or FetchedAndFailedError.
   */
  fetch(target: string): Promise<FetchedContent>;
  /** `searchSocial(platform, topics)` answered from the archive. */
  searchSocial(platform: SocialPlatform, topics: string[]): Promise<FetchedContent>;
  /** Pages (with their extraction), edges and interactions, for other tools. */
  export(): AsyncIterable<ExportRecord>;
  /**
   * The archive as a WACZ 1.1.1 (ReplayWeb.page, pywb) written to `out`: the WARC files of every run
   * (or of `runId`), their CDXJ index, the pages with titles and text, the datapackage and its digest.
   */
  wacz(out: Writable, options?: { runId?: number }): Promise<WaczResult>;
  /**
   * The captures of the archive (every run, or `runId`) as a Parquet file written to `out`: one row
   * a capture with Common Crawl's index columns (`url_surtkey`, `url`, `url_host_name`, `fetch_time`,
   * `fetch_status`, `content_mime_type`, `content_digest`, `warc_filename`, `warc_record_offset`,
   * `warc_record_length`) and `warc_record_type`, `page_id`, `run_id`, `change_kind`.
   */
  captureIndex(out: Writable, options?: { runId?: number }): Promise<{ captures: number }>;
  /** Hybrid search (BM25 + vectors) over the enriched pages, with why each hit matched. */
  search(query: string, options?: SearchOptions): Promise<SearchResult>;
  /** The summary, tags and model stamps of a page, once enriched. */
  enrichment(url: string): Promise<EnrichmentRecord | undefined>;
  close(): Promise<void>;
}

/**
 * A URL in any form, a page id (the 32 hexadecimal characters search hits and links carry), or a
 * search query or account a crawl started from (its "page" holds the results).
 */
const idOf = (input: string): string => (/^[0-9a-f]{32}$/.test(input) ? input : targetId(input));

/**
 * Opens a data directory for reading; works while a crawl writes to it.
 *
 * @example
 * const store = openStore('./trawl-data');
 * for (const link of await store.inlinks('https://example.com/about')) console.log(link.anchor, link.fromUrl);
 * await store.close();
 */
export function openStore(dataDir = './trawl-data'): TrawlStore {
  const local: LocalStores = openLocalForReading(dataDir);
  const { store, graph } = local;
  /** The runs, once `runId` (when given) is one of them. */
  const checkedRuns = async (runId: number | undefined): Promise<RunRecord[]> => {
    const runs = await store.runs();
    if (runId !== undefined && !runs.some((r) => r.id === runId))
      throw new UsageError(`no run ${runId} in ${dataDir}: its runs are ${runs.map((r) => r.id).join(', ') || 'none'}`);
    return runs;
  };
  /** Each WARC file as it stood when the snapshot was taken: up to its last whole record. */
  const snapshotSources = (files: Array<{ file: string; lastRecord: number }>): WarcSource[] =>
    files.map(({ file, lastRecord }) => {
      const path = join(local.warcDir, file);
      return warcFileSource(path, wholeRecordsLength(path, lastRecord));
    });
  return {
    runs: () => store.runs(),
    async summary(runId) {
      const id = runId ?? (await store.latestRun())?.id;
      return id === undefined ? undefined : store.summary(id);
    },
    page: (url) => store.getPage(idOf(url)),
    pages: () => store.storedPages(),
    extraction: (url) => store.getExtract(idOf(url)),
    chunks: (url) => store.chunks(idOf(url)),
    outlinks: (url) => graph.outlinks(idOf(url)),
    inlinks: (url) => graph.inlinks(idOf(url)),
    top: (limit = 20) => graph.top(limit),
    unfetched: (limit = 20) => graph.unfetched(limit),
    history: (url) => targetHistory(store, url),
    changes: (query = {}) => local.changes.changes(query),
    async changeDiff(runId, url) {
      const texts = await local.changes.changeTexts(runId, idOf(url));
      return texts && textDiff(texts.before, texts.after);
    },
    replay: (url, options = {}) => new ArchiveReplay(store, dataDir, options).fetch({ url, kind: 'page' }),
    fetch: (target) => replayTarget({ store, blobs: local.blobs, dataDir, robotsToken: DEFAULT_TOKEN }, target),
    searchSocial: (platform, topics) =>
      replayApi({ store, blobs: local.blobs }, topics.join(' '), socialSearchKey(platform, topics.map((t) => t.trim()).filter(Boolean))),
    export: () => store.exportRecords(),
    async wacz(out, options = {}) {
      const runs = await checkedRuns(options.runId);
      const { warcFiles, pages } = store.waczSources(options.runId);
      const seeds = runs.find((r) => r.id === (options.runId ?? runs.at(-1)?.id))?.seeds ?? [];
      return writeWacz(
        {
          warcFiles: snapshotSources(warcFiles),
          pages,
          title: `trawl crawl of ${seeds.join(' ') || dataDir}${options.runId !== undefined ? ` (run ${options.runId})` : ''}`,
          software: `trawl ${version()}`,
          ...(seeds[0] ? { mainPageUrl: seeds[0] } : {}),
        },
        out,
      );
    },
    async captureIndex(out, options = {}) {
      await checkedRuns(options.runId);
      const details = new Map<string, RecordDetails>();
      const lines = await cdxjIndex(snapshotSources(store.waczSources(options.runId).warcFiles), details);
      const kinds = new Map<string, string>();
      const changes = await local.changes.changes(
        options.runId === undefined ? { since: 0, kinds: [...CONTENT_KINDS] } : { runId: options.runId, kinds: [...CONTENT_KINDS] },
      );
      for (const c of changes) kinds.set(`${c.runId} ${c.urlId}`, c.kind);
      const captures = capturesOfCdxj(lines, (runId, pageId) => kinds.get(`${runId} ${pageId}`), details);
      const bytes = capturesParquet(captures, `trawl ${version()}`);
      await new Promise<void>((resolve, reject) => out.end(bytes, (err?: Error | null) => (err ? reject(err) : resolve())));
      return { captures: captures.length };
    },
    search: (query, options) => searchStores(local, query, options),
    async enrichment(url) {
      return (await local.enrich.enrichCandidate(idOf(url)))?.enrichment;
    },
    close: () => local.close(),
  };
}
