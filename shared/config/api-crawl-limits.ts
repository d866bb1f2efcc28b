/** Server-side caps on crawls started over the cloud's API, whatever a request asks for. */
export interface ApiCrawlLimits {
  /** The most pages one such crawl may fetch. */
  maxPages: number;
  /** The longest one such crawl may run (minutes). */
  maxMinutes: number;
  /** API crawls running at once in the deployment; a start past it is refused (429). */
  concurrentRuns: number;
  /**
   * API crawls one caller may have running at once; a start past it is refused (429). The caller is
   * the signed IAM principal (a role's sessions count as the role); behind a write token every holder
   * of the token is one caller.
   */
  runsPerCaller: number;
}

/** What a deployment allows unless `api.startCrawls.limits` says otherwise. */
export const DEFAULT_API_CRAWL_LIMITS: ApiCrawlLimits = { maxPages: 100_000, maxMinutes: 24 * 60, concurrentRuns: 4, runsPerCaller: 2 };

/** The allowed range of each cap (`cdk synth` refuses a value outside it). */
export const API_CRAWL_LIMIT_RANGES: Record<keyof ApiCrawlLimits, [number, number]> = {
  maxPages: [1, 100_000_000],
  maxMinutes: [1, 7 * 24 * 60],
  concurrentRuns: [1, 100],
  runsPerCaller: [1, 100],
};
