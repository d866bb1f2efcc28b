// Focused crawling: a crawl's frontier priority from a scoring profile and a query. Each link is
// scored alone as it is found (there is no candidate set to normalise against, unlike the homepage
// pass): the contextual part is the query's coverage of the link's anchor text, surrounding text
// and URL tokens, each term's hits saturated as in BM25 with fixed field lengths; the intrinsic
// score and the profile's capped boosts complete the total, as in `scoreLinks`.
import type { PriorityFn, PriorityInput } from '../frontier/priority.js';
import { termsOf, urlText } from './contextual.js';
import { intrinsicScore } from './intrinsic.js';
import { linkPatterns, pathOf, type Profile } from './profile.js';

type FocusField = 'anchor' | 'context' | 'url' | 'title' | 'description';

/** Without a preview the head title and description are unknown: the link's own text stands in. */
export const FOCUS_WEIGHTS = { anchor: 0.45, context: 0.35, url: 0.2 } as const;
/** Typical lengths in terms (the BM25 length normalisation's average). */
const AVERAGE_LENGTH: Record<FocusField, number> = { anchor: 4, context: 30, url: 5, title: 8, description: 25 };
const K1 = 1.2;
const B = 0.75;

/** How well one field covers the query (0–1): each term's BM25 saturation tf/(tf + k1·norm), averaged over the query's terms. */
function coverage(query: string[], terms: string[], field: FocusField): number {
  if (!query.length || !terms.length) return 0;
  const norm = 1 - B + (B * terms.length) / AVERAGE_LENGTH[field];
  let sum = 0;
  for (const q of query) {
    let tf = 0;
    for (const t of terms) if (t === q) tf++;
    if (tf) sum += tf / (tf + K1 * norm);
  }
  return sum / query.length;
}

export interface FocusScore {
  total: number;
  contextual: number;
  intrinsic: number;
  boost: number;
  /** `hard-excluded` or `excluded` when the profile removes the link before scoring. */
  excluded?: 'hard-excluded' | 'excluded';
}

/** The total score of one link for a focused crawl (0 – 1 + the profile's max boost). */
export function focusScore(profile: Profile, queryTerms: string[], link: PriorityInput): FocusScore {
  const path = pathOf(link.url);
  const anchor = link.anchor ?? '';
  const patterns = linkPatterns(profile);
  const excluded = patterns.exclusion(path, anchor);
  const intrinsic = intrinsicScore({
    url: link.url,
    // Sitemap, feed and seed URLs have no anchor: their slug stands in rather than an "empty anchor" penalty.
    anchor: link.anchor ?? urlText(link.url).replace(/[-_/]+/g, ' '),
    section: link.section ?? 'body',
    sameHost: link.sameHost ?? true,
  }).score;
  if (excluded) return { total: 0, contextual: 0, intrinsic, boost: 0, excluded };
  const cover = (f: FocusField, text: string) => coverage(queryTerms, termsOf(text), f);
  const anchorCover = cover('anchor', anchor);
  const contextCover = cover('context', link.context ?? '');
  const urlCover = cover('url', urlText(link.url));
  let contextual: number;
  if (link.title !== undefined || link.description !== undefined) {
    // With a preview, the profile's field weights: the head title and description weigh most; the anchor field takes the better of anchor and context.
    const w = profile.contextWeights;
    contextual =
      w.title * cover('title', link.title ?? '') +
      w.description * cover('description', link.description ?? '') +
      w.anchor * Math.max(anchorCover, contextCover) +
      w.url * urlCover;
  } else contextual = FOCUS_WEIGHTS.anchor * anchorCover + FOCUS_WEIGHTS.context * contextCover + FOCUS_WEIGHTS.url * urlCover;
  const boost = patterns.boost(path).boost;
  const total = profile.weights.contextual * contextual + (profile.weights.intrinsic * intrinsic) / 10 + boost;
  return { total, contextual, intrinsic, boost };
}

/**
 * The frontier priority of a focused crawl: the link's total score, best first. A link with no
 * signal for the topic (no query word in its anchor, surrounding text or URL, no profile pattern)
 * goes after every link with one (−1), and a link the profile excludes after those (−2); neither is
 * dropped. Structural URLs (seeds, sitemaps, redirect targets, canonicals) go first (+1) whatever their words; a
 * hop of depth costs 0.01 and an inlink adds 0.01 (up to 10), small enough that the score decides.
 *
 * @example focusedPriority(loadProfile('fire-protection'))({ url: 'https://a.test/services/sprinkler-inspection', depth: 1, inlinks: 0, fresh: false, anchor: 'Sprinkler inspection' })
 */
export function focusedPriority(profile: Profile, query = profile.query): PriorityFn {
  const queryTerms = [...new Set(termsOf(query))];
  return (input) => {
    const s = focusScore(profile, queryTerms, input);
    const tier = input.structural ? 1 : s.excluded ? -2 : s.contextual > 0 || s.boost > 0 ? 0 : -1;
    const priority = s.total + tier - 0.01 * input.depth + 0.01 * Math.min(10, input.inlinks);
    return Math.round(priority * 10_000) / 10_000;
  };
}
