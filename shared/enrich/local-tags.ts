import { stem, stopwordSet, words } from './text.js';
import { cleanTags, TAG_LIMITS } from './tags.js';

/** Most tags the local method proposes: a handful of strong ones reads better than twelve weak ones. */
const LOCAL_MAX_TAGS = 8;
/** A phrase of two or three words must repeat to be a keyphrase (a title counts once: a title-only phrase is a headline, not a topic). */
const MIN_PHRASE_COUNT = 2;

/** Document frequencies of stems over a collection (a crawl's pages): how common a word is elsewhere. */
export interface CorpusStats {
  df: Map<string, number>;
  docs: number;
}

interface Phrase {
  key: string;
  surface: Map<string, number>;
  count: number;
  inTitle: boolean;
  first: number;
  size: number;
}

/** Runs of content words between stopwords and punctuation: RAKE's candidate phrases. */
function runs(text: string, stop: Set<string>): string[][] {
  const out: string[][] = [];
  for (const clause of text.toLowerCase().split(/[.,;:!?()[\]{}"“”\n–—|/]+/)) {
    let run: string[] = [];
    for (const w of words(clause)) {
      if (stop.has(w) || w.length < 3 || /^\p{N}/u.test(w)) {
        if (run.length) out.push(run);
        run = [];
      } else run.push(w);
    }
    if (run.length) out.push(run);
  }
  return out;
}

function collect(text: string, language: string | undefined, title: Set<string>, phrases: Map<string, Phrase>, offset: number): void {
  let position = offset;
  for (const run of runs(text, stopwordSet(language))) {
    for (let size = 1; size <= 3; size++) {
      for (let i = 0; i + size <= run.length; i++) {
        const gram = run.slice(i, i + size);
        const stems = gram.map((w) => stem(w, language));
        const key = stems.join(' ');
        let p = phrases.get(key);
        if (!p) phrases.set(key, (p = { key, surface: new Map(), count: 0, inTitle: stems.every((s) => title.has(s)), first: position, size }));
        p.count++;
        const form = gram.join(' ');
        p.surface.set(form, (p.surface.get(form) ?? 0) + 1);
      }
    }
    position += run.length;
  }
}

/**
 * How specific a phrase is to this page among the others (inverse document frequency of its
 * words, averaged, scaled so a word on every page weighs ~0 and one on a single page ~1): a word
 * every page of the crawl uses ("paper", "method", "home") is no topic. 1 without statistics.
 */
function rarity(key: string, corpus: CorpusStats | undefined): number {
  if (!corpus || corpus.docs < 20) return 1;
  const stems = key.split(' ');
  const max = Math.log(corpus.docs + 1);
  const idf = stems.reduce((sum, s) => sum + Math.log((corpus.docs + 1) / ((corpus.df.get(s) ?? 0) + 1)), 0) / stems.length;
  return Math.max(0.05, idf / max);
}

/**
 * Keyphrase tags without a model: phrases of one to three content words scored by frequency, with
 * boosts for the title, an early first mention and length; a phrase whose words a stronger chosen
 * phrase already covers is skipped. Deterministic.
 */
export function keyphraseTags(title: string, text: string, language?: string, corpus?: CorpusStats, max = LOCAL_MAX_TAGS): string[] {
  const titleStems = new Set(words(title).map((w) => stem(w, language)));
  // With the crawl's statistics, rarity tells a one-off phrase from noise; without them, a phrase must repeat.
  const minPhraseCount = corpus && corpus.docs >= 20 ? 1 : MIN_PHRASE_COUNT;
  const phrases = new Map<string, Phrase>();
  collect(title, language, titleStems, phrases, 0);
  collect(text, language, titleStems, phrases, 0);
  const total = [...phrases.values()].reduce((s, p) => s + (p.size === 1 ? p.count : 0), 0) || 1;
  const scored = [...phrases.values()]
    .filter((p) => (p.size === 1 || p.count >= minPhraseCount) && (!p.inTitle || p.count >= 2))
    .map((p) => ({
      p,
      score: p.count * (p.inTitle ? 3 : 1) * (1 + 0.5 * (p.size - 1)) * (1 + 1 / (1 + p.first / Math.max(total / 10, 1))) * rarity(p.key, corpus),
    }))
    .filter(({ score }) => score >= 2)
    .sort((a, b) => b.score - a.score || a.p.first - b.p.first || a.p.key.localeCompare(b.p.key));
  const chosen: Phrase[] = [];
  const covered = new Set<string>();
  for (const { p } of scored) {
    const stems = p.key.split(' ');
    if (stems.every((s) => covered.has(s))) continue;
    chosen.push(p);
    for (const s of stems) covered.add(s);
    if (chosen.length >= LOCAL_MAX_TAGS + 4) break;
  }
  // A short page may not reach the minimum: the next strongest single words fill it.
  for (const { p } of scored) {
    if (chosen.length >= TAG_LIMITS.min) break;
    if (p.size === 1 && !chosen.includes(p)) chosen.push(p);
  }
  const surfaces = chosen.map((p) => [...p.surface.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0]![0]);
  return cleanTags(surfaces).slice(0, Math.max(max, TAG_LIMITS.min));
}
