// Scoring a page's links with a profile, and the selection: the few pages that explain what a site
// does (the homepage pass), best first, stable across runs.
import { canonicalize } from '../url/canonical.js';
import { contextualScores } from './contextual.js';
import { intrinsicScore, type LinkFacts } from './intrinsic.js';
import { linkPatterns, pathOf, type Profile } from './profile.js';

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

/** Which bucket of the profile a link falls in (the first that matches), else `other`. */
export function bucketOf(profile: Profile, path: string, anchor: string): string {
  return linkPatterns(profile).bucket(path, anchor);
}

/**
 * Scores a page's links with a profile: exclusions first (external links are scored for
 * diagnostics, never selected; excluded and hard-excluded ones are not scored), then intrinsic and
 * contextual scores, capped pattern boosts and the total. One entry per canonical URL (its best link).
 */
export function scoreLinks(pageUrl: string, candidates: Candidate[], profile: Profile, query = profile.query): ScoredLink[] {
  const c = linkPatterns(profile);
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
  const entries = [...best.values()].map((e) => ({ ...e, path: pathOf(e.link.url), out: c.exclusion(pathOf(e.link.url), e.link.anchor) }));
  const scoredEntries = entries.filter((e) => !e.out);
  const context = new Map(
    contextualScores(
      query,
      scoredEntries.map(({ link }) => ({ title: link.preview?.title, description: link.preview?.description, anchor: link.anchor, url: link.url })),
      profile.contextWeights,
    ).map((score, i) => [scoredEntries[i]!.link.url, score]),
  );
  return entries.map(({ link, intrinsic, path, out }) => {
    const base = { url: link.url, path, anchor: link.anchor, section: link.section, bucket: c.bucket(path, link.anchor), intrinsic: intrinsic.score };
    if (out) return { ...base, contextual: 0, boost: 0, total: 0, matched: [], excluded: out };
    const { boost, labels } = c.boost(path);
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

/** A candidate's head (title, description): fetched by the homepage pass, read from the store after a crawl. */
export type HeadLookup = (url: string) => Promise<{ title?: string; description?: string } | undefined>;

/**
 * The selection with previews: scores the links without heads, looks up the heads of the best
 * `previews` candidates (in score order, one at a time: a live lookup is a polite request), then
 * scores again with them and selects.
 */
export async function selectWithPreviews(
  home: string,
  candidates: Candidate[],
  { profile, query, previews, head }: { profile: Profile; query: string; previews: number; head: HeadLookup | undefined },
): Promise<Selection> {
  if (head && previews > 0) {
    const best = scoreLinks(home, candidates, profile, query)
      .filter((l) => !l.excluded || l.excluded === 'below-threshold')
      .sort((a, b) => b.total - a.total || (a.url < b.url ? -1 : 1))
      .slice(0, previews);
    const heads = new Map<string, { title?: string; description?: string }>();
    for (const l of best) {
      const h = await head(l.url);
      if (h) heads.set(l.url, h);
    }
    for (const c of candidates) {
      const preview = heads.get(canonicalize(c.url) ?? c.url);
      if (preview) c.preview = preview;
    }
  }
  return selectPages(home, scoreLinks(home, candidates, profile, query), profile);
}
