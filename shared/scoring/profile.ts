// Scoring profiles: the pattern rules of link scoring and selection, as data files (profiles/*.json)
// checked by a schema. A bad profile fails with the file, the field and what to write.
import { existsSync, readFileSync } from 'node:fs';
import { z } from 'zod';
import { CrawlConfigError } from '../errors.js';
import { FieldSpecSchema, fieldSpec } from '../extract/field-specs.js';
import { checkFieldWeights, DEFAULT_FIELD_WEIGHTS } from './contextual.js';
import defaultProfile from '../../profiles/default.json' with { type: 'json' };
import fireProtection from '../../profiles/fire-protection.json' with { type: 'json' };

/** The shipped profiles, in the code (a Lambda bundle has no profiles/ folder); profiles/*.json are their source. */
const SHIPPED: Record<string, unknown> = { default: defaultProfile, 'fire-protection': fireProtection };

export function shippedProfiles(): string[] {
  return Object.keys(SHIPPED);
}

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
    /** Weights of the contextual score's fields (head title, meta description, anchor, URL tokens). */
    contextWeights: z
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
    /** Fields extracted from matching pages with CSS selectors (name → selector or { selector, attr, list, pages, type, match }). */
    fields: z.record(z.string(), FieldSpecSchema).default({}),
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

export type Profile = z.infer<typeof ProfileSchema> & {
  /** Where the profile came from (a shipped name or a file), for messages; not part of the file. */
  source?: string;
};
export type ProfileBucket = z.infer<typeof Bucket>;

/** Checks a parsed profile; `source` names the file in the error. */
export function parseProfile(data: unknown, source: string): Profile {
  // A profile loaded before (kept with a cloud run) carries where it came from: not part of the file.
  let plain = data;
  if (data !== null && typeof data === 'object' && !Array.isArray(data) && 'source' in data) {
    const { source: _from, ...rest } = data as Record<string, unknown>;
    plain = rest;
  }
  const result = ProfileSchema.safeParse(plain);
  if (result.success) {
    // Selectors are checked now, at start-up: a bad one names the file and the field.
    for (const [name, spec] of Object.entries(result.data.fields)) fieldSpec(name, spec, `profile ${source}, fields.${name}`);
    return { ...result.data, source };
  }
  const issue = result.error.issues[0]!;
  const field = issue.path.length ? issue.path.join('.') : '(the whole profile)';
  throw new CrawlConfigError(`profile ${source}: ${field}: ${issue.message}`);
}

/** A shipped profile by name (`default`, `fire-protection`) or a profile file by path (`./my-profile.json`). */
export function loadProfile(nameOrPath: string): Profile {
  const isPath = /[/\\]|\.json$/i.test(nameOrPath);
  if (!isPath) {
    const shipped = SHIPPED[nameOrPath];
    if (shipped === undefined)
      throw new CrawlConfigError(`unknown profile "${nameOrPath}": use ${shippedProfiles().join(' or ')}, or the path of a profile JSON file`);
    return parseProfile(shipped, nameOrPath);
  }
  const file = nameOrPath;
  if (!existsSync(file)) throw new CrawlConfigError(`profile ${file} does not exist: give the path of a profile JSON file`);
  let data: unknown;
  const text = readFileSync(file, 'utf8');
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw new CrawlConfigError(
      `profile ${file} is not valid JSON${jsonErrorPlace(text, err as Error)}: ${(err as Error).message.replace(/ in JSON at position \d+.*$/s, '')}`,
    );
  }
  return parseProfile(data, file);
}

/** " at line L, column C" of a JSON.parse error (Node reports a character offset), or nothing. */
export function jsonErrorPlace(text: string, err: Error): string {
  const m = /position (\d+)/.exec(err.message) ?? /line (\d+) column (\d+)/.exec(err.message);
  if (!m) return '';
  if (m.length === 3) return ` at line ${m[1]}, column ${m[2]}`;
  const before = text.slice(0, Number(m[1]));
  const line = before.split('\n').length;
  return ` at line ${line}, column ${before.length - before.lastIndexOf('\n')}`;
}

/** A path glob as an anchored, case-insensitive RegExp. */
export function pathGlob(glob: string): RegExp {
  return new RegExp(`^${glob.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`, 'i');
}

/** A URL's path without trailing slashes (`/` for the root). */
export function pathOf(url: string): string {
  const p = new URL(url).pathname.replace(/\/+$/, '');
  return p === '' ? '/' : p;
}

/** A top-level path's slug holds one of the words (case-insensitive, as a word of the slug). */
function slugHas(path: string, terms: string[]): boolean {
  const segments = path.split('/').filter(Boolean);
  if (segments.length !== 1 || !terms.length) return false;
  const words = segments[0]!.toLowerCase().split(/[^a-z0-9]+/);
  return terms.some((t) => words.includes(t.toLowerCase()));
}

/** A profile's pattern rules, compiled once: exclusions, the bucket of a link, its capped boosts. */
export interface LinkPatterns {
  /** Why a link is removed before scoring: a hard exclusion in its path or anchor, or an excluded path. */
  exclusion(path: string, anchor: string): 'hard-excluded' | 'excluded' | undefined;
  /** The first bucket that matches, else `other`. */
  bucket(path: string, anchor: string): string;
  /** The boosts whose patterns match, their sum capped at the profile's maxBoost. */
  boost(path: string): { boost: number; labels: string[] };
}

const compiled = new WeakMap<Profile, LinkPatterns>();

export function linkPatterns(p: Profile): LinkPatterns {
  let c = compiled.get(p);
  if (c) return c;
  const exclude = p.exclude.map(pathGlob);
  const buckets = p.buckets.map((b) => ({ ...b, re: b.paths.map(pathGlob) }));
  const boosts = p.boosts.map((b) => ({ ...b, re: b.paths.map(pathGlob) }));
  const hard = p.hardExclude.map((w) => w.toLowerCase());
  c = {
    exclusion(path, anchor) {
      const words = `${path} ${anchor}`.toLowerCase();
      if (hard.some((w) => words.includes(w))) return 'hard-excluded';
      return exclude.some((r) => r.test(path)) ? 'excluded' : undefined;
    },
    bucket(path, anchor) {
      const a = anchor.toLowerCase();
      for (const b of buckets) {
        if (b.re.some((r) => r.test(path)) || slugHas(path, b.slugTerms) || b.anchors.some((w) => a.includes(w.toLowerCase()))) return b.name;
      }
      return 'other';
    },
    boost(path) {
      const labels: string[] = [];
      let boost = 0;
      for (const b of boosts) {
        if (b.re.some((r) => r.test(path)) || slugHas(path, b.slugTerms)) {
          labels.push(b.label);
          boost += b.boost;
        }
      }
      return { boost: Math.min(p.maxBoost, boost), labels };
    },
  };
  compiled.set(p, c);
  return c;
}
