import type { Embedder } from '../enrich/providers.js';
import { ProviderError, UsageError } from '../errors.js';
import { stopwordSet, words } from '../enrich/text.js';
import type { EnrichStore, HitDetails, SearchFilters, VectorIndex } from '../ports/index.js';

/**
 * The full-text list's weight in the fused score; the vector list has the rest. Chosen on two
 * question sets (`bench:search` prints both): the known-answer fixture (30 queries: MRR 0.950 from
 * 0.4 to 0.7, 0.967 at 0.8; 0.950 with reciprocal rank fusion) and questions on real articles
 * (`support/search/real-site.ts`: 0.90 at 0.4, 0.98 at 0.6, 1.0 from 0.7; 0.88 with reciprocal rank
 * fusion). The lowest weight where both are at their best but for one query, so that the vectors
 * of a provider that embeds meaning (the local one hashes words) keep a third of the say.
 */
export const TEXT_WEIGHT = 0.7;
/** How deep each list is read before fusion. */
const DEPTH = 50;

export type SearchMode = 'hybrid' | 'text' | 'vector';

export interface SearchDeps {
  enrich: EnrichStore;
  vectors: VectorIndex;
  embedder: Embedder;
}

export interface SearchRequest {
  q: string;
  filters?: SearchFilters;
  limit?: number;
  mode?: SearchMode;
  /**
   * Vector matches below this cosine similarity are not hits.
   * @default MIN_SIMILARITY (0.15, chosen for the local provider)
   */
  minSimilarity?: number;
  /**
   * The full-text list's weight in the fused score, from 0 to 1; the vector list has the rest.
   * @default TEXT_WEIGHT (0.7)
   */
  textWeight?: number;
}

/** Why a page matched: which query terms it holds, its rank in each list, and the fused score. */
export interface MatchReason {
  terms: string[];
  textRank?: number;
  bm25?: number;
  vectorRank?: number;
  /** Cosine similarity of the query and the page (1 − distance). */
  similarity?: number;
  /** The fused score, lowered for a page that reads as a listing (`listingFactor`). */
  fused: number;
  /** How much the page reads as a listing (0–1), when that lowered its score. */
  listing?: number;
}

export interface SearchHit extends Omit<HitDetails, 'matched'> {
  rank: number;
  why: MatchReason;
}

export interface SearchResult {
  query: string;
  mode: SearchMode;
  hits: SearchHit[];
  /** Pages each list returned before fusion. */
  textMatches: number;
  vectorMatches: number;
  tookMs: number;
}

/** The words of a query that carry meaning; all of them when every word is a stopword ("the who"). */
export function queryTerms(q: string): string[] {
  const all = [...new Set(words(q).filter((w) => w.length > 0))];
  const stop = stopwordSet('en');
  const kept = all.filter((w) => !stop.has(w));
  return kept.length ? kept : all;
}

/**
 * Vector matches below this cosine similarity are dropped. Chosen on the search fixture with the
 * local provider (support/search/corpus.ts): nonsense queries ("xyzzy", "lorem ipsum dolor",
 * …) reach at most 0.13 against any page, while nine in ten known answers score above 0.21. Other
 * providers' scales differ: pass `minSimilarity` (or `--min-similarity`) for them.
 */
export const MIN_SIMILARITY = 0.15;

/**
 * Listings (home, archive, tag and category pages) in search. A listing holds the titles and first
 * lines of the articles it lists, so it matches their queries; the articles answer them. Two
 * rules, on how much a page reads as a listing (`listingShare`, measured on the real pages of the
 * modern-eval corpus: 3 % of articles reach 0.3 and none 0.5; a third of its listing and
 * collection pages pass 0.5):
 * - a page from `below` up ranks below every hit it links to from its body;
 * - a page past `from` has its fused score lowered, to `1 - demotion` of it at `full`.
 */
export const LISTING_RULES = { below: 0.2, from: 0.5, full: 0.7, demotion: 0.5 };

/** What a page's fused score is multiplied by for how much it reads as a listing. */
export function listingFactor(listing: number | undefined): number {
  const { from, full, demotion } = LISTING_RULES;
  if (listing === undefined || listing <= from) return 1;
  return 1 - demotion * Math.min(1, (listing - from) / (full - from));
}

/**
 * Candidates scored for listings: each lowered by `listingFactor`, then each listing put just below
 * the lowest-scored hit it links to (`HitDetails.linkedFrom` says who links to a hit), best first.
 */
export function rankListings(candidates: Array<[string, number]>, details: Map<string, Pick<HitDetails, 'listing' | 'linkedFrom'>>): Array<[string, number]> {
  const scored = new Map(candidates.map(([id, score]) => [id, score * listingFactor(details.get(id)?.listing)]));
  const listings = candidates.filter(([id]) => (details.get(id)?.listing ?? 0) >= LISTING_RULES.below).map(([id]) => id);
  for (const listing of listings) {
    let floor = Infinity;
    for (const [id] of candidates) if (id !== listing && details.get(id)?.linkedFrom?.includes(listing)) floor = Math.min(floor, scored.get(id)!);
    if (floor !== Infinity && scored.get(listing)! >= floor) scored.set(listing, floor * (1 - 1e-6));
  }
  return [...scored].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
}

/**
 * The two lists fused by their match strengths (a convex combination, Bruch et al. 2023): each
 * page's BM25 over the list's best, weighted `textWeight`, plus its similarity above the floor
 * over the best's, weighted the rest. A page strong in one list keeps that strength: with
 * reciprocal rank fusion, an answer that only the full text found fell below pages both lists
 * held at middling ranks.
 */
export function fuseScores(
  text: Array<{ urlId: string; score: number }>,
  nearest: Array<{ id: string; similarity: number }>,
  floor: number,
  textWeight = TEXT_WEIGHT,
): Map<string, number> {
  const fused = new Map<string, number>();
  const best = Math.max(0, ...text.map((t) => t.score));
  if (best > 0) for (const t of text) fused.set(t.urlId, (fused.get(t.urlId) ?? 0) + (textWeight * Math.max(0, t.score)) / best);
  const top = Math.max(floor, ...nearest.map((n) => n.similarity));
  if (top > floor) for (const n of nearest) fused.set(n.id, (fused.get(n.id) ?? 0) + ((1 - textWeight) * Math.max(0, n.similarity - floor)) / (top - floor));
  // A list with no strength to compare (one page, or every score equal to the floor) still names its pages.
  for (const t of text) if (!fused.has(t.urlId)) fused.set(t.urlId, 0);
  for (const n of nearest) if (!fused.has(n.id)) fused.set(n.id, 0);
  return fused;
}

/**
 * Hybrid search: BM25 over the full text and cosine similarity over the vectors, fused by their
 * match strengths (`fuseScores`), listings ranked below what they list (`rankListings`), filtered by tag, domain, language and date. Each hit carries its summary, tags,
 * best inlink anchors and why it matched.
 *
 * @example await hybridSearch(deps, { q: 'compost heap', filters: { tags: ['#gardening'] }, limit: 5 })
 */
export async function hybridSearch(deps: SearchDeps, request: SearchRequest): Promise<SearchResult> {
  const started = performance.now();
  const mode = request.mode ?? 'hybrid';
  const filters = request.filters ?? {};
  const limit = request.limit ?? 10;
  const terms = queryTerms(request.q);
  const depth = Math.max(DEPTH, limit);
  const textWeight = request.textWeight ?? TEXT_WEIGHT;
  if (!(textWeight >= 0 && textWeight <= 1))
    throw new UsageError(`textWeight is ${request.textWeight}: it must be a number from 0 (vectors alone) to 1 (full text alone)`);
  // The two lists at once: where reader threads answer them (trawl serve), each takes one.
  const floor = request.minSimilarity ?? MIN_SIMILARITY;
  const [text, nearest] = await Promise.all([
    mode === 'vector' ? [] : deps.enrich.textSearch(terms, filters, depth),
    (async () => {
      if (mode === 'text' || !request.q.trim()) return [];
      const [vector] = await deps.embedder.embed([request.q], 'query');
      // Only matches of some strength: a query of nonsense words has nearest pages too.
      return (await deps.vectors.query(vector!, deps.embedder.stamp.model, depth, filters)).filter(
        (n) => Number.isFinite(n.distance) && 1 - n.distance >= floor,
      );
    })(),
  ]);
  const textIds = text.map((t) => t.urlId);
  const vectorIds = nearest.map((n) => n.id);
  const fused = fuseScores(
    text,
    nearest.map((n) => ({ id: n.id, similarity: 1 - n.distance })),
    floor,
    textWeight,
  );
  const byScore = (a: [string, number], b: [string, number]) => b[1] - a[1] || a[0].localeCompare(b[0]);
  // Twice the page's worth of candidates: a listing demoted by half can only leave the page, and
  // what it leaves room for comes from below it.
  const pool = [...fused.entries()].sort(byScore).slice(0, 2 * limit);
  const details = new Map(
    (
      await deps.enrich.hitDetails(
        pool.map(([id]) => id),
        terms,
      )
    ).map((d) => [d.urlId, d]),
  );
  const order = rankListings(
    pool.filter(([id]) => details.has(id)),
    details,
  ).slice(0, limit);
  const hits: SearchHit[] = [];
  for (const [id, score] of order) {
    const d = details.get(id)!;
    const { matched, listing, linkedFrom: _linkedFrom, ...shown } = d;
    const ti = textIds.indexOf(id);
    const vi = vectorIds.indexOf(id);
    hits.push({
      ...shown,
      rank: hits.length + 1,
      why: {
        terms: matched,
        textRank: ti >= 0 ? ti + 1 : undefined,
        bm25: ti >= 0 ? Number(text[ti]!.score.toFixed(4)) : undefined,
        vectorRank: vi >= 0 ? vi + 1 : undefined,
        similarity: vi >= 0 ? Number((1 - nearest[vi]!.distance).toFixed(4)) : undefined,
        fused: Number(score.toFixed(6)),
        ...(listing !== undefined && listing >= LISTING_RULES.below ? { listing: Number(listing.toFixed(3)) } : {}),
      },
    });
  }
  return {
    query: request.q,
    mode,
    hits,
    textMatches: text.length,
    vectorMatches: nearest.length,
    tookMs: Math.round((performance.now() - started) * 100) / 100,
  };
}

/**
 * A query's best hits for an answer that must come (Firecrawl's search): hybrid, or full text alone
 * with a warning naming the failure when the embedding model fails.
 */
export async function indexSearch(deps: SearchDeps, q: string, limit: number): Promise<{ hits: SearchHit[]; warning?: string }> {
  try {
    return { hits: (await hybridSearch(deps, { q, limit })).hits };
  } catch (err) {
    if (!(err instanceof ProviderError)) throw err;
    const text = await hybridSearch(deps, { q, limit, mode: 'text' });
    return { hits: text.hits, warning: `full-text results only: the embedding model failed (${err.message})` };
  }
}
