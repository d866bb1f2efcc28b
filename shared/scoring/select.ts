// Scoring a page's links with a profile, and the selection: the few pages that explain what a site
// does (the homepage pass), best first, stable across runs.
import { canonicalize } from '../url/canonical.js';
import { contextualScores } from './contextual.js';
import { intrinsicScore, type LinkFacts } from './intrinsic.js';
import { pathGlob, type Profile } from './profile.js';

/** A link to score: its facts, and the target's head when a preview fetched it. */
export interface Candidate extends LinkFacts {
  preview?: { title?: string; description?: string };
}

export interface ScoredLink {
  url: string;
  path: string;
  anchor: string;
  section: LinkFacts['section'];
  bucket: string;
  intrinsic: number;
  contextual: number;
  boost: number;
  total: number;
  /** Boost labels and query terms (stems) the link matched. */
  matched: string[];
  /** Why the link cannot be selected, when it cannot (`external`, `excluded`, `hard-excluded`, `below-threshold`). */
  excluded?: 'external' | 'excluded' | 'hard-excluded' | 'below-threshold';
  /** Set on selected links: its bucket, boosts and `high-bm25` when the contextual score is 0.5 or more. */
  reason?: string;
}

export interface Selection {
  selected: ScoredLink[];
  links: ScoredLink[];
  counts: { candidates: number; filtered: number; hardExcluded: number; aboveThreshold: number; selected: number; skippedByRule: number };
}

const compiled = new WeakMap<Profile, { exclude: RegExp[]; buckets: Array<{ paths: RegExp[] }>; boosts: Array<{ paths: RegExp[] }> }>();
function patterns(p: Profile) {
  let c = compiled.get(p);
  if (!c) {
    c = {
      exclude: p.exclude.map(pathGlob),
      buckets: p.buckets.map((b) => ({ paths: b.paths.map(pathGlob) })),
      boosts: p.boosts.map((b) => ({ paths: b.paths.map(pathGlob) })),
    };
    compiled.set(p, c);
  }
  return c;
}

/** A top-level path's slug holds one of the words (case-insensitive, as a word of the slug). */
function slugHas(path: string, terms: string[]): boolean {
  const segments = path.split('/').filter(Boolean);
  if (segments.length !== 1 || !terms.length) return false;
  const words = segments[0]!.toLowerCase().split(/[^a-z0-9]+/);
  return terms.some((t) => words.includes(t.toLowerCase()));
}

const pathOf = (url: string) => {
  const p = new URL(url).pathname.replace(/\/+$/, '');
  return p === '' ? '/' : p;
};

/** Why a link is removed before scoring: a hard exclusion in its path or anchor, or an excluded path. */
function exclusion(profile: Profile, exclude: RegExp[], path: string, anchor: string): 'hard-excluded' | 'excluded' | undefined {
  const words = `${path} ${anchor}`.toLowerCase();
  if (profile.hardExclude.some((w) => words.includes(w.toLowerCase()))) return 'hard-excluded';
  return exclude.some((r) => r.test(path)) ? 'excluded' : undefined;
}

/** Which bucket of the profile a link falls in (the first that matches), else `other`. */
export function bucketOf(profile: Profile, path: string, anchor: string): string {
  const c = patterns(profile);
  const a = anchor.toLowerCase();
  for (const [i, b] of profile.buckets.entries()) {
    if (c.buckets[i]!.paths.some((r) => r.test(path)) || slugHas(path, b.slugTerms) || b.anchors.some((w) => a.includes(w.toLowerCase()))) return b.name;
  }
  return 'other';
}

/**
 * Scores a page's links with a profile: exclusions first (external links are scored for
 * diagnostics, never selected; excluded and hard-excluded ones are not scored), then intrinsic and
 * contextual scores, capped pattern boosts and the total. One entry per canonical URL (its best link).
 */
export function scoreLinks(pageUrl: string, candidates: Candidate[], profile: Profile, query = profile.query): ScoredLink[] {
  const c = patterns(profile);
  const page = canonicalize(pageUrl) ?? pageUrl;
  const best = new Map<string, { link: Candidate; intrinsic: ReturnType<typeof intrinsicScore> }>();
  for (const link of candidates) {
    const url = canonicalize(link.url);
    if (!url || url === page) continue;
    const intrinsic = intrinsicScore({ ...link, url });
    const seen = best.get(url);
    if (!seen || intrinsic.score > seen.intrinsic.score) best.set(url, { link: { ...link, url }, intrinsic });
  }
  // Exclusions come before scoring: excluded pages take no part in the BM25 statistics either
  // (a service-area tree stuffed with the query's words would otherwise make them common).
  const entries = [...best.values()].map((e) => ({ ...e, path: pathOf(e.link.url), out: exclusion(profile, c.exclude, pathOf(e.link.url), e.link.anchor) }));
  const scoredEntries = entries.filter((e) => !e.out);
  const context = new Map(
    contextualScores(
      query,
      scoredEntries.map(({ link }) => ({ title: link.preview?.title, description: link.preview?.description, anchor: link.anchor, url: link.url })),
      profile.fields,
    ).map((score, i) => [scoredEntries[i]!.link.url, score]),
  );
  return entries.map(({ link, intrinsic, path, out }) => {
    const base = { url: link.url, path, anchor: link.anchor, section: link.section, bucket: bucketOf(profile, path, link.anchor), intrinsic: intrinsic.score };
    if (out) return { ...base, contextual: 0, boost: 0, total: 0, matched: [], excluded: out };
    const labels: string[] = [];
    let boost = 0;
    profile.boosts.forEach((b, j) => {
      if (c.boosts[j]!.paths.some((r) => r.test(path)) || slugHas(path, b.slugTerms)) {
        labels.push(b.label);
        boost += b.boost;
      }
    });
    boost = Math.min(profile.maxBoost, boost);
    const ctx = context.get(link.url)!;
    const total = profile.weights.contextual * ctx.score + (profile.weights.intrinsic * intrinsic.score) / 10 + boost;
    const round = (n: number) => Math.round(n * 10_000) / 10_000;
    const scored: ScoredLink = { ...base, contextual: ctx.score, boost: round(boost), total: round(total), matched: [...labels, ...ctx.matched] };
    if (!link.sameHost) scored.excluded = 'external';
    else if (total < profile.threshold) scored.excluded = 'below-threshold';
    return scored;
  });
}

/**
 * The homepage pass's selection: the homepage first, then the best links of the preferred buckets
 * (`prefer`), then the rest by total score (within `epsilon` a tie, broken by bucket order, then
 * the shorter path, then the URL), each bucket within its `max` and `minScore`, up to the
 * profile's cap. The same links always give the same selection.
 */
export function selectPages(homeUrl: string, links: ScoredLink[], profile: Profile): Selection {
  const order = new Map(profile.buckets.map((b, i) => [b.name, i]));
  const rank = (l: ScoredLink) => order.get(l.bucket) ?? profile.buckets.length;
  const tier = (l: ScoredLink) => Math.round(l.total / Math.max(profile.epsilon, 1e-9));
  const eligible = links
    .filter((l) => !l.excluded)
    .sort((a, b) => tier(b) - tier(a) || rank(a) - rank(b) || a.path.length - b.path.length || (a.url < b.url ? -1 : a.url > b.url ? 1 : 0));
  const home = canonicalize(homeUrl) ?? homeUrl;
  const selected: ScoredLink[] = [
    { url: home, path: '/', anchor: '', section: 'body', bucket: 'home', intrinsic: 10, contextual: 0, boost: 0, total: 1, matched: [], reason: 'homepage' },
  ];
  const taken = new Map<string, number>();
  const chosen = new Set<string>();
  let skippedByRule = 0;
  const take = (l: ScoredLink): boolean => {
    if (selected.length >= profile.cap || chosen.has(l.url)) return false;
    const bucket = profile.buckets.find((b) => b.name === l.bucket);
    if ((bucket?.max !== undefined && (taken.get(l.bucket) ?? 0) >= bucket.max) || (bucket?.minScore !== undefined && l.total < bucket.minScore)) {
      skippedByRule++;
      return false;
    }
    taken.set(l.bucket, (taken.get(l.bucket) ?? 0) + 1);
    chosen.add(l.url);
    const boosts = l.matched.filter((m) => profile.boosts.some((b) => b.label === m));
    selected.push({ ...l, reason: [l.bucket, ...boosts, ...(l.contextual >= 0.5 ? ['high-bm25'] : [])].join('+') });
    return true;
  };
  // The preferred buckets first (services, then About), each up to its max; then everything else by score.
  for (const name of profile.prefer) {
    const max = profile.buckets.find((b) => b.name === name)?.max ?? 1;
    for (const l of eligible.filter((x) => x.bucket === name).slice(0, max)) take(l);
  }
  for (const l of eligible) {
    if (selected.length >= profile.cap) break;
    if (!chosen.has(l.url)) take(l);
  }
  return {
    selected,
    links,
    counts: {
      candidates: links.length,
      filtered: links.filter((l) => l.excluded === 'excluded' || l.excluded === 'external').length,
      hardExcluded: links.filter((l) => l.excluded === 'hard-excluded').length,
      aboveThreshold: eligible.length,
      selected: selected.length,
      skippedByRule,
    },
  };
}
