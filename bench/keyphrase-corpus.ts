// The keyphrase datasets of bench:tags and train:tags: ../shared/corpora/keyphrase-eval (Inspec and
// SemEval 2017) and the keys the extraction corpora's pages declare; the corpus README's
// normalisation and F1@k; a TF-IDF top-k of single words as the baseline; the datasets' stem
// statistics, what a crawl's own statistics give the tagger.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { stem, stopwordSet, words } from '../shared/enrich/text.js';
import { modernDeclared, snippetDeclared, type TaggedDoc } from './declared-tags.js';

export const CORPORA = join(process.cwd(), '..', 'shared', 'corpora', 'keyphrase-eval');
export const LIMIT = Number(process.env.BENCH_TAGS_DOCS ?? 500);

export type Doc = TaggedDoc;

export function load(zip: string): Doc[] {
  const file = join(CORPORA, zip);
  if (!existsSync(file)) throw new Error(`${file} is missing: the keyphrase corpora live in ../shared/corpora/keyphrase-eval`);
  const names = execFileSync('unzip', ['-Z1', file], { maxBuffer: 64 << 20 })
    .toString()
    .split('\n')
    .filter((n) => /\/docsutf8\/[^/]+\.txt$/.test(n))
    .sort()
    .slice(0, LIMIT);
  return names.map((name) => {
    const id = name.replace(/^.*\/docsutf8\//, '').replace(/\.txt$/, '');
    const body = execFileSync('unzip', ['-p', file, name]).toString('utf8').replace(/\s+/g, ' ').trim();
    const keyName = name.replace('/docsutf8/', '/keys/').replace(/\.txt$/, '.key');
    const gold = execFileSync('unzip', ['-p', file, keyName])
      .toString('utf8')
      .split('\n')
      .map((k) => k.trim())
      .filter(Boolean);
    // Inspec's first line is the title; SemEval's paragraphs have none.
    const [first, ...rest] = body.split(/(?<=[.?!])\s/);
    return zip.startsWith('Inspec') ? { id, title: first ?? '', text: rest.join(' '), gold } : { id, title: '', text: body, gold };
  });
}

/** The corpus README's normalisation: lower case, -/_ as spaces, plurals stripped word by word. */
export function norm(phrase: string): string {
  return phrase
    .toLowerCase()
    .replace(/^#/, '')
    .replace(/[-_]/g, ' ')
    .split(/\s+/)
    .filter(Boolean)
    .map((w) =>
      w.replace(/(?<=[a-z]{3})(ies)$/, 'y').replace(/(?<=[a-z]{3})(es|s)$/, (m, _p, o, s: string) => (/(ss|us|is)$/.test(s.slice(0, o + m.length)) ? m : '')),
    )
    .join(' ');
}

export function score(pred: string[], gold: string[], k: number): { p: number; r: number; f: number } {
  const g = new Set(gold.map(norm));
  const top = [...new Set(pred.map(norm))].slice(0, k);
  const hit = top.filter((t) => g.has(t)).length;
  const p = top.length ? hit / top.length : 0;
  const r = g.size ? hit / g.size : 0;
  return { p, r, f: p + r ? (2 * p * r) / (p + r) : 0 };
}

/** TF-IDF top-k of single words over the same documents (stopwords of each page's language out): the baseline. */
export function tfidfBaseline(docs: Doc[]): Map<string, string[]> {
  const df = new Map<string, number>();
  const tokens = docs.map((d) => {
    const stop = stopwordSet(d.language ?? 'en');
    return words(`${d.title} ${d.text}`.toLowerCase()).filter((w) => !stop.has(w) && w.length > 2 && !/^\p{N}/u.test(w));
  });
  for (const t of tokens) for (const w of new Set(t)) df.set(w, (df.get(w) ?? 0) + 1);
  const out = new Map<string, string[]>();
  docs.forEach((d, i) => {
    const tf = new Map<string, number>();
    for (const w of tokens[i]!) tf.set(w, (tf.get(w) ?? 0) + 1);
    const ranked = [...tf.entries()]
      .map(([w, n]) => [w, n * Math.log(docs.length / df.get(w)!)] as const)
      .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
    out.set(
      d.id,
      ranked.slice(0, 10).map(([w]) => w),
    );
  });
  return out;
}

/** Document frequencies of stems over the dataset: what the crawl's own statistics give the tagger. */
export function corpusStats(docs: Doc[]): { df: Map<string, number>; docs: number } {
  const df = new Map<string, number>();
  for (const d of docs) for (const s of new Set(words(`${d.title} ${d.text}`.toLowerCase()).map((w) => stem(w, d.language)))) df.set(s, (df.get(s) ?? 0) + 1);
  return { df, docs: docs.length };
}

/** The four datasets, each with its role in bench:tags (the rules were chosen on two, held out on two). */
export const DATASETS: Array<{ name: string; role: string; docs: () => Doc[] }> = [
  { name: 'Inspec', role: 'chosen on', docs: () => load('Inspec.zip') },
  { name: 'SemEval 2017', role: 'held out', docs: () => load('SemEval2017.zip') },
  { name: 'extraction-eval declared keys', role: 'chosen on', docs: () => snippetDeclared().slice(0, LIMIT) },
  { name: 'modern-eval declared keys', role: 'held out', docs: () => modernDeclared().slice(0, LIMIT) },
];
