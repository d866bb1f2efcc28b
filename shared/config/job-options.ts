import { z } from 'zod';
import { UsageError } from '../errors.js';
import { SETTINGS, type CrawlSettings, type SettingName } from './settings.js';

/**
 * The settings a crawl started over HTTP may choose. The server keeps the rest: the data directory,
 * private addresses, politeness, and profiles (a profile may be a file path on the server).
 */
export const JOB_SETTINGS = [
  'maxPages',
  'maxDepth',
  'maxPagesPerHost',
  'maxMinutes',
  'scope',
  'allowDomain',
  'deny',
  'include',
  'render',
  'mainContent',
  'field',
  'query',
  'enrich',
  'monitorPath',
  'monitorKind',
  'monitorMinChange',
  'monitorField',
  // Over HTTP the schema is the object itself: a string (which the CLI reads as a file) is refused.
  'extractSchema',
  'extractPrompt',
  // Actions and cookies too: their values, never a file on the server.
  'actions',
  'cookies',
] as const satisfies readonly SettingName[];
export type JobSetting = (typeof JOB_SETTINGS)[number];

/** The settings a job chose, typed: what every way into a crawl (REST, MCP, Firecrawl) hands its launcher. */
export type JobOptions = Partial<Pick<CrawlSettings, JobSetting>> & { resume?: boolean };

const JOB_OPTIONS = z
  .object({
    ...(Object.fromEntries(JOB_SETTINGS.map((name) => [name, SETTINGS[name].schema.optional()])) as {
      [K in JobSetting]: z.ZodOptional<(typeof SETTINGS)[K]['schema']>;
    }),
    resume: z.boolean().optional(),
  })
  .strict();

/**
 * The one gate into a crawl job: the settings a job may choose and nothing else, each valid by the
 * settings table's own schema. Every launcher calls it, so a setting misspelt by any caller (or one
 * the server keeps to itself, as the data directory) is refused by name.
 */
export function checkJobOptions(options: unknown): JobOptions {
  const parsed = JOB_OPTIONS.safeParse(options ?? {});
  if (parsed.success) return parsed.data as JobOptions;
  const problems = parsed.error.issues.map((i) =>
    i.code === 'unrecognized_keys'
      ? `${i.keys.map((k) => JSON.stringify(k)).join(', ')} ${i.keys.length > 1 ? 'are not settings' : 'is not a setting'} a crawl job may choose (it may choose ${JOB_SETTINGS.join(', ')})`
      : `${i.path.join('.')}: ${i.message}`,
  );
  throw new UsageError(`invalid crawl job settings: ${problems.join('; ')}`);
}
