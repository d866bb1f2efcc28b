import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { z } from 'zod';
import { settingsFrom } from '../shared/config/resolve.js';
import { CrawlConfigError, errorMessage } from '../shared/errors.js';
import { routeTarget } from '../shared/targets/route.js';

export { CrawlConfigError };

import { loadProfile, parseProfile, shippedProfiles, type Profile } from '../shared/scoring/profile.js';

export interface CrawlDefinition {
  /** Letters, digits, `-` and `_`; names the EventBridge rule. */
  name: string;
  /** An EventBridge schedule expression: `rate(1 day)` or `cron(0 3 * * ? *)`. */
  schedule: string;
  /**
   * Where the crawl starts: URLs, web search queries (`search:fire sprinkler inspection`) and
   * social accounts (`r/Minneapolis`, a Bluesky, Mastodon, X, Instagram or TikTok profile URL). A
   * query or account is called by the Discover step with the keys of the construct's secret; its
   * results and the links in its posts are crawled at depth 1.
   */
  seeds: string[];
  /** Crawl settings by name (maxPages, maxDepth, maxPagesPerHost, delayMs, scope, …). */
  limits?: Record<string, unknown>;
  /**
   * The scoring profile (as an embedded crawl's `--profile`): a shipped name, the path of a profile
   * file (relative to crawls.json; read at synth and carried in the schedule's input), or a profile
   * object. Anything but `default` makes the crawl focused.
   */
  profile?: string | Profile;
  /** Focused crawl: links are scored against these words (default: the profile's query). */
  query?: string;
  /** End each run with the selection of each seed (the pages that say what the site does), in the table and in reports/selection-<run>.json. */
  select?: { cap: number };
  /** The run is finalized after this many minutes even if its frontier is not drained. */
  maxMinutes?: number;
}

const RATE = /^rate\((\d+) (minute|minutes|hour|hours|day|days)\)$/;
const CRON_FIELDS = 6;

/** Checks an EventBridge schedule expression as EventBridge would, so a bad one fails at synth, not at deploy. */
export function scheduleProblem(expression: string): string | undefined {
  const rate = RATE.exec(expression);
  if (rate) {
    const n = Number(rate[1]);
    if (n < 1) return 'a rate must be at least 1';
    if ((n === 1) !== !rate[2]!.endsWith('s'))
      return `write "rate(${n} ${n === 1 ? rate[2]!.replace(/s$/, '') : `${rate[2]!.replace(/s$/, '')}s`})" (EventBridge wants the singular unit for 1 and the plural otherwise)`;
    return undefined;
  }
  const cron = /^cron\((.*)\)$/.exec(expression);
  if (cron) {
    const fields = cron[1]!.trim().split(/\s+/);
    if (fields.length !== CRON_FIELDS)
      return `a cron expression has 6 fields (minutes hours day-of-month month day-of-week year), this one has ${fields.length}`;
    if (fields[2] !== '?' && fields[4] !== '?') return 'one of day-of-month and day-of-week must be "?"';
    return undefined;
  }
  return 'use rate(<n> <minutes|hours|days>) or cron(<6 fields>)';
}

const crawlSchema = z
  .object({
    name: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'use 1–64 letters, digits, "-" or "_"'),
    schedule: z.string(),
    seeds: z.array(z.string()).min(1, 'give at least one seed: a URL, a search query (search:…) or an account (r/name)'),
    limits: z.record(z.string(), z.unknown()).optional(),
    profile: z.union([z.string().min(1), z.record(z.string(), z.unknown())]).optional(),
    query: z.string().max(1000).optional(),
    select: z
      .object({ cap: z.number().int().min(1).max(50) })
      .strict()
      .optional(),
    maxMinutes: z
      .number()
      .int()
      .min(1)
      .max(7 * 24 * 60)
      .optional(),
  })
  .strict();

/** A crawl's profile, checked: a shipped name stays a name; a file or an object becomes the profile itself. */
function crawlProfile(profile: string | Record<string, unknown> | undefined, where: string, baseDir: string): string | Profile | undefined {
  try {
    if (profile === undefined) return undefined;
    if (typeof profile !== 'string') return parseProfile(profile, `${where}: profile`);
    if (shippedProfiles().includes(profile)) return profile;
    return loadProfile(/[/\\]|\.json$/i.test(profile) ? resolve(baseDir, profile) : profile);
  } catch (err) {
    throw new CrawlConfigError(`${where}: ${errorMessage(err)}`);
  }
}

/**
 * Validates crawl definitions; every problem names the crawl and the field, and says what to write
 * instead. Profile files are read relative to `baseDir` (crawls.json's folder).
 */
export function validateCrawls(input: unknown, source = 'crawls.json', baseDir = process.cwd()): CrawlDefinition[] {
  const doc = z.object({ crawls: z.array(z.unknown()) }).safeParse(input);
  if (!doc.success) throw new CrawlConfigError(`${source}: expected {"crawls": [ … ]} at the top level`);
  const names = new Set<string>();
  return doc.data.crawls.map((raw, i) => {
    const where = `${source}: crawl #${i + 1}${typeof (raw as { name?: unknown })?.name === 'string' ? ` "${(raw as { name: string }).name}"` : ''}`;
    const parsed = crawlSchema.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new CrawlConfigError(`${where}: ${issue.path.join('.') || 'entry'}: ${issue.message}`);
    }
    const crawl = parsed.data;
    if (names.has(crawl.name)) throw new CrawlConfigError(`${where}: the name is used twice; crawl names must be unique (they name the schedule rules)`);
    names.add(crawl.name);
    const problem = scheduleProblem(crawl.schedule);
    if (problem) throw new CrawlConfigError(`${where}: schedule "${crawl.schedule}" is not an EventBridge expression: ${problem}`);
    for (const seed of crawl.seeds) {
      try {
        routeTarget(seed);
      } catch (err) {
        throw new CrawlConfigError(`${where}: seed "${seed}": ${errorMessage(err)}`);
      }
    }
    try {
      settingsFrom(crawl.limits ?? {}, `${where}: limits`);
    } catch (err) {
      throw new CrawlConfigError(errorMessage(err));
    }
    return { ...crawl, profile: crawlProfile(crawl.profile, where, baseDir) } as CrawlDefinition;
  });
}

export function loadCrawls(file: string): CrawlDefinition[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new CrawlConfigError(`cannot read ${file} (${errorMessage(err)}): create it with {"crawls": []} or pass the crawls to the Crawler construct`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new CrawlConfigError(`${file} is not valid JSON: ${errorMessage(err)}`);
  }
  return validateCrawls(json, file, dirname(resolve(file)));
}
