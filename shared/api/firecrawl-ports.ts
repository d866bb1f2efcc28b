// What the Firecrawl routes read and how they answer `json`: the ports each runtime fills
// (`trawl serve` from its data directory, the cloud's search API from its table and bucket).
import type { ArchiveReader } from '../archive/replay.js';
import type { ExtractSpec } from '../enrich/extract-spec.js';
import type { JobOptions } from '../config/job-options.js';
import type { CrawlLauncher } from '../ports/crawl-launcher.js';
import type { WebhookSender } from './webhooks.js';
import type { Passage } from '../search/highlights.js';
import type { BlobStore, CrawlStore, EnrichStore, ExtractRecord, GraphStore, PageRecord } from '../ports/index.js';

/** What the `question` format's chat model answers with. */
export interface QuestionAnswers {
  /** The answer to `question` from the passages only, or undefined when they do not answer it. */
  answer(question: string, passages: Passage[], page: { url: string; title?: string }): Promise<string | undefined>;
}

/** A hit of the server's index, as the search route is given it. */
export interface IndexHit {
  urlId: string;
  url: string;
  title: string;
  summary: string;
}

/** What the index answers: its hits, and a warning when it answered in part (full text only). */
export interface IndexAnswer {
  hits: IndexHit[];
  warning?: string;
}

/** What the routes read of the crawl's stores: the same ports in both runtimes. */
export interface FirecrawlReads {
  store: Pick<CrawlStore, 'getPage' | 'getExtract' | 'runPages' | 'fetchHistory'>;
  graph: Pick<GraphStore, 'outlinks'>;
  /** The rendered DOM and the screenshot of a rendered page, by hash. */
  blobs: Pick<BlobStore, 'get'>;
  /** The archived responses: `rawHtml` is the page as served. */
  archive: ArchiveReader;
  enrich: Pick<EnrichStore, 'enrichCandidate'>;
  /** Stored pages of a host (`host[:port]`) and its subdomains, at most `limit`, for `map`; absent: `map` lists the page's own links. */
  sitePages?: (host: string, limit: number) => Promise<Array<{ url: string; title?: string }>>;
}

/** How the `json` format is answered: the server's chat model now, or the extraction a run stored. */
export interface JsonAnswers {
  /** Why this spec cannot be answered here (told before the page is fetched), or undefined. */
  refusal(spec: ExtractSpec): string | undefined;
  /** Settings a scrape's one-page job takes for this spec (its run extracts the page to it); absent: none. */
  jobSettings?(spec: ExtractSpec): JobOptions;
  /** Whether a stored page answers this spec with no new fetch; absent: it does. */
  answersStored?(reads: FirecrawlReads, page: PageRecord, spec: ExtractSpec): Promise<boolean>;
  answer(reads: FirecrawlReads, page: PageRecord, x: ExtractRecord | undefined, spec: ExtractSpec): Promise<{ json?: unknown; warning?: string }>;
}

/** What the Firecrawl routes are given: the crawl jobs, the stores' reads, and how they answer. */
export interface FirecrawlOptions {
  jobs: CrawlLauncher;
  /** Reads the stores (`trawl serve`: the data directory; the cloud: the table and the bucket). */
  read: <T>(use: (reads: FirecrawlReads) => Promise<T>) => Promise<T>;
  /** How the `json` format is answered; absent: it is refused. */
  json?: JsonAnswers;
  /** A web search provider (SearXNG, Brave, Serper), for `POST /search` when one is configured: the web's hits, in its order. */
  webSearch?: (query: string, limit: number) => Promise<Array<{ url: string; title: string; snippet: string }>>;
  /** The server's search index, for `POST /search` (the best hits of a query, at most `limit`); absent: search is refused. */
  search?: (query: string, limit: number) => Promise<IndexAnswer>;
  /** The `summary` format's summarizer for a page enrichment has not summarized (the local one on `trawl serve`); absent: only a stored summary answers. */
  summarize?: (text: string, language?: string) => string;
  /** How the `question` format is answered (the server's chat model); absent: it is refused. */
  questions?: QuestionAnswers;
  allowPrivateNetwork: boolean;
  /** How long a scrape or a map waits for its page. @default 60_000 */
  waitMs?: number;
  /**
   * Delivers a crawl's own `webhook` (signed and guarded as the server's); with jobs that can be
   * followed (`follow`, `followPages`). Absent: a crawl's webhook is refused with `webhookRefusal`.
   */
  webhooks?: WebhookSender;
  /** Why a crawl's webhook is refused here. @default the server's --webhook receivers are told of every crawl */
  webhookRefusal?: string;
}
