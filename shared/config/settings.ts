import { z } from 'zod';
import { DEFAULT_SESSION_PARAMS, DEFAULT_TRACKING_PARAMS } from '../url/canonical.js';
import { denyPatternProblem } from '../url/scope.js';
import { bool, DAY, HOUR, int, list, ms, setting, type Setting } from './setting.js';
import { RENDER_SETTINGS } from './render-settings.js';
import { ENRICH_SETTINGS } from './enrich-settings.js';
import { SCORING_SETTINGS } from './scoring-settings.js';
import { CHANGE_SETTINGS } from './change-settings.js';

/** The longest timer Node can run: setTimeout turns anything above 2³¹−1 ms into 1 ms. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** Control characters, line breaks included: what a header value must not hold (a newline would end the header block). */
// eslint-disable-next-line no-control-regex -- these characters are exactly what is refused
const CONTROL = /[\u0000-\u001f\u007f]/;

/** A header value: printable, no line breaks. */
const headerValue = z
  .string()
  .min(3)
  .max(512)
  .refine((v) => !CONTROL.test(v), 'control characters and line breaks are not allowed in a header');

const denyList = z.array(z.string().min(1)).superRefine((patterns, ctx) => {
  for (const p of patterns) {
    const problem = denyPatternProblem(p);
    if (problem) ctx.addIssue({ code: 'custom', message: `pattern ${JSON.stringify(p)}: ${problem}` });
  }
});

/** The contact URL in the default User-Agent; operators should replace it with their own. */
export const DEFAULT_USER_AGENT = 'trawl/0.1 (+https://github.com/trawl-crawler/trawl; polite crawler)';

/** Every crawl setting: schema, range, default, flag and environment variable, in one place. */
export const SETTINGS = {
  data: setting({
    schema: z.string().min(1),
    expects: 'a directory path',
    default: './trawl-data',
    flag: 'data',
    env: 'TRAWL_DATA',
    help: 'data directory (SQLite + raw bodies)',
    type: 'string',
  }),
  maxPages: setting({
    ...int(1, 100_000_000),
    default: 10_000,
    flag: 'max-pages',
    env: 'TRAWL_MAX_PAGES',
    help: 'stop after this many fetched pages',
    type: 'string',
  }),
  maxDepth: setting({ ...int(0, 1000), default: 20, flag: 'max-depth', env: 'TRAWL_MAX_DEPTH', help: 'links followed from a seed', type: 'string' }),
  maxSitemaps: setting({
    ...int(0, 100_000),
    default: 200,
    flag: 'max-sitemaps',
    env: 'TRAWL_MAX_SITEMAPS',
    help: 'sitemap and feed URLs a run fetches (an endless chain of sitemap indexes ends here)',
    type: 'string',
  }),
  maxPagesPerHost: setting({
    ...int(1, 100_000_000),
    default: 5_000,
    flag: 'max-pages-per-host',
    env: 'TRAWL_MAX_PAGES_PER_HOST',
    help: 'pages fetched per host',
    type: 'string',
  }),
  maxMinutes: setting({
    ...int(0, 7 * 24 * 60),
    default: 0,
    flag: 'max-minutes',
    env: 'TRAWL_MAX_MINUTES',
    help: 'time budget of a crawl (0: none); hosts that cannot finish in it are skipped as host-too-slow',
    type: 'string',
  }),
  scope: setting({
    schema: z.enum(['host', 'domain']),
    expects: 'one of host, domain',
    default: 'host' as 'host' | 'domain',
    flag: 'scope',
    env: 'TRAWL_SCOPE',
    help: 'host: seed hosts only; domain: their registrable domains',
    type: 'string',
  }),
  allowDomain: setting({
    ...list,
    default: [] as string[],
    flag: 'allow-domain',
    env: 'TRAWL_ALLOW_DOMAIN',
    help: 'also crawl this domain and its subdomains (repeatable)',
    type: 'list',
  }),
  deny: setting({
    schema: denyList,
    expects: 'globs (*/login*) or /regular expressions/',
    default: [] as string[],
    flag: 'deny',
    env: 'TRAWL_DENY',
    help: 'skip URLs matching this glob or /regex/ (repeatable)',
    type: 'list',
  }),
  include: setting({
    schema: denyList,
    expects: 'globs (*/blog/*) or /regular expressions/',
    default: [] as string[],
    flag: 'include',
    env: 'TRAWL_INCLUDE',
    help: 'follow only links to URLs matching this glob or /regex/ (repeatable; the seeds, sitemaps and feeds are always read)',
    type: 'list',
  }),
  userAgent: setting({
    schema: headerValue,
    expects: '3 to 512 printable characters, no line breaks',
    default: DEFAULT_USER_AGENT,
    flag: 'user-agent',
    env: 'TRAWL_USER_AGENT',
    help: 'User-Agent; its first word is the robots.txt product token',
    type: 'string',
  }),
  delayMs: setting({
    ...ms(0, HOUR),
    default: 1000,
    flag: 'delay-ms',
    env: 'TRAWL_DELAY_MS',
    help: 'minimum gap between requests to one host; Crawl-delay wins when larger',
    type: 'string',
  }),
  maxCrawlDelayMs: setting({
    ...ms(1000, HOUR),
    default: 60_000,
    flag: 'max-crawl-delay-ms',
    env: 'TRAWL_MAX_CRAWL_DELAY_MS',
    help: 'a robots.txt Crawl-delay above this parks the host (we never crawl faster than a site asks)',
    type: 'string',
  }),
  concurrency: setting({
    ...int(1, 1000),
    default: 16,
    flag: 'concurrency',
    env: 'TRAWL_CONCURRENCY',
    help: 'hosts fetched at once (one request per host at a time)',
    type: 'string',
  }),
  maxRps: setting({
    schema: z.coerce.number().refine((v) => v === 0 || (v >= 0.1 && v <= 10_000), 'must be 0 or from 0.1 to 10000'),
    expects: '0 (no cap) or a number from 0.1 to 10000',
    // No cap by default: politeness is per host (one request at a time, the delay, Crawl-delay,
    // back-off). A cap of 100 across hosts was the idle time of a 12-host crawl with delays off
    // (5,183 requests in 51.8 s: 100.06/s while the threads had room for ~400/s).
    default: 0,
    flag: 'max-rps',
    env: 'TRAWL_MAX_RPS',
    help: 'global cap on requests per second across all hosts, for your own network (0: none)',
    type: 'string',
  }),
  allowPrivateNetwork: setting({
    ...bool,
    default: false,
    flag: 'allow-private-network',
    env: 'TRAWL_ALLOW_PRIVATE_NETWORK',
    help: 'allow loopback and private addresses (tests, intranets)',
    type: 'boolean',
  }),
  stageTimes: setting({
    ...bool,
    default: false,
    flag: 'stage-times',
    env: 'TRAWL_STAGE_TIMES',
    help: "measure where the crawl's time goes, by stage and thread (ms per page), and report it at the end",
    type: 'boolean',
  }),
  followNofollow: setting({
    ...bool,
    default: false,
    flag: 'follow-nofollow',
    env: 'TRAWL_FOLLOW_NOFOLLOW',
    help: 'follow rel=nofollow links and nofollow pages',
    type: 'boolean',
  }),
  resume: setting({
    ...bool,
    default: false,
    flag: 'resume',
    env: 'TRAWL_RESUME',
    help: 'continue the interrupted crawl in the data directory',
    type: 'boolean',
  }),
  maxBodyBytes: setting({
    ...int(1024, 1024 ** 3),
    default: 5 * 1024 * 1024,
    flag: 'max-body-bytes',
    env: 'TRAWL_MAX_BODY_BYTES',
    help: 'body cap, on the wire and decoded',
    type: 'string',
  }),
  connectTimeoutMs: setting({
    ...ms(1, 120_000),
    default: 10_000,
    flag: 'connect-timeout-ms',
    env: 'TRAWL_CONNECT_TIMEOUT_MS',
    help: 'TCP/TLS connect timeout',
    type: 'string',
  }),
  timeoutMs: setting({ ...ms(1, 600_000), default: 30_000, flag: 'timeout-ms', env: 'TRAWL_TIMEOUT_MS', help: 'total timeout of one request', type: 'string' }),
  robotsTtlMs: setting({
    ...ms(0, 30 * DAY),
    default: DAY,
    flag: 'robots-ttl-ms',
    env: 'TRAWL_ROBOTS_TTL_MS',
    help: 'how long a stored robots.txt is reused',
    type: 'string',
  }),
  backoffBaseMs: setting({
    ...ms(1, HOUR),
    default: 30_000,
    flag: 'backoff-base-ms',
    env: 'TRAWL_BACKOFF_BASE_MS',
    help: 'first back-off after 429/503 without Retry-After',
    type: 'string',
  }),
  backoffMaxMs: setting({ ...ms(1, DAY), default: 600_000, flag: 'backoff-max-ms', env: 'TRAWL_BACKOFF_MAX_MS', help: 'longest back-off', type: 'string' }),
  maxRetryAfterMs: setting({
    ...ms(1, DAY),
    default: HOUR,
    flag: 'max-retry-after-ms',
    env: 'TRAWL_MAX_RETRY_AFTER_MS',
    help: 'a longer Retry-After parks the host',
    type: 'string',
  }),
  maxIdleWaitMs: setting({
    ...ms(0, DAY),
    default: 60_000,
    flag: 'max-idle-wait-ms',
    env: 'TRAWL_MAX_IDLE_WAIT_MS',
    help: 'when only backed-off hosts are left and the next one is ready later than this, the crawl ends and defers their URLs to the next run or --resume',
    type: 'string',
  }),
  maxHostFailures: setting({
    ...int(1, 1000),
    default: 6,
    flag: 'max-host-failures',
    env: 'TRAWL_MAX_HOST_FAILURES',
    help: 'failures in a row that park a host',
    type: 'string',
  }),
  maxAttempts: setting({
    ...int(1, 100),
    default: 4,
    flag: 'max-attempts',
    env: 'TRAWL_MAX_ATTEMPTS',
    help: 'tries per URL for retryable failures (counted across resumes)',
    type: 'string',
  }),
  extract: setting({
    schema: z.enum(['full', 'links']),
    expects: 'one of full, links',
    default: 'full' as 'full' | 'links',
    flag: 'extract',
    env: 'TRAWL_EXTRACT',
    help: 'full: content, metadata, chunks, SimHash and links; links: links with context only (discovery crawls)',
    type: 'string',
  }),
  mainContent: setting({
    schema: z.enum(['article', 'full']),
    expects: 'one of article, full',
    default: 'article' as 'article' | 'full',
    flag: 'main-content',
    env: 'TRAWL_MAIN_CONTENT',
    help: "article: the page's main article; full: all of the page's readable content, furniture removed (docs, product and listing pages)",
    type: 'string',
  }),
  frontierMemory: setting({
    ...int(1, 10_000_000),
    default: 20_000,
    flag: 'frontier-memory',
    env: 'TRAWL_FRONTIER_MEMORY',
    help: 'queued URLs held in memory, shared among the hosts (at least 16 a host); the rest wait in the database and come back best first as their hosts run low',
    type: 'string',
  }),
  processingQueue: setting({
    ...int(0, 10_000),
    default: 64,
    flag: 'processing-queue',
    env: 'TRAWL_PROCESSING_QUEUE',
    help: "fetched pages waiting for extraction and storage, at most (no request starts while it is full); 0: each page is processed in its host's turn, before the host's next request",
    type: 'string',
  }),
  extractWorkers: setting({
    schema: z.union([z.literal('auto'), z.coerce.number().int().min(0).max(64)]),
    expects: 'auto or a whole number from 0 to 64',
    default: 'auto' as 'auto' | number,
    flag: 'extract-workers',
    env: 'TRAWL_EXTRACT_WORKERS',
    help: 'worker threads for extraction (0: on the crawl thread; default: cores − 1)',
    type: 'string',
  }),
  extractTimeoutMs: setting({
    ...ms(100, 600_000),
    default: 30_000,
    flag: 'extract-timeout-ms',
    env: 'TRAWL_EXTRACT_TIMEOUT_MS',
    help: 'a page whose extraction takes longer fails (its worker is replaced)',
    type: 'string',
  }),
  extractMemoryMb: setting({
    ...int(16, 16_384),
    default: 512,
    flag: 'extract-memory-mb',
    env: 'TRAWL_EXTRACT_MEMORY_MB',
    help: 'heap limit of one extraction worker; a page that exhausts it fails alone',
    type: 'string',
  }),
  warcMaxBytes: setting({
    ...int(1024, 64 * 1024 ** 3),
    default: 1024 ** 3,
    flag: 'warc-max-bytes',
    env: 'TRAWL_WARC_MAX_BYTES',
    help: 'start a new WARC file past this size',
    type: 'string',
  }),
  warcDigest: setting({
    schema: z.enum(['sha1', 'sha256']),
    expects: 'one of sha1, sha256',
    default: 'sha1' as 'sha1' | 'sha256',
    flag: 'warc-digest',
    env: 'TRAWL_WARC_DIGEST',
    help: "the WARC records' digests: sha1, which Heritrix, wget, Common Crawl and pywb write (deduplication against other archives works), or sha256",
    type: 'string',
  }),
  trackingParams: setting({
    ...list,
    default: [...DEFAULT_TRACKING_PARAMS],
    flag: 'tracking-param',
    env: 'TRAWL_TRACKING_PARAMS',
    help: 'query parameters dropped from URLs (repeatable; replaces the default list)',
    type: 'list',
  }),
  sessionParams: setting({
    ...list,
    default: [...DEFAULT_SESSION_PARAMS],
    flag: 'session-param',
    env: 'TRAWL_SESSION_PARAMS',
    help: 'session-id parameters dropped from URLs (repeatable; replaces the default list)',
    type: 'list',
  }),
  ...RENDER_SETTINGS,
  ...ENRICH_SETTINGS,
  ...SCORING_SETTINGS,
  ...CHANGE_SETTINGS,
} as const;

export type SettingName = keyof typeof SETTINGS;
export type CrawlSettings = { [K in SettingName]: z.infer<(typeof SETTINGS)[K]['schema']> };

/** The description of one setting, for code that walks the table (flags, help, docs). */
export type SettingSpec = Setting<z.ZodType>;

export function settingSpec(name: SettingName): SettingSpec {
  return SETTINGS[name] as unknown as SettingSpec;
}

export function defaultSettings(): CrawlSettings {
  const out: Record<string, unknown> = {};
  for (const [name, s] of Object.entries(SETTINGS)) out[name] = Array.isArray(s.default) ? [...s.default] : s.default;
  return out as CrawlSettings;
}
