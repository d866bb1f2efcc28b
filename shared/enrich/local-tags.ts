import { stem, stopwordSet, words } from './text.js';
import { cleanTags, TAG_LIMITS } from './tags.js';

/** Most tags the local method proposes: as many as the page supports, up to ten. */
const LOCAL_MAX_TAGS = 10;
/**
 * Of those, the slots for single words (by their own score, whether or not a chosen phrase holds
 * them); the others go to phrases. Readers' keys are mostly words on news and mostly phrases on
 * papers: seven word slots keep the tags at least as good as a TF-IDF top ten of words whichever
 * the keys are (bench:tags, scored against the declared keys and against them with their words).
 */
const WORD_SLOTS = 7;
/** A candidate used capitalised mid-sentence (a name) weighs up to this much more. */
const NAME_BOOST = 0.5;
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
  /** Occurrences with every word capitalised mid-sentence. */
  names: number;
  inTitle: boolean;
  first: number;
  size: number;
}

/** Words no tag is made of, besides the language's stopwords: negations and fillers the lists leave out. */
const NOT_TOPICS = ['not', 'no', 'yes', 'cannot', 'dont', 'cant', 'wont', 'isnt', 'doesnt', 'didnt', 'really', 'etc'];
const tagStops = new Map<string, Set<string>>();
function tagStopwords(language: string | undefined): Set<string> {
  const code = (language ?? 'en').slice(0, 2).toLowerCase();
  let set = tagStops.get(code);
  if (!set) tagStops.set(code, (set = new Set([...stopwordSet(language), ...NOT_TOPICS])));
  return set;
}

/** A word as the text has it (its case kept), to tell a name from a word. */
const CASED_WORD = /\p{L}[\p{L}\p{M}\p{N}'’]*|\p{N}+(?:[.,]\p{N}+)?/gu;

interface RunWord {
  word: string;
  /** Capitalised, and not the first word of its clause. */
  name: boolean;
}

/** Runs of content words between stopwords and punctuation: RAKE's candidate phrases. */
function runs(text: string, stop: Set<string>): RunWord[][] {
  const out: RunWord[][] = [];
  for (const clause of text.split(/[.,;:!?()[\]{}"“”\n–—|/]+/)) {
    let run: RunWord[] = [];
    let first = true;
    for (const cased of clause.match(CASED_WORD) ?? []) {
      const [word = cased.toLowerCase()] = words(cased);
      const name = !first && /^\p{Lu}/u.test(cased);
      first = false;
      if (stop.has(word) || word.length < 3 || /^\p{N}/u.test(word)) {
        if (run.length) out.push(run);
        run = [];
      } else run.push({ word, name });
    }
    if (run.length) out.push(run);
  }
  return out;
}

function collect(text: string, language: string | undefined, title: Set<string>, phrases: Map<string, Phrase>, offset: number): void {
  let position = offset;
  for (const run of runs(text, tagStopwords(language))) {
    for (let size = 1; size <= 3; size++) {
      for (let i = 0; i + size <= run.length; i++) {
        const cased = run.slice(i, i + size);
        const gram = cased.map((w) => w.word);
        const stems = gram.map((w) => stem(w, language));
        const key = stems.join(' ');
        let p = phrases.get(key);
        if (!p) phrases.set(key, (p = { key, surface: new Map(), count: 0, names: 0, inTitle: stems.every((s) => title.has(s)), first: position, size }));
        p.count++;
        if (cased.every((w) => w.name)) p.names++;
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
 * Keyphrase tags without a model: candidates of one to three content words scored by frequency
 * and rarity in the crawl, with boosts for the title, an early first mention, names and length;
 * the tags are the strongest words (WORD_SLOTS of them) interleaved with the strongest phrases (a
 * phrase whose words a stronger candidate already holds is skipped). Deterministic.
 */
export function keyphraseTags(title: string, text: string, language?: string, corpus?: CorpusStats, max = LOCAL_MAX_TAGS): string[] {
  const titleStems = new Set(words(title).map((w) => stem(w, language)));
  // With the crawl's statistics, rarity tells a one-off phrase from noise; without them, a phrase must repeat.
  const withStats = corpus !== undefined && corpus.docs >= 20;
  const minPhraseCount = withStats ? 1 : MIN_PHRASE_COUNT;
  const phrases = new Map<string, Phrase>();
  collect(title, language, titleStems, phrases, 0);
  collect(text, language, titleStems, phrases, 0);
  const total = [...phrases.values()].reduce((s, p) => s + (p.size === 1 ? p.count : 0), 0) || 1;
  const scored = [...phrases.values()]
    .filter((p) => (p.size === 1 || p.count >= minPhraseCount) && (!p.inTitle || p.count >= 2))
    .map((p) => ({
      p,
      score:
        p.count *
        (p.inTitle ? 3 : 1) *
        (1 + 0.5 * (p.size - 1)) *
        (1 + 1 / (1 + p.first / Math.max(total / 10, 1))) *
        (1 + NAME_BOOST * (p.names / p.count)) *
        rarity(p.key, corpus),
    }))
    // Without the crawl's statistics a word must repeat (or lead the page) to count.
    .filter(({ score }) => score >= (withStats ? 1 : 2))
    .sort((a, b) => b.score - a.score || a.p.first - b.p.first || a.p.key.localeCompare(b.p.key));
  // Phrases among the strongest candidates (a few more than the tags), skipping one whose words a stronger candidate holds.
  const multi: Phrase[] = [];
  const covered = new Set<string>();
  let taken = 0;
  for (const { p } of scored) {
    const stems = p.key.split(' ');
    if (stems.every((s) => covered.has(s))) continue;
    for (const s of stems) covered.add(s);
    if (p.size > 1) multi.push(p);
    if (++taken >= max + 4) break;
  }
  // Words by their own score; WORD_SLOTS of the tags, interleaved with the phrases from the top.
  const single = scored.filter(({ p }) => p.size === 1).map(({ p }) => p);
  const wordSlots = Math.round((WORD_SLOTS * max) / LOCAL_MAX_TAGS);
  const chosen: Phrase[] = [];
  let w = 0;
  let f = 0;
  while (chosen.length < max + 4 && (w < single.length || f < multi.length)) {
    const wordTurn = w < wordSlots && (w <= f || f >= max - wordSlots);
    if ((wordTurn || f >= multi.length) && w < single.length) chosen.push(single[w++]!);
    else if (f < multi.length) chosen.push(multi[f++]!);
    else chosen.push(single[w++]!);
  }
  const surfaces = chosen.map((p) => [...p.surface.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0]![0]);
  return cleanTags(surfaces).slice(0, Math.max(max, TAG_LIMITS.min));
}
