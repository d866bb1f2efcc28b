// The contextual score of links (0–1): BM25 between a query and each link's fields — the target's
// head title and meta description (from a preview), the anchor text and the URL's tokens — with
// statistics over the candidate set, each field normalised by its best candidate, then weighted.
import { stem, stopwordSet, words } from '../enrich/text.js';

export type ContextField = 'title' | 'description' | 'anchor' | 'url';

/** Field weights: they must sum to 1. */
export type FieldWeights = Record<ContextField, number>;

export const DEFAULT_FIELD_WEIGHTS: FieldWeights = { title: 0.5, description: 0.25, anchor: 0.2, url: 0.05 };

export type LinkFields = Partial<Record<ContextField, string>>;

export interface ContextualScore {
  score: number;
  /** Each field's normalised BM25 (0–1), before weighting. */
  fields: Record<ContextField, number>;
  /** Query terms (stems) found in any field. */
  matched: string[];
}

const K1 = 1.2;
const B = 0.75;
const FIELDS: ContextField[] = ['title', 'description', 'anchor', 'url'];

/** Stems of the words of a text, stopwords out ("fire-alarm-testing" in a URL is three words). */
export function termsOf(text: string, language = 'en'): string[] {
  const stop = stopwordSet(language);
  return words(text.replace(/[-_/.+]+/g, ' '))
    .filter((w) => !stop.has(w))
    .map((w) => stem(w));
}

/** The words of a URL's path (no host, query or file extension): `/services/fire-alarm-testing`. */
export function urlText(url: string): string {
  try {
    const u = new URL(url);
    return u.pathname.replace(/\.[a-z0-9]{1,5}$/i, '');
  } catch {
    return url;
  }
}

/** Checks that weights cover the four fields, are not negative, and sum to 1 (within 0.001). */
export function checkFieldWeights(w: FieldWeights): string | undefined {
  for (const f of FIELDS) if (!(w[f] >= 0)) return `the weight of ${f} must be a number of at least 0`;
  const sum = FIELDS.reduce((n, f) => n + w[f], 0);
  return Math.abs(sum - 1) > 0.001 ? `the field weights sum to ${sum.toFixed(3)}; they must sum to 1` : undefined;
}

/**
 * Scores every candidate against the query. BM25 statistics (document frequency, average length)
 * are per field over the candidates; a field's score is divided by the best candidate's in that
 * field, so each lies in 0–1, and the weighted sum does too.
 */
export function contextualScores(query: string, candidates: LinkFields[], weights: FieldWeights = DEFAULT_FIELD_WEIGHTS): ContextualScore[] {
  const q = [...new Set(termsOf(query))];
  const docs = candidates.map(
    (c) => Object.fromEntries(FIELDS.map((f) => [f, termsOf(f === 'url' ? urlText(c.url ?? '') : (c[f] ?? ''))])) as Record<ContextField, string[]>,
  );
  const raw: Array<Record<ContextField, number>> = docs.map(() => ({ title: 0, description: 0, anchor: 0, url: 0 }));
  const best: Record<ContextField, number> = { title: 0, description: 0, anchor: 0, url: 0 };
  for (const f of FIELDS) {
    const n = docs.length;
    const avg = docs.reduce((s, d) => s + d[f].length, 0) / Math.max(1, n) || 1;
    const df = new Map<string, number>();
    for (const d of docs) for (const t of new Set(d[f])) df.set(t, (df.get(t) ?? 0) + 1);
    docs.forEach((d, i) => {
      let score = 0;
      for (const t of q) {
        const tf = d[f].filter((x) => x === t).length;
        if (!tf) continue;
        const dft = df.get(t) ?? 0;
        const idf = Math.log(1 + (n - dft + 0.5) / (dft + 0.5));
        score += (idf * tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * d[f].length) / avg));
      }
      raw[i]![f] = score;
      best[f] = Math.max(best[f], score);
    });
  }
  return docs.map((d, i) => {
    const fields = Object.fromEntries(FIELDS.map((f) => [f, best[f] > 0 ? raw[i]![f] / best[f] : 0])) as Record<ContextField, number>;
    const score = FIELDS.reduce((s, f) => s + weights[f] * fields[f], 0);
    const matched = q.filter((t) => FIELDS.some((f) => d[f].includes(t)));
    return { score: Math.round(score * 10_000) / 10_000, fields, matched };
  });
}
