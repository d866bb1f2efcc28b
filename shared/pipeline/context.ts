import type { CrawlSettings } from '../config/settings.js';
import type { Fetcher } from '../fetch/http-fetcher.js';
import type { PriorityFn } from '../frontier/priority.js';
import type { PolitenessConfig } from '../politeness/host-state.js';
import { productToken } from '../robots/robots-txt.js';
import type { BlobStore, CrawlStore } from '../store/ports.js';
import type { CanonicalOptions } from '../url/canonical.js';
import type { Logger } from '../log/logger.js';
import type { WarcWriter } from '../archive/warc-writer.js';
import type { Extractor } from '../extract/extractor.js';

/** What every stage function needs; both runners build one. */
export interface CrawlContext {
  settings: CrawlSettings;
  store: CrawlStore;
  blobs: BlobStore;
  fetcher: Fetcher;
  clock: () => number;
  priority: PriorityFn;
  logger: Logger;
  /** The robots.txt product token, from the User-Agent's first word. */
  robotsToken: string;
  canonical: CanonicalOptions;
  /** The canonical form of a URL under this crawl's parameter lists, or null when it is not http(s). */
  canonicalize(href: string): string | null;
  /** Where raw exchanges go as WARC; absent when nothing is archived (replay, one-off extraction). */
  archive?: WarcWriter;
  /** Where pages are extracted: this thread, or a pool of worker threads. */
  extractor: Extractor;
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
