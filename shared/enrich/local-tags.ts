import { stem, stopwordSet, words } from './text.js';
import { cleanTags, TAG_LIMITS } from './tags.js';
import { fittedOn, treeProbability, type TreeModel } from '../util/boosted-trees.js';
import { SHIPPED_TAG_MODEL } from './tag-model-data.js';

/** The learned tag ranker: trees over TAG_FEATURES and the probability a tag must clear. */
export type TagModel = TreeModel & { threshold: number; trainedOn: string };

let activeTags: TagModel | null = null;
let activeSet = false;

/** The tag ranker in use (the shipped one when it was fitted on TAG_FEATURES), or null for the rules. */
export function activeTagModel(): TagModel | null {
  if (!activeSet) {
    activeTags = fittedOn(SHIPPED_TAG_MODEL, TAG_FEATURES) ? SHIPPED_TAG_MODEL : null;
    activeSet = true;
  }
  return activeTags;
}

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
const NOT_TOPICS = [
  'not',
  'no',
  'yes',
  'cannot',
  'dont',
  'cant',
  'wont',
  'isnt',
  'doesnt',
  'didnt',
  'really',
  'etc',
  // Function words the stopword lists leave out: auxiliaries, prepositions, connectives, reporting verbs.
  'does',
  'did',
  'done',
  'amid',
  'amidst',
  'among',
  'amongst',
  'whether',
  'also',
  'would',
  'could',
  'should',
  'might',
  'must',
  'shall',
  'will',
  'may',
  'said',
  'says',
  'say',
  'via',
  'upon',
  'within',
  'without',
  'despite',
  'toward',
  'towards',
  'onto',
  'unlike',
  'per',
  'though',
  'although',
  'yet',
  'still',
  'even',
  'just',
  'much',
  'many',
  'however',
  'thus',
  'hence',
  'whose',
  'whom',
  'something',
  'anything',
  'everything',
  'nothing',
  'someone',
  'anyone',
  'everyone',
];
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
        // A word run on itself ("harbour harbour") is no phrase.
        if (size > 1 && new Set(stems).size < size) continue;
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

/** The feature names of a candidate tag, in the order `tagCandidates` computes them. */
export const TAG_FEATURES = [
  'log-count',
  'count-share',
  'in-title',
  'size-1',
  'size-2',
  'size-3',
  'first-position',
  'early',
  'name-share',
  'rarity',
  'log-length',
  'log-rules-score',
  'rules-rank',
  'parts-count',
  'mean-word-length',
  'with-stats',
] as const;

/** A candidate tag: its phrase, the rules' score, and its features for the learned ranker. */
export interface TagCandidate {
  key: string;
  size: number;
  surface: string;
  first: number;
  score: number;
  features: number[];
}

/**
 * The candidate tags of a page, strongest first by the rules' score: one to three content words,
 * scored by frequency and rarity in the crawl, with boosts for the title, an early first mention,
 * names and length. Each carries its features.
 */
export function tagCandidates(title: string, text: string, language?: string, corpus?: CorpusStats): TagCandidate[] {
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
      rarity: rarity(p.key, corpus),
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
  return scored.map(({ p, score, rarity: r }, rank) => {
    const surface = [...p.surface.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0]![0];
    const parts = p.size === 1 ? p.count : p.key.split(' ').reduce((n, s) => n + (phrases.get(s)?.count ?? 0), 0);
    return {
      key: p.key,
      size: p.size,
      surface,
      first: p.first,
      score,
      features: [
        Math.log1p(p.count),
        p.count / total,
        p.inTitle ? 1 : 0,
        p.size === 1 ? 1 : 0,
        p.size === 2 ? 1 : 0,
        p.size === 3 ? 1 : 0,
        Math.min(1, p.first / total),
        p.first < total / 10 ? 1 : 0,
        p.names / p.count,
        r,
        Math.log1p(total),
        Math.log1p(score),
        rank / Math.max(1, scored.length),
        Math.log1p(parts),
        surface.replace(/ /g, '').length / p.size / 10,
        withStats ? 1 : 0,
      ],
    };
  });
}

/**
 * Keyphrase tags without a chat model: the page's candidates (`tagCandidates`) ranked by the
 * learned tag ranker when one ships (as many as clear its threshold, at least `TAG_LIMITS.min`),
 * else by the rules' score with the strongest words (WORD_SLOTS of them) interleaved with the
 * strongest phrases; a phrase whose words a stronger candidate already holds is skipped. Deterministic.
 */
export function keyphraseTags(
  title: string,
  text: string,
  language?: string,
  corpus?: CorpusStats,
  options: { max?: number; model?: TagModel | null } = {},
): string[] {
  const max = options.max ?? LOCAL_MAX_TAGS;
  const model = options.model === undefined ? activeTagModel() : options.model;
  const candidates = tagCandidates(title, text, language, corpus);
  if (model) return rankedTags(candidates, model, max);
  // Phrases among the strongest candidates (a few more than the tags), skipping one whose words a stronger candidate holds.
  const multi: TagCandidate[] = [];
  const covered = new Set<string>();
  let taken = 0;
  for (const p of candidates) {
    const stems = p.key.split(' ');
    if (stems.every((s) => covered.has(s))) continue;
    for (const s of stems) covered.add(s);
    if (p.size > 1) multi.push(p);
    if (++taken >= max + 4) break;
  }
  // Words by their own score; WORD_SLOTS of the tags, interleaved with the phrases from the top.
  const single = candidates.filter((p) => p.size === 1);
  const wordSlots = Math.round((WORD_SLOTS * max) / LOCAL_MAX_TAGS);
  const chosen: TagCandidate[] = [];
  let w = 0;
  let f = 0;
  while (chosen.length < max + 4 && (w < single.length || f < multi.length)) {
    const wordTurn = w < wordSlots && (w <= f || f >= max - wordSlots);
    if ((wordTurn || f >= multi.length) && w < single.length) chosen.push(single[w++]!);
    else if (f < multi.length) chosen.push(multi[f++]!);
    else chosen.push(single[w++]!);
  }
  return cleanTags(chosen.map((p) => p.surface)).slice(0, Math.max(max, TAG_LIMITS.min));
}

/** Candidates by the ranker's probability; those over its threshold (at least the minimum), a phrase whose words a stronger one holds skipped. */
function rankedTags(candidates: TagCandidate[], model: TagModel, max: number): string[] {
  const ranked = candidates
    .map((c) => ({ c, p: treeProbability(model, c.features) }))
    .sort((a, b) => b.p - a.p || a.c.first - b.c.first || a.c.key.localeCompare(b.c.key));
  const chosen: TagCandidate[] = [];
  const covered = new Set<string>();
  for (const { c, p } of ranked) {
    if (chosen.length >= max + 4) break;
    // Under the threshold the ranker is unsure: it stops, once the tags (cleaned) reach the minimum.
    if (p < model.threshold && cleanTags(chosen.map((x) => x.surface)).length >= TAG_LIMITS.min) break;
    const stems = c.key.split(' ');
    if (c.size > 1 && stems.every((s) => covered.has(s))) continue;
    for (const s of stems) covered.add(s);
    chosen.push(c);
  }
  return cleanTags(chosen.map((c) => c.surface)).slice(0, max);
}
