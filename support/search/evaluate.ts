import { QUERIES } from './corpus.js';
import { hybridSearch, type SearchDeps, type SearchMode } from '../../shared/search/hybrid.js';

export interface ModeScore {
  mode: SearchMode;
  recallAt5: number;
  mrr: number;
  /** Per kind of query. */
  keywordRecallAt5: number;
  paraphraseRecallAt5: number;
  misses: string[];
}

/** Runs every known-answer query in one mode; recall@5 counts a query when its best answer is in the top 5. */
export async function evaluate(deps: SearchDeps, mode: SearchMode, slugOf: (url: string) => string, textWeight?: number): Promise<ModeScore> {
  let found = 0;
  let rr = 0;
  const byKind = { keyword: [0, 0], paraphrase: [0, 0] };
  const misses: string[] = [];
  for (const q of QUERIES) {
    const { hits } = await hybridSearch(deps, { q: q.q, mode, limit: 10, textWeight });
    const rank = hits.findIndex((h) => q.answers.includes(slugOf(h.url))) + 1;
    byKind[q.kind][1]!++;
    if (rank > 0 && rank <= 5) {
      found++;
      byKind[q.kind][0]!++;
    } else
      misses.push(
        `${q.q} → ${
          hits
            .slice(0, 3)
            .map((h) => slugOf(h.url))
            .join(', ') || 'nothing'
        }`,
      );
    if (rank > 0) rr += 1 / rank;
  }
  return {
    mode,
    recallAt5: found / QUERIES.length,
    mrr: rr / QUERIES.length,
    keywordRecallAt5: byKind.keyword[0]! / byKind.keyword[1]!,
    paraphraseRecallAt5: byKind.paraphrase[0]! / byKind.paraphrase[1]!,
    misses,
  };
}
