// BM25 over term postings, for stores without a full-text engine (the cloud: DynamoDB and S3).
// The embedded runtime uses SQLite FTS5 with the same field weights.
import { stem, stopwordSet, words } from '../enrich/text.js';
import type { SearchFilters } from '../ports/index.js';

/** A term in the title counts most, then tags, summary, body (as in the FTS5 index). */
export const FIELD_WEIGHTS = { title: 5, tags: 3, summary: 2, body: 1 } as const;
/** Distinct terms kept per document (the most frequent, weighted): bounds the index of a very long page. */
export const MAX_DOC_TERMS = 1500;
/** BM25's usual constants. */
const K1 = 1.2;
const B = 0.75;

export interface IndexedFields {
  title: string;
  /** `#kebab-case` tags: indexed as their words. */
  tags: string[];
  summary: string;
  body: string;
}

/** A document as the postings index holds it: its weighted term frequencies, length and filter fields. */
export interface PostedDoc {
  urlId: string;
  host: string;
  language?: string;
  published?: string;
  tags: string[];
  /** Weighted length (every word times its field's weight). */
  length: number;
  terms: Map<string, number>;
}

/** The index key of a word: lower case, Porter stem; stopwords have none. */
export function termOf(word: string): string | undefined {
  const w = word.toLowerCase();
  if (stopwordSet('en').has(w)) return undefined;
  return stem(w);
}

/** The weighted term frequencies of a document's fields, the most frequent `MAX_DOC_TERMS` kept. */
export function docTerms(fields: IndexedFields): { terms: Map<string, number>; length: number } {
  const terms = new Map<string, number>();
  let length = 0;
  const add = (text: string, weight: number) => {
    for (const w of words(text)) {
      length += weight;
      const t = termOf(w);
      if (t) terms.set(t, (terms.get(t) ?? 0) + weight);
    }
  };
  add(fields.title, FIELD_WEIGHTS.title);
  add(fields.tags.map((t) => t.replace(/^#/, '').replace(/-/g, ' ')).join(' '), FIELD_WEIGHTS.tags);
  add(fields.summary, FIELD_WEIGHTS.summary);
  add(fields.body, FIELD_WEIGHTS.body);
  if (terms.size <= MAX_DOC_TERMS) return { terms, length };
  const kept = [...terms].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, MAX_DOC_TERMS);
  return { terms: new Map(kept), length };
}

/** `term count term count …`: terms never hold spaces. */
export function encodeTerms(terms: Map<string, number>): string {
  const parts: string[] = [];
  for (const [t, n] of terms) parts.push(t, String(n));
  return parts.join(' ');
}

export function decodeTerms(encoded: string): Map<string, number> {
  const parts = encoded ? encoded.split(' ') : [];
  const out = new Map<string, number>();
  for (let i = 0; i + 1 < parts.length; i += 2) out.set(parts[i]!, Number(parts[i + 1]));
  return out;
}

/** Whether a document's filter fields pass the filters (same rules as the SQLite filters). */
export function passesFilters(d: Pick<PostedDoc, 'host' | 'language' | 'published' | 'tags'>, f: SearchFilters): boolean {
  const p = fieldFilters(f);
  return p.host(d.host) && p.language(d.language) && p.published(d.published) && p.tags(d.tags);
}

/** The filters as one test per filter field, so that a column of distinct values is tested once a value. */
export function fieldFilters(f: SearchFilters): {
  host(host: string): boolean;
  language(language: string | undefined): boolean;
  published(published: string | undefined): boolean;
  tags(tags: readonly string[]): boolean;
} {
  const domain = (f.domain ?? '').toLowerCase().replace(/^\.+/, '');
  const want = f.language?.toLowerCase();
  return {
    host: (host) => !f.domain || host === domain || host.endsWith(`.${domain}`) || host.startsWith(`${domain}:`),
    language: (language) => {
      if (!want) return true;
      const lang = (language ?? '').toLowerCase();
      return lang === want || lang.startsWith(`${want}-`);
    },
    published: (published) => {
      if (f.since && !(published !== undefined && published >= f.since)) return false;
      return !(f.until && !(published !== undefined && published < `${f.until}\uffff`));
    },
    tags: (tags) => (f.tags ?? []).every((tag) => tags.includes(tag)),
  };
}

/** Corpus statistics BM25 needs. */
export interface CorpusStats {
  docs: number;
  totalLength: number;
  /** Documents holding the term. */
  df(term: string): number;
}

/** BM25 of one document for the query's terms (0 when none occurs). */
export function bm25(doc: Pick<PostedDoc, 'length' | 'terms'>, queryTerms: string[], stats: CorpusStats): number {
  const avgdl = stats.docs > 0 ? stats.totalLength / stats.docs : 1;
  let score = 0;
  for (const t of queryTerms) {
    const tf = doc.terms.get(t);
    if (!tf) continue;
    const df = stats.df(t);
    const idf = Math.log(1 + (stats.docs - df + 0.5) / (df + 0.5));
    score += (idf * tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * doc.length) / Math.max(avgdl, 1e-9)));
  }
  return score;
}

/** Which of the query's terms a page's index terms hold (a term is held when its index key is), in the terms' order. */
export function termsHeld(terms: string[], held: ReadonlyMap<string, number>): string[] {
  return terms.filter((t) => words(t).some((w) => held.has(stem(w.toLowerCase()))));
}

/** The distinct index terms of a query's words. */
export function queryIndexTerms(terms: string[]): string[] {
  const out = new Set<string>();
  for (const term of terms) for (const w of words(term)) out.add(stem(w.toLowerCase()));
  return [...out];
}
