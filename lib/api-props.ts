// How callers reach the search API's Function URL, and what those allowed to write may start.

/** How callers reach the search API's Function URL: signed requests (`iam`) or a key (`apiKey`). */
export type ApiProps = IamApiProps | ApiKeyApiProps;

/** Only principals allowed `lambda:InvokeFunctionUrl` (SigV4-signed requests). The default. */
export interface IamApiProps {
  /** @default 'iam' */
  readonly auth?: 'iam';
  /**
   * `POST /crawls` on the API starts the run state machine (and `GET`/`DELETE /crawls/{id}` follow
   * and stop it): the API's role gets `states:StartExecution` on the run machine, read access to its
   * executions and `dynamodb:UpdateItem` on the table (to mark a run stopped). Callers are the
   * principals allowed to invoke the URL. `settings` are the crawl settings every such crawl gets
   * under the request's own (politeness, `allowPrivateNetwork`): a request may choose only the
   * per-crawl ones (`maxPages`, `maxDepth`, `scope`, `render`, …; see the OpenAPI document).
   * @default false (the API only reads)
   */
  readonly startCrawls?:
    | boolean
    | {
        readonly settings?: Record<string, unknown>;
        readonly limits?: ApiCrawlLimitProps;
        /**
         * The IAM roles or users (ARNs) that may start and stop crawls; every other principal allowed
         * to invoke the URL only reads (a write answers 403). A role's sessions count as the role.
         * @default every principal allowed to invoke the URL may write
         */
        readonly writers?: readonly string[];
        /**
         * The IAM roles or users (ARNs) that may stop any crawl started over the API; every other
         * caller stops only its own (`DELETE /crawls/{id}` answers 403 for another's). A role's
         * sessions count as the role.
         * @default none: each caller stops only the crawls it started
         */
        readonly admins?: readonly string[];
      };
}

/**
 * Caps on crawls started over the API, checked by the API before a run starts: a request asking
 * for more is refused (400), a start past `concurrentRuns` running API crawls, or past
 * `runsPerCaller` of the same caller's, too (429).
 */
export interface ApiCrawlLimitProps {
  /**
   * The most pages one crawl may fetch (1 to 100,000,000).
   * @default 100000
   */
  readonly maxPages?: number;
  /**
   * The longest one crawl may run, in minutes (1 to 10,080).
   * @default 1440
   */
  readonly maxMinutes?: number;
  /**
   * Crawls started over the API running at once (1 to 100).
   * @default 4
   */
  readonly concurrentRuns?: number;
  /**
   * Crawls one caller may have running at once (1 to 100): the signed IAM principal, a role's
   * sessions counting as the role; behind a write token, every holder of the token is one caller.
   * @default 2
   */
  readonly runsPerCaller?: number;
}

/** A public URL whose requests carry a key in `apiKeyHeader`. */
export interface ApiKeyApiProps {
  readonly auth: 'apiKey';
  /** The SHA-256 of the key in hex (`printf %s "$KEY" | sha256sum`); the key itself never enters the template. */
  readonly apiKeySha256: string;
  /**
   * The header that carries the key.
   * @default 'x-api-key'
   */
  readonly apiKeyHeader?: string;
  /**
   * The search API's reserved concurrency, so a flood of requests without the key can neither
   * run up the bill past it nor take the account's concurrency from the crawl. Put CloudFront and
   * AWS WAF in front for rate limits.
   * @default 10
   */
  readonly maxConcurrency?: number;
}
