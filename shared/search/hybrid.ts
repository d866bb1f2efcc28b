import type { Embedder } from '../enrich/providers.js';
import { stopwordSet, words } from '../enrich/text.js';
import type { EnrichStore, HitDetails, SearchFilters, VectorIndex } from '../store/ports/index.js';

/** Reciprocal rank fusion's constant (Cormack et al. 2009): 60 keeps one list's top ranks from drowning the other. */
export const RRF_K = 60;
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
}

/** Why a page matched: which query terms it holds, its rank in each list, and the fused score. */
export interface MatchReason {
  terms: string[];
  textRank?: number;
  bm25?: number;
  vectorRank?: number;
  /** Cosine similarity of the query and the page (1 − distance). */
  similarity?: number;
  fused: number;
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

/** Reciprocal rank fusion of ranked id lists (rank 1 first). */
/**
 * Vector matches below this cosine similarity are dropped. Chosen on the search fixture with the
 * local provider (test/fixtures/search/corpus.ts): nonsense queries ("xyzzy", "lorem ipsum dolor",
 * …) reach at most 0.13 against any page, while nine in ten known answers score above 0.21. Other
 * providers' scales differ: pass `minSimilarity` (or `--min-similarity`) for them.
 */
export const MIN_SIMILARITY = 0.15;

export function fuseRanks(lists: string[][], k = RRF_K): Map<string, number> {
  const fused = new Map<string, number>();
  for (const list of lists) list.forEach((id, i) => fused.set(id, (fused.get(id) ?? 0) + 1 / (k + i + 1)));
  return fused;
}

/**
 * Hybrid search: BM25 over the full text and cosine similarity over the vectors, fused by
 * reciprocal rank, filtered by tag, domain, language and date. Each hit carries its summary, tags,
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
  // The two lists at once: where reader threads answer them (trawl serve), each takes one.
  const [text, nearest] = await Promise.all([
    mode === 'vector' ? [] : deps.enrich.textSearch(terms, filters, depth),
    (async () => {
      if (mode === 'text' || !request.q.trim()) return [];
      const [vector] = await deps.embedder.embed([request.q], 'query');
      const floor = request.minSimilarity ?? MIN_SIMILARITY;
      // Only matches of some strength: a query of nonsense words has nearest pages too.
      return (await deps.vectors.query(vector!, deps.embedder.stamp.model, depth, filters)).filter(
        (n) => Number.isFinite(n.distance) && 1 - n.distance >= floor,
      );
    })(),
  ]);
  const textIds = text.map((t) => t.urlId);
  const vectorIds = nearest.map((n) => n.id);
  const fused = fuseRanks([textIds, vectorIds]);
  const order = [...fused.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).slice(0, limit);
  const ids = order.map(([id]) => id);
  const details = new Map((await deps.enrich.hitDetails(ids, terms)).map((d) => [d.urlId, d]));
  const hits: SearchHit[] = [];
  for (const [id, score] of order) {
    const d = details.get(id);
    if (!d) continue;
    const { matched, ...shown } = d;
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
