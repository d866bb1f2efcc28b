import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { countTokens } from '../../shared/extract/chunks.js';
import { summarizeExtractive, SUMMARY_LIMITS } from '../../shared/enrich/local-summary.js';
import { keyphraseTags } from '../../shared/enrich/local-tags.js';
import { hashEmbedding } from '../../shared/enrich/local-embedding.js';
import { cleanTags, normalizeTag, readTagOutput, TAG_LIMITS } from '../../shared/enrich/tags.js';
import { headTailWindow, plainText, sentences, stem, termsIn, words } from '../../shared/enrich/text.js';
import { validateSummary } from '../../shared/enrich/prompts.js';

const article = readFileSync(new URL('../fixtures/extract/news-article.txt', import.meta.url), 'utf8');
const docs = readFileSync(new URL('../fixtures/extract/docs-page.txt', import.meta.url), 'utf8');

function cosine(a: Float32Array, b: Float32Array): number {
  return a.reduce((s, x, i) => s + x * b[i]!, 0);
}

test('the extractive summary keeps the most central whole sentences, in order, within 8 sentences and 200 tokens', () => {
  const summary = summarizeExtractive(article, 'en');
  const picked = sentences(summary, 'en');
  assert.ok(picked.length >= 2 && picked.length <= SUMMARY_LIMITS.sentences, `${picked.length} sentences`);
  assert.ok(countTokens(summary) <= SUMMARY_LIMITS.tokens, `${countTokens(summary)} tokens`);
  const flat = article.replace(/\s+/g, ' ');
  let at = -1;
  for (const s of picked) {
    const i = flat.indexOf(s);
    assert.ok(i > at, `"${s.slice(0, 40)}…" comes from the text, after the previous pick`);
    at = i;
  }
  assert.equal(summarizeExtractive(article, 'en'), summary, 'deterministic');
  assert.equal(summarizeExtractive('Menu\nHome\nAbout us', 'en'), 'Menu Home About us', 'a page without sentences gets its lead');
});

test('keyphrase tags are 3–12 kebab-case topic tags, none from the deny-list, stable across runs', () => {
  for (const [title, text] of [
    ['News article', article],
    ['Docs page', docs],
  ] as const) {
    const tags = keyphraseTags(title, text, 'en');
    assert.ok(tags.length >= TAG_LIMITS.min && tags.length <= TAG_LIMITS.max, tags.join(' '));
    for (const t of tags) assert.match(t, /^#[\p{L}\p{N}]+(-[\p{L}\p{N}]+)*$/u);
    assert.deepEqual(keyphraseTags(title, text, 'en'), tags);
  }
  const heap = keyphraseTags('Composting', 'Compost heaps need air. Turn the compost heap weekly. A compost heap gets hot.', 'en');
  assert.ok(heap.includes('#compost-heap') && heap.includes('#compost'), heap.join(' '));
});

test('tags are normalised, deduplicated by plural and cut to twelve; model answers are read leniently', () => {
  assert.equal(normalizeTag('  Home Insulation '), '#home-insulation');
  assert.equal(normalizeTag('#Café_Culture'), '#café-culture');
  assert.equal(normalizeTag('1. Index funds'), '#index-funds');
  assert.equal(normalizeTag('#home'), undefined);
  assert.equal(normalizeTag('2024'), undefined);
  assert.deepEqual(cleanTags(['tomato', 'tomatoes', '#Tomato', 'login', 'pots']), ['#tomato', '#pots']);
  assert.equal(cleanTags(Array.from({ length: 20 }, (_, i) => `topic ${String.fromCharCode(97 + i)}`)).length, TAG_LIMITS.max);
  assert.deepEqual(readTagOutput('{"tags": ["a-b", "c"]}'), ['a-b', 'c']);
  assert.deepEqual(readTagOutput('Tags: #one #two #three'), ['#one', '#two', '#three']);
  assert.deepEqual(readTagOutput('one, two\nthree'), ['one', 'two', 'three']);
});

test('a model summary over budget is cut at a sentence end; an empty one is rejected', () => {
  const long = Array.from({ length: 40 }, (_, i) => `Sentence number ${i} states one more claim about the page.`).join(' ');
  const cut = validateSummary(long);
  assert.ok(countTokens(cut) <= 200);
  assert.match(cut, /\.$/);
  assert.throws(() => validateSummary('  '), /empty or too short/);
});

test('hashed embeddings are unit length, deterministic, and closer for texts on the same topic', () => {
  const a = hashEmbedding('Composting kitchen scraps into garden soil', 'en');
  const b = hashEmbedding('How to compost food scraps for the garden', 'en');
  const c = hashEmbedding('Refinancing a mortgage at a lower interest rate', 'en');
  assert.ok(Math.abs(cosine(a, a) - 1) < 1e-5);
  assert.ok(cosine(a, b) > cosine(a, c) + 0.2, `${cosine(a, b)} vs ${cosine(a, c)}`);
  assert.deepEqual([...hashEmbedding('Composting kitchen scraps into garden soil', 'en')], [...a]);
  // Character n-grams meet inflections a stemmer does not join.
  assert.ok(cosine(hashEmbedding('immunisation', 'en'), hashEmbedding('immune', 'en')) > 0.2);
});

test('plain text drops markdown syntax; long texts are cut to a head and a tail', () => {
  assert.equal(
    plainText('# Title\n\nSee [the docs](https://x.example/d) and ![img](a.png) **now**.\n\n- one\n- two'),
    'Title\n\nSee the docs and now .\n\none\ntwo',
  );
  const text = `${'head '.repeat(100)}${'middle '.repeat(1000)}${'tail '.repeat(100)}`;
  const w = headTailWindow(text, 400);
  assert.ok(w.length <= 410);
  assert.match(w, /^head .*\n\[…\]\n.*tail $/s);
});

test("a hit's matched terms: by stem, case and possessives ignored, in the query's order, none invented", () => {
  const text = "The Gardener's heaps were turned WEEKLY; composting takes patience.";
  assert.deepEqual(termsIn(['weekly', 'heap', 'compost', 'gardener', 'turning', 'tomato'], text), ['weekly', 'heap', 'compost', 'gardener', 'turning']);
  assert.deepEqual(termsIn(['tomato'], text), []);
  assert.deepEqual(termsIn([], text), []);
  assert.deepEqual(termsIn(['heap', 'heaps'], 'one heap'), ['heap', 'heaps'], 'terms sharing a stem are both matched');
});

test('matched terms are found where their stem starts a word, as a scan of every word finds them', () => {
  // Only where a word starts: "heap" inside "cheap", "ring" inside "during" are not the words.
  assert.deepEqual(termsIn(['heap', 'ring', 'cheap'], 'a cheap repair during winter'), ['cheap']);
  // y → i and an added e: the written word holds the stem less its last letter.
  assert.deepEqual(termsIn(['happiness', 'hoping', 'troubles'], 'happy to hope for trouble'), ['happiness', 'hoping', 'troubles']);
  // An apostrophe inside the word as written; possessives; a word right after a number or a non-BMP letter.
  assert.deepEqual(termsIn(['oneill', 'dont', 'kilometres'], "O'Neill won't say; don't run 10kilometres"), ['oneill', 'dont', 'kilometres']);
  assert.deepEqual(termsIn(['heap'], '𝔘heap and 3.5heaps'), ['heap'], 'after a number a word starts; after a letter outside the BMP it does not');
  assert.deepEqual(termsIn(['heap'], '𝔘heap'), []);
  // Against a scan of every word: short stems, numbers, mixed scripts.
  const text = "Ax by 2024 cars' axes; the café's 3,5 fish — über-fast O’Brien ox oxen x-ray ‘quoted’ 12ab ab12";
  const every = (terms: string[]) => terms.filter((t) => words(text).some((w) => stem(w) === stem(t)));
  const all = ['ax', 'axe', 'by', '2024', 'car', 'cafe', 'café', 'fish', 'über', 'fast', 'obrien', 'ox', 'oxen', 'ray', 'quoted', 'ab', 'ab12', '12ab', 'none'];
  assert.deepEqual(termsIn(all, text), every(all));
});

test('with the crawl’s statistics, the rules’ keyphrase tags run to ten: words interleaved with phrases, names weighed up, no negation', () => {
  // Twenty-four other pages of the crawl on other topics give the document frequencies.
  const others = Array.from({ length: 24 }, (_, i) => `Page ${i} is about the weather, rivers, trains and the market in town number ${i}. It is not long.`);
  const text = [
    'The harbour council met on Monday. Councillor Marta Kowalska said the harbour dredging would not start before spring.',
    'Dredging the harbour costs the council more than the ferry terminal did. Kowalska wants the ferry terminal rebuilt first.',
    'Fishermen say the silt is not the problem: the breakwater is. The breakwater was built in 1952 and the silt came after.',
    'The council will vote on the dredging contract next month. Kowalska expects the contract to pass, but not unanimously.',
  ].join(' ');
  const df = new Map<string, number>();
  for (const doc of [...others, text]) for (const s of new Set(words(doc).map((w) => stem(w, 'en')))) df.set(s, (df.get(s) ?? 0) + 1);
  // The rules alone (the learned ranker, when it ships, orders the same candidates: tag-ranker.test.ts).
  const tags = keyphraseTags('Harbour dredging delayed', text, 'en', { df, docs: others.length + 1 }, { model: null });
  assert.equal(tags.length, 10, tags.join(' '));
  assert.ok(!tags.includes('#not'), tags.join(' '));
  assert.ok(tags.includes('#kowalska') || tags.includes('#marta-kowalska'), tags.join(' '));
  const phrases = tags.filter((t) => t.includes('-'));
  assert.ok(phrases.length >= 1 && phrases.length <= 3, `phrases in their slots: ${tags.join(' ')}`);
  // The first tags alternate: a word, then a phrase.
  assert.ok(!tags[0]!.includes('-') && tags[1]!.includes('-'), tags.join(' '));
});
