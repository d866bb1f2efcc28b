// Scoring profiles: the pattern rules of link scoring and selection, as data files (profiles/*.json)
// checked by a schema. A bad profile fails with the file, the field and what to write.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { CrawlConfigError } from '../errors.js';
import { checkFieldWeights, DEFAULT_FIELD_WEIGHTS } from './contextual.js';

/** A path glob, case-insensitive and anchored: `/services`, `/services/*` (anything below), `*service-area*`. */
const PathGlob = z.string().min(1).regex(/^[/*]/, 'a path pattern starts with / or *');

const Bucket = z.object({
  name: z.string().regex(/^[a-z][a-z0-9-]*$/, 'a bucket name is lower-case kebab-case'),
  /** Paths that belong to the bucket. */
  paths: z.array(PathGlob).default([]),
  /** A top-level page (one path segment) whose slug holds one of these words belongs too (services without a hub). */
  slugTerms: z.array(z.string().min(1)).default([]),
  /** Words of the anchor text that put a link in the bucket. */
  anchors: z.array(z.string().min(1)).default([]),
  /** At most this many selected pages from the bucket. */
  max: z.number().int().min(0).optional(),
  /** A page of the bucket is selected only with a total score of at least this (a blog post needs a strong signal). */
  minScore: z.number().min(0).max(2).optional(),
});

const Boost = z.object({
  /** Shown in a link's matched patterns and selection reason. */
  label: z.string().regex(/^[a-z][a-z0-9-]*$/, 'a boost label is lower-case kebab-case'),
  paths: z.array(PathGlob).default([]),
  /** Top-level slugs holding one of these words (case-insensitive). */
  slugTerms: z.array(z.string().min(1)).default([]),
  boost: z.number().min(0).max(1),
});

export const ProfileSchema = z
  .object({
    name: z.string().regex(/^[a-z0-9][a-z0-9-]*$/, 'a profile name is lower-case kebab-case'),
    description: z.string().default(''),
    /** The default query of the contextual score (a crawl's --query replaces it). */
    query: z.string().default(''),
    /** Total = contextual × weights.contextual + intrinsic/10 × weights.intrinsic (+ boosts). */
    weights: z
      .object({ contextual: z.number().min(0).max(1), intrinsic: z.number().min(0).max(1) })
      .refine((w) => Math.abs(w.contextual + w.intrinsic - 1) < 0.001, 'weights.contextual and weights.intrinsic must sum to 1')
      .default({ contextual: 0.6, intrinsic: 0.4 }),
    fields: z
      .object({ title: z.number(), description: z.number(), anchor: z.number(), url: z.number() })
      .superRefine((w, ctx) => {
        const problem = checkFieldWeights(w);
        if (problem) ctx.addIssue({ code: 'custom', message: problem });
      })
      .default(DEFAULT_FIELD_WEIGHTS),
    /** Links with a lower total score are not selected. */
    threshold: z.number().min(0).max(1).default(0.2),
    /** Boosts add up to at most this: a pattern alone cannot lift an irrelevant page over a relevant one. */
    maxBoost: z.number().min(0).max(0.5).default(0.15),
    /** Paths left out before scoring (login, admin, cart, policies). */
    exclude: z.array(PathGlob).default([]),
    /** Words that remove a link whose path or anchor holds them, before scoring: it can never be selected. */
    hardExclude: z.array(z.string().min(1)).default([]),
    /** Intent buckets, in tie-break order; a link falls in the first that matches, else `other`. */
    buckets: z.array(Bucket).default([]),
    boosts: z.array(Boost).default([]),
    /**
     * Buckets whose pages are selected before any other, in this order, each up to its `max` (the
     * pages that say what a company does: services, then About); the rest fill by score.
     */
    prefer: z.array(z.string()).default([]),
    /** Pages selected by the homepage pass, the homepage included. */
    cap: z.number().int().min(1).max(50).default(4),
    /** Scores within this are a tie (broken by bucket order, then shorter path, then URL). */
    epsilon: z.number().min(0).max(0.1).default(0.005),
  })
  .strict()
  .superRefine((p, ctx) => {
    for (const [i, name] of p.prefer.entries()) {
      if (!p.buckets.some((b) => b.name === name))
        ctx.addIssue({ code: 'custom', path: ['prefer', i], message: `no bucket is named "${name}": prefer lists bucket names` });
    }
  });

export type Profile = z.infer<typeof ProfileSchema>;
export type ProfileBucket = z.infer<typeof Bucket>;

/** Where the shipped profiles live: `profiles/` at the package root (from `shared/scoring/` or `dist/shared/scoring/`). */
export function profilesDir(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  return [join(here, '../../profiles'), join(here, '../../../profiles')].find((d) => existsSync(d)) ?? join(here, '../../profiles');
}

/** Checks a parsed profile; `source` names the file in the error. */
export function parseProfile(data: unknown, source: string): Profile {
  const result = ProfileSchema.safeParse(data);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const field = issue.path.length ? issue.path.join('.') : '(the whole profile)';
  throw new CrawlConfigError(`profile ${source}: ${field}: ${issue.message}`);
}

/** A shipped profile by name (`default`, `fire-protection`) or a profile file by path (`./my-profile.json`). */
export function loadProfile(nameOrPath: string): Profile {
  const isPath = /[/\\]|\.json$/i.test(nameOrPath);
  const file = isPath ? nameOrPath : join(profilesDir(), `${nameOrPath}.json`);
  if (!existsSync(file)) {
    throw new CrawlConfigError(
      isPath
        ? `profile ${file} does not exist: give the path of a profile JSON file`
        : `unknown profile "${nameOrPath}": use default or fire-protection, or the path of a profile file`,
    );
  }
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new CrawlConfigError(`profile ${file} is not valid JSON: ${(err as Error).message}`);
  }
  return parseProfile(data, file);
}

/** A path glob as an anchored, case-insensitive RegExp. */
export function pathGlob(glob: string): RegExp {
  return new RegExp(`^${glob.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`, 'i');
}
