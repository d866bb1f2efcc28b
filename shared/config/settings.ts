import { z } from 'zod';
import { DEFAULT_SESSION_PARAMS, DEFAULT_TRACKING_PARAMS } from '../url/canonical.js';
import { UsageError } from '../errors.js';

const count = (min: number) => z.coerce.number().int().min(min);
const ms = z.coerce.number().int().min(0);
const list = z.array(z.string().min(1));

/** The contact URL in the default User-Agent; operators should replace it with their own. */
export const DEFAULT_USER_AGENT = 'trawl/0.1 (+https://github.com/trawl-crawler/trawl; polite crawler)';

interface Setting<S extends z.ZodType> {
  schema: S;
  default: z.infer<S>;
  flag?: string;
  env: string;
  /** What the value means, for --help and error messages. */
  help: string;
  /** Boolean flags take no value; list flags repeat. */
  type: 'string' | 'boolean' | 'list';
}

function setting<S extends z.ZodType>(s: Setting<S>): Setting<S> {
  return s;
}

/** Every crawl setting: schema, default, flag and environment variable, in one place. */
export const SETTINGS = {
  data: setting({ schema: z.string().min(1), default: './trawl-data', flag: 'data', env: 'TRAWL_DATA', help: 'data directory (SQLite + raw bodies)', type: 'string' }),
  maxPages: setting({ schema: count(1), default: 10_000, flag: 'max-pages', env: 'TRAWL_MAX_PAGES', help: 'stop after this many fetched pages', type: 'string' }),
  maxDepth: setting({ schema: count(0), default: 20, flag: 'max-depth', env: 'TRAWL_MAX_DEPTH', help: 'links followed from a seed', type: 'string' }),
  maxPagesPerHost: setting({ schema: count(1), default: 5_000, flag: 'max-pages-per-host', env: 'TRAWL_MAX_PAGES_PER_HOST', help: 'pages fetched per host', type: 'string' }),
  scope: setting({ schema: z.enum(['host', 'domain']), default: 'host' as 'host' | 'domain', flag: 'scope', env: 'TRAWL_SCOPE', help: 'host: seed hosts only; domain: their registrable domains', type: 'string' }),
  allowDomain: setting({ schema: list, default: [] as string[], flag: 'allow-domain', env: 'TRAWL_ALLOW_DOMAIN', help: 'also crawl this domain and its subdomains (repeatable)', type: 'list' }),
  deny: setting({ schema: list, default: [] as string[], flag: 'deny', env: 'TRAWL_DENY', help: 'skip URLs matching this glob or /regex/ (repeatable)', type: 'list' }),
  userAgent: setting({ schema: z.string().min(3), default: DEFAULT_USER_AGENT, flag: 'user-agent', env: 'TRAWL_USER_AGENT', help: 'User-Agent; its first word is the robots.txt product token', type: 'string' }),
  delayMs: setting({ schema: ms, default: 1000, flag: 'delay-ms', env: 'TRAWL_DELAY_MS', help: 'minimum gap between requests to one host; Crawl-delay wins when larger', type: 'string' }),
  concurrency: setting({ schema: count(1), default: 16, flag: 'concurrency', env: 'TRAWL_CONCURRENCY', help: 'hosts fetched at once (one request per host at a time)', type: 'string' }),
  maxRps: setting({ schema: z.coerce.number().min(0), default: 100, flag: 'max-rps', env: 'TRAWL_MAX_RPS', help: 'global cap on requests per second (0: none)', type: 'string' }),
  allowPrivateNetwork: setting({ schema: z.boolean(), default: false, flag: 'allow-private-network', env: 'TRAWL_ALLOW_PRIVATE_NETWORK', help: 'allow loopback and private addresses (tests, intranets)', type: 'boolean' }),
  followNofollow: setting({ schema: z.boolean(), default: false, flag: 'follow-nofollow', env: 'TRAWL_FOLLOW_NOFOLLOW', help: 'follow rel=nofollow links and nofollow pages', type: 'boolean' }),
  resume: setting({ schema: z.boolean(), default: false, flag: 'resume', env: 'TRAWL_RESUME', help: 'continue the interrupted crawl in the data directory', type: 'boolean' }),
  json: setting({ schema: z.boolean(), default: false, flag: 'json', env: 'TRAWL_JSON', help: 'print JSON lines instead of a progress line', type: 'boolean' }),
  maxBodyBytes: setting({ schema: count(1024), default: 5 * 1024 * 1024, flag: 'max-body-bytes', env: 'TRAWL_MAX_BODY_BYTES', help: 'body cap, on the wire and decoded', type: 'string' }),
  connectTimeoutMs: setting({ schema: count(1), default: 10_000, flag: 'connect-timeout-ms', env: 'TRAWL_CONNECT_TIMEOUT_MS', help: 'TCP/TLS connect timeout', type: 'string' }),
  timeoutMs: setting({ schema: count(1), default: 30_000, flag: 'timeout-ms', env: 'TRAWL_TIMEOUT_MS', help: 'total timeout of one request', type: 'string' }),
  robotsTtlMs: setting({ schema: ms, default: 24 * 3600_000, flag: 'robots-ttl-ms', env: 'TRAWL_ROBOTS_TTL_MS', help: 'how long a stored robots.txt is reused', type: 'string' }),
  backoffBaseMs: setting({ schema: count(1), default: 30_000, flag: 'backoff-base-ms', env: 'TRAWL_BACKOFF_BASE_MS', help: 'first back-off after 429/503 without Retry-After', type: 'string' }),
  backoffMaxMs: setting({ schema: count(1), default: 600_000, flag: 'backoff-max-ms', env: 'TRAWL_BACKOFF_MAX_MS', help: 'longest back-off', type: 'string' }),
  maxRetryAfterMs: setting({ schema: count(1), default: 3600_000, flag: 'max-retry-after-ms', env: 'TRAWL_MAX_RETRY_AFTER_MS', help: 'a longer Retry-After parks the host', type: 'string' }),
  maxHostFailures: setting({ schema: count(1), default: 6, flag: 'max-host-failures', env: 'TRAWL_MAX_HOST_FAILURES', help: 'failures in a row that park a host', type: 'string' }),
  maxAttempts: setting({ schema: count(1), default: 4, flag: 'max-attempts', env: 'TRAWL_MAX_ATTEMPTS', help: 'tries per URL for retryable failures', type: 'string' }),
  extract: setting({ schema: z.enum(['full', 'links']), default: 'full' as 'full' | 'links', flag: 'extract', env: 'TRAWL_EXTRACT', help: 'full: content, metadata, chunks, SimHash and links; links: links with context only (discovery crawls)', type: 'string' }),
  extractWorkers: setting({ schema: z.union([z.literal('auto'), count(0)]), default: 'auto' as 'auto' | number, flag: 'extract-workers', env: 'TRAWL_EXTRACT_WORKERS', help: 'worker threads for extraction (0: on the crawl thread; default: cores − 1)', type: 'string' }),
  warcMaxBytes: setting({ schema: count(1024), default: 1024 ** 3, flag: 'warc-max-bytes', env: 'TRAWL_WARC_MAX_BYTES', help: 'start a new WARC file past this size', type: 'string' }),
  trackingParams: setting({ schema: list, default: [...DEFAULT_TRACKING_PARAMS], flag: 'tracking-param', env: 'TRAWL_TRACKING_PARAMS', help: 'query parameters dropped from URLs (repeatable; replaces the default list)', type: 'list' }),
  sessionParams: setting({ schema: list, default: [...DEFAULT_SESSION_PARAMS], flag: 'session-param', env: 'TRAWL_SESSION_PARAMS', help: 'session-id parameters dropped from URLs (repeatable; replaces the default list)', type: 'list' }),
} as const;

export type SettingName = keyof typeof SETTINGS;
export type CrawlSettings = { [K in SettingName]: z.infer<(typeof SETTINGS)[K]['schema']> };

export function defaultSettings(): CrawlSettings {
  const out: Record<string, unknown> = {};
  for (const [name, s] of Object.entries(SETTINGS)) out[name] = Array.isArray(s.default) ? [...s.default] : s.default;
  return out as CrawlSettings;
}

/**
 * Settings from a plain object (a crawl of `crawls.json`, a stored run's config): every key must
 * be a setting and every value must fit its schema; the rest are defaults. `where` names the
 * source in error messages.
 */
export function settingsFrom(values: Record<string, unknown>, where: string): CrawlSettings {
  const out = defaultSettings() as Record<string, unknown>;
  for (const [name, value] of Object.entries(values)) {
    const s = (SETTINGS as Record<string, Setting<z.ZodType>>)[name];
    if (!s) throw new UsageError(`${where}: unknown setting "${name}"; known settings: ${Object.keys(SETTINGS).join(', ')}`);
    const parsed = s.schema.safeParse(value);
    if (!parsed.success) throw new UsageError(`${where}: setting "${name}" = ${JSON.stringify(value)} is not valid (${s.help}): ${parsed.error.issues[0]?.message ?? 'bad value'}`);
    out[name] = parsed.data;
  }
  return out as CrawlSettings;
}
