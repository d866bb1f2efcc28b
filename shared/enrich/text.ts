import { stemmer } from 'stemmer';
import * as stopwords from 'stopword';

/** Word tokens: letters (any script) with inner apostrophes or hyphens, or runs of digits. */
const WORD = /\p{L}[\p{L}\p{M}\p{N}'’]*|\p{N}+(?:[.,]\p{N}+)?/gu;

/** ISO 639-1 codes → the stopword package's ISO 639-3 lists. */
const STOPWORD_LISTS: Record<string, string> = {
  en: 'eng',
  de: 'deu',
  fr: 'fra',
  es: 'spa',
  it: 'ita',
  nl: 'nld',
  pt: 'por',
  sv: 'swe',
  da: 'dan',
  nb: 'nob',
  no: 'nob',
  fi: 'fin',
  pl: 'pol',
  ru: 'rus',
  uk: 'ukr',
  cs: 'ces',
  tr: 'tur',
  ro: 'ron',
  hu: 'hun',
  el: 'ell',
  id: 'ind',
  ca: 'cat',
};

/**
 * English words the stopword package's short list (108 words) leaves in but that never name a topic:
 * more function words, number words, and the commonest verbs and adverbs.
 */
const MORE_ENGLISH = `its it's off one two three four five six seven eight nine ten first second last next new old why when where
how what which who whom whose also just only even still yet very much many more most less least every each any some such own
same other others another per via can could may might must shall should will would need needs needed make makes made making
use uses used using get gets got getting go goes going went take takes took taking give gives gave put puts keep keeps kept
let lets say says said see sees seen come comes came way ways thing things lot lots day days week weeks month months year
years time times often usually always never sometimes around about above below across after before again against along
already although among because been being both down during either enough ever far few however into like less near nor now
off once onto out over rather since than though through till toward towards under until upon well whether while within
without back mean means meant sure good great best better small large big little long short high low`;

const stopSets = new Map<string, Set<string>>();

/** The stopwords of a language (`en`, `de-AT`…); English when the language has no list. */
export function stopwordSet(language: string | undefined): Set<string> {
  const code = (language ?? 'en').slice(0, 2).toLowerCase();
  const list = STOPWORD_LISTS[code] ?? 'eng';
  let set = stopSets.get(list);
  if (!set) {
    const words = (stopwords as unknown as Record<string, string[]>)[list] ?? stopwords.eng;
    set = new Set(words.map((w) => w.toLowerCase()));
    if (list === 'eng') for (const w of MORE_ENGLISH.split(/\s+/)) set.add(w);
    stopSets.set(list, set);
  }
  return set;
}

/** A lower-cased word token without its possessive and apostrophes. */
const bareWord = (w: string) => (w.includes("'") || w.includes('’') ? w.replace(/['’]s$/, '').replace(/['’]/g, '') : w);

/** Lower-cased word tokens of a text, in order. */
export function words(text: string): string[] {
  return (text.toLowerCase().match(WORD) ?? []).map(bareWord);
}

/** Stems already computed: a crawl's vocabulary repeats, and Porter is most of the local methods' cost. Cleared past a bound. */
const stemCache = new Map<string, string>();
const STEM_CACHE_MAX = 200_000;

/** A word reduced to its stem: Porter for English, the word itself elsewhere (character n-grams cover inflection there). */
export function stem(word: string, language?: string): string {
  if (language && !language.toLowerCase().startsWith('en')) return word;
  let s = stemCache.get(word);
  if (s === undefined) {
    if (stemCache.size >= STEM_CACHE_MAX) stemCache.clear();
    s = stemmer(word);
    stemCache.set(word, s);
  }
  return s;
}

/**
 * Which of the query's terms occur in a text, by stem, in the terms' order. A term is looked for
 * where its stem's head occurs (indexOf), and only the words starting there are stemmed: a long
 * body costs a search per term, not a tokenization and a stem of every word (6 µs against 75 a
 * 1.5 KB page, ten hits a query). Stems too short to look for so are found in one scan of every word.
 */
export function termsIn(terms: string[], text: string): string[] {
  const wanted = new Set(terms.map((t) => stem(t)));
  if (wanted.size === 0) return [];
  const lower = text.toLowerCase();
  const found = new Set<string>();
  const scanned: string[] = [];
  let apostrophed: Set<string> | undefined;
  for (const s of wanted) {
    const head = s.slice(0, -2);
    // A head of one letter is everywhere: those stems are looked for in one scan of every word.
    if (head.length < 2) {
      scanned.push(s);
      continue;
    }
    if (startsWordStemmed(lower, head, s)) found.add(s);
    else if ((apostrophed ??= apostrophedStems(lower)).has(s)) found.add(s);
  }
  if (scanned.length) {
    const left = new Set(scanned);
    const seen = new Set<string>();
    for (const w of lower.match(WORD) ?? []) {
      if (seen.has(w)) continue;
      seen.add(w);
      const s = stem(bareWord(w));
      if (left.delete(s)) {
        found.add(s);
        if (left.size === 0) break;
      }
    }
  }
  return terms.filter((t) => found.has(stem(t)));
}

/**
 * Whether a word of `lower` that starts with `head` stems to `s`. Porter's stemmer changes at most
 * the last letter of what it keeps (y → i, an added e: so on all 321,101 words of the extraction
 * corpus), so a word stemming to `s` starts with `s` less its last two letters, unless an
 * apostrophe breaks it up as written (`apostrophedStems`).
 */
function startsWordStemmed(lower: string, head: string, s: string): boolean {
  for (let i = lower.indexOf(head); i >= 0; i = lower.indexOf(head, i + 1)) {
    // After a letter is inside a word ("heap" in "cheap"): no word starts there.
    if (i > 0 && LETTER.test(lower[i - 1]!)) continue;
    // After a space or a sign, a word starts here; after a digit or an apostrophe, maybe.
    if (i === 0 || !WORD_RUN.test(lower[i - 1]!)) {
      WORD_AT.lastIndex = i;
      const word = WORD_AT.exec(lower)?.[0];
      if (word && stem(bareWord(word)) === s) return true;
    } else for (const w of wordsAround(lower, i)) if (w.index === i && stem(bareWord(w.word)) === s) return true;
  }
  return false;
}

/** The stems of the words holding an apostrophe (rare: each is found from its apostrophe). */
function apostrophedStems(lower: string): Set<string> {
  const out = new Set<string>();
  for (const mark of ["'", '’'])
    for (let j = lower.indexOf(mark); j >= 0; j = lower.indexOf(mark, j + 1))
      for (const w of wordsAround(lower, j)) if (/['’]/.test(w.word)) out.add(stem(bareWord(w.word)));
  return out;
}

const LETTER = /\p{L}/u;
/** WORD, matched only where it is told to start. */
const WORD_AT = new RegExp(WORD.source, 'uy');
/** What a word (WORD) can hold, the separators of a number's digits, and halves of a surrogate pair: no word crosses anything else. */
const WORD_RUN = /[\p{L}\p{M}\p{N}'’.,\uD800-\uDFFF]/u;

/** The words WORD finds in the run of word characters around position `at`, as a scan of the whole text finds them there. */
function wordsAround(lower: string, at: number): Array<{ word: string; index: number }> {
  let start = at;
  while (start > 0 && WORD_RUN.test(lower[start - 1]!)) start--;
  let end = at;
  while (end < lower.length && WORD_RUN.test(lower[end]!)) end++;
  return [...lower.slice(start, end).matchAll(WORD)].map((m) => ({ word: m[0], index: start + m.index }));
}

/** The stems of a text's content words (stopwords, one-letter words and bare numbers out). */
export function contentStems(text: string, language?: string): string[] {
  const stop = stopwordSet(language);
  const out: string[] = [];
  for (const w of words(text)) if (w.length > 1 && !stop.has(w) && !/^\p{N}+$/u.test(w)) out.push(stem(w, language));
  return out;
}

/** Markdown as the plain text a reader sees: link targets, images, emphasis marks and heading hashes out. */
export function plainText(markdown: string): string {
  return markdown
    .replace(/```[\s\S]*?```/g, ' ')
    .replace(/!\[[^\]]*\]\([^)]*\)/g, ' ')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/^[ \t]{0,3}(#{1,6}|>|[-*+]|\d+[.)])[ \t]+/gm, '')
    .replace(/[*_`|]+/g, ' ')
    .replace(/[ \t]+/g, ' ')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** A sentence segmenter for the language (English where the runtime has no rules for it). */
export function sentenceSegmenter(language?: string): Intl.Segmenter {
  try {
    return new Intl.Segmenter(language || 'en', { granularity: 'sentence' });
  } catch {
    return new Intl.Segmenter('en', { granularity: 'sentence' });
  }
}

/** The sentences of a text, by the language's own rules (Intl.Segmenter), trimmed, blanks out. */
export function sentences(text: string, language?: string): string[] {
  const segmenter = sentenceSegmenter(language);
  const out: string[] = [];
  for (const block of text.split(/\n+/)) {
    for (const { segment } of segmenter.segment(block)) {
      const s = segment.replace(/\s+/g, ' ').trim();
      if (s) out.push(s);
    }
  }
  return out;
}

/**
 * A long text cut to its head and tail: what a model reads of a page. The head carries the lead and
 * most claims; the tail the conclusion. `maxChars` splits 3:1 between them.
 */
export function headTailWindow(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const head = Math.floor(maxChars * 0.75);
  const tail = maxChars - head;
  const cutHead = text.slice(0, head).replace(/\s+\S*$/, '');
  const cutTail = text.slice(text.length - tail).replace(/^\S*\s+/, '');
  return `${cutHead}\n[…]\n${cutTail}`;
}
