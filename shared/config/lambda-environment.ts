// The Lambda environment is a contract between the construct (lib/, which sets the variables) and
// the handlers (which read them): the names and their parsing live here, once, so neither side
// writes a variable name as a string of its own (code review of 2026-11, §4). It lives in shared/
// rather than functions/ because the published construct (dist/lib) imports it.
import { DEFAULT_API_CRAWL_LIMITS, type ApiCrawlLimits } from './api-crawl-limits.js';
import { z } from 'zod';

/** Each variable the construct sets for the functions, by the name the code uses for it. */
export const ENV = {
  table: 'TABLE_NAME',
  bucket: 'BUCKET_NAME',
  queueUrl: 'QUEUE_URL',
  deadLetterUrl: 'DEAD_LETTER_QUEUE_URL',
  pageWorkflowArn: 'PAGE_WORKFLOW_ARN',
  frontierRetentionDays: 'FRONTIER_RETENTION_DAYS',
  fetchRetentionDays: 'FETCH_RETENTION_DAYS',
  urlLeaseMs: 'URL_LEASE_MS',
  turnStaleMs: 'TURN_STALE_MS',
  vectorBucket: 'VECTOR_BUCKET_NAME',
  vectorIndex: 'VECTOR_INDEX_NAME',
  apiKeySha256: 'API_KEY_SHA256',
  apiKeyHeader: 'API_KEY_HEADER',
  apiAllowedHosts: 'TRAWL_API_ALLOWED_HOSTS',
  targetsSecretArn: 'TARGETS_SECRET_ARN',
  eventBusName: 'EVENT_BUS_NAME',
  runMachineArn: 'RUN_MACHINE_ARN',
  apiCrawlSettings: 'API_CRAWL_SETTINGS',
  apiCrawlLimits: 'API_CRAWL_LIMITS',
  apiWriters: 'API_WRITERS',
  apiAdmins: 'API_ADMINS',
  textRebuildLogEntries: 'TEXT_REBUILD_LOG_ENTRIES',
  extractedSnapshots: 'EXTRACTED_SNAPSHOTS',
} as const;

export type EnvName = keyof typeof ENV;

const positive = z.coerce.number().int().positive();
const schema = z.object({
  table: z.string().min(1),
  bucket: z.string().min(1),
  queueUrl: z.string().default(''),
  deadLetterUrl: z.string().optional(),
  pageWorkflowArn: z.string().default(''),
  frontierRetentionDays: positive.default(90),
  fetchRetentionDays: positive.optional(),
  urlLeaseMs: positive.optional(),
  /** `true`: Extract writes each page's extraction under `extracted/` too (the construct's `extractedSnapshots`). */
  extractedSnapshots: z
    .enum(['true', 'false'])
    .default('false')
    .transform((s) => s === 'true'),
  turnStaleMs: positive.optional(),
  vectorBucket: z.string().optional(),
  vectorIndex: z.string().default('pages'),
  apiKeySha256: z.string().optional(),
  apiKeyHeader: z.string().default('x-api-key'),
  apiAllowedHosts: z
    .string()
    .default('')
    .transform((s) => s.split(',').filter(Boolean)),
  targetsSecretArn: z.string().optional(),
  eventBusName: z.string().optional(),
  /** Set on the search API when it may start crawls (`api.startCrawls`). */
  runMachineArn: z.string().optional(),
  /** Set on Progress where search is deployed: past this many logged text changes, a running run rebuilds its full-text generation. */
  textRebuildLogEntries: positive.optional(),
  /** The IAM principals (ARNs, comma-separated) that may write over the API; absent: every caller the URL admits. */
  apiWriters: z
    .string()
    .default('')
    .transform((s) => s.split(',').filter(Boolean)),
  /** The IAM principals (ARNs, comma-separated) that may stop any API crawl; absent: each caller stops its own. */
  apiAdmins: z
    .string()
    .default('')
    .transform((s) => s.split(',').filter(Boolean)),
  /** Caps on crawls started over the API (a JSON object: maxPages, maxMinutes, concurrentRuns, runsPerCaller); absent: the defaults. */
  apiCrawlLimits: z
    .string()
    .optional()
    .transform((s, ctx) => {
      if (s === undefined) return DEFAULT_API_CRAWL_LIMITS;
      try {
        const v = JSON.parse(s) as Partial<ApiCrawlLimits>;
        const limits = { ...DEFAULT_API_CRAWL_LIMITS, ...v };
        if (Object.values(limits).every((n) => Number.isInteger(n) && n > 0)) return limits;
      } catch {
        // reported below
      }
      ctx.addIssue({ code: 'custom', message: 'a JSON object of whole numbers: maxPages, maxMinutes, concurrentRuns, runsPerCaller' });
      return z.NEVER;
    }),
  /** The settings every crawl started over the API gets under its own (a JSON object). */
  apiCrawlSettings: z
    .string()
    .default('{}')
    .transform((s, ctx) => {
      try {
        const v = JSON.parse(s) as unknown;
        if (v && typeof v === 'object' && !Array.isArray(v)) return v as Record<string, unknown>;
      } catch {
        // reported below
      }
      ctx.addIssue({ code: 'custom', message: 'a JSON object of crawl settings' });
      return z.NEVER;
    }),
});

/** The functions' environment, parsed. */
export type LambdaEnvironment = z.output<typeof schema>;

/**
 * Reads the functions' environment; a missing or malformed variable is an error naming it.
 *
 * @throws Error naming the variable and that the Crawler construct sets it
 */
export function lambdaEnvironment(env: NodeJS.ProcessEnv = process.env): LambdaEnvironment {
  const raw = Object.fromEntries(Object.entries(ENV).map(([key, name]) => [key, env[name] === '' ? undefined : env[name]]));
  const parsed = schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const key = issue.path[0] as EnvName;
  const problem = raw[key] === undefined ? 'is not set' : `is not valid (${JSON.stringify(raw[key])}: ${issue.message})`;
  throw new Error(`environment variable ${ENV[key]} ${problem}: deploy the function with the Crawler construct, which sets it`);
}

/** Variables for a function, by their names in the code (what lib/ hands to `environment`). */
export function environmentOf(values: Partial<Record<EnvName, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(values)) if (value !== undefined) out[ENV[key as EnvName]] = value;
  return out;
}
