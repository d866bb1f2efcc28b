// npm run bench:tags: the offline tagger's keyphrases against the gold keys of two public datasets
// (../shared/corpora/keyphrase-eval: Inspec and SemEval 2017), beside a TF-IDF top-k baseline of
// single words in the same run. P/R/F1 at 5 and 10, after lower-casing, turning -/_ into spaces
// and stripping plurals, as the corpus README says. The tagger's rules were chosen on Inspec;
// SemEval 2017 is the held-out figure. With an OpenAI-compatible provider configured
// (TRAWL_PROVIDER=openai, …), its tags are scored too.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { keyphraseTags } from '../shared/enrich/local-tags.js';
import { stem, stopwordSet, words } from '../shared/enrich/text.js';
import { modernDeclared, snippetDeclared, type TaggedDoc } from './declared-tags.js';
import { machine, publish, today } from './report.js';

const CORPORA = join(process.cwd(), '..', 'shared', 'corpora', 'keyphrase-eval');
const LIMIT = Number(process.env.BENCH_TAGS_DOCS ?? 500);

type Doc = TaggedDoc;

function load(zip: string): Doc[] {
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
function norm(phrase: string): string {
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

function score(pred: string[], gold: string[], k: number): { p: number; r: number; f: number } {
  const g = new Set(gold.map(norm));
  const top = [...new Set(pred.map(norm))].slice(0, k);
  const hit = top.filter((t) => g.has(t)).length;
  const p = top.length ? hit / top.length : 0;
  const r = g.size ? hit / g.size : 0;
  return { p, r, f: p + r ? (2 * p * r) / (p + r) : 0 };
}

/** TF-IDF top-k of single words over the same documents (stopwords of each page's language out): the baseline. */
function tfidfBaseline(docs: Doc[]): Map<string, string[]> {
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
function corpusStats(docs: Doc[]): { df: Map<string, number>; docs: number } {
  const df = new Map<string, number>();
  for (const d of docs) for (const s of new Set(words(`${d.title} ${d.text}`.toLowerCase()).map((w) => stem(w, d.language)))) df.set(s, (df.get(s) ?? 0) + 1);
  return { df, docs: docs.length };
}

const pct = (x: number) => x.toFixed(3);
const rows: string[][] = [['dataset', 'method', 'P@5', 'R@5', 'F1@5', 'P@10', 'R@10', 'F1@10', 'F1@10 keys+words', 'tags', 'docs']];
const results: Array<{
  dataset: string;
  role: string;
  method: string;
  p5: number;
  r5: number;
  f5: number;
  p10: number;
  r10: number;
  f10: number;
  f10Words: number;
  tags: number;
  docs: number;
}> = [];
/**
 * The keys with each of their content words as keys too: how readers who mark single words (news
 * readers do) would score, where the keys themselves are phrases.
 */
function withWords(gold: string[]): string[] {
  const stop = stopwordSet('en');
  return [
    ...new Set([
      ...gold,
      ...gold.flatMap((k) =>
        k
          .toLowerCase()
          .split(/\s+/)
          .filter((w) => w.length > 2 && !stop.has(w)),
      ),
    ]),
  ];
}
const DATASETS: Array<{ name: string; role: string; docs: () => Doc[] }> = [
  { name: 'Inspec', role: 'chosen on', docs: () => load('Inspec.zip') },
  { name: 'SemEval 2017', role: 'held out', docs: () => load('SemEval2017.zip') },
  { name: 'extraction-eval declared keys', role: 'chosen on', docs: () => snippetDeclared().slice(0, LIMIT) },
  { name: 'modern-eval declared keys', role: 'held out', docs: () => modernDeclared().slice(0, LIMIT) },
];
for (const set of DATASETS) {
  const docs = set.docs();
  if (docs.length === 0) continue;
  const stats = corpusStats(docs);
  const baseline = tfidfBaseline(docs);
  const methods: Record<string, (d: Doc) => string[]> = {
    'trawl offline': (d) => keyphraseTags(d.title, d.text, d.language ?? 'en', stats),
    'TF-IDF words': (d) => baseline.get(d.id)!,
  };
  for (const [name, tag] of Object.entries(methods)) {
    const acc = { p5: 0, r5: 0, f5: 0, p10: 0, r10: 0, f10: 0, f10Words: 0, tags: 0 };
    for (const d of docs) {
      const pred = tag(d);
      const a = score(pred, d.gold, 5);
      const b = score(pred, d.gold, 10);
      acc.p5 += a.p;
      acc.r5 += a.r;
      acc.f5 += a.f;
      acc.p10 += b.p;
      acc.r10 += b.r;
      acc.f10 += b.f;
      acc.f10Words += score(pred, withWords(d.gold), 10).f;
      acc.tags += Math.min(10, pred.length);
    }
    const n = docs.length;
    const mean = Object.fromEntries(Object.entries(acc).map(([k, v]) => [k, v / n])) as typeof acc;
    results.push({ dataset: set.name, role: set.role, method: name, ...mean, docs: n });
    rows.push([
      `${set.name} (${set.role})`,
      name,
      ...[mean.p5, mean.r5, mean.f5, mean.p10, mean.r10, mean.f10, mean.f10Words].map(pct),
      mean.tags.toFixed(1),
      String(n),
    ]);
  }
}
const rel = (x: number, y: number) => `${x >= y ? '+' : ''}${(((x - y) / y) * 100).toFixed(0)} %`;
const comparisons = DATASETS.flatMap((set) => {
  const row = (m: string) => results.find((r) => r.dataset === set.name && r.method === m);
  const t = row('trawl offline');
  const b = row('TF-IDF words');
  return t && b ? [`${set.name} (${set.role}): ${rel(t.f10, b.f10)} on the keys, ${rel(t.f10Words, b.f10Words)} on the keys and their words`] : [];
});
publish({
  bench: 'tags',
  command: `npm run bench:tags${LIMIT === 500 ? '' : ` (BENCH_TAGS_DOCS=${LIMIT})`}`,
  machine: machine(),
  measured: today(),
  tables: [{ columns: rows[0]!, rows: rows.slice(1) }],
  notes: [`F1@10 of the offline tags against TF-IDF words on the same documents: ${comparisons.join('; ')}.`],
});
if (process.argv.includes('--json')) {
  console.log(JSON.stringify({ docsPerSet: LIMIT, results }));
} else {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  for (const [i, r] of rows.entries()) {
    console.log(r.map((c, j) => (j < 2 ? c.padEnd(widths[j]!) : c.padStart(widths[j]!))).join('  '));
    if (i === 0) console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  }
  console.log('\nF1@10 of the offline tags against TF-IDF words on the same documents (the keys; the keys and their words):');
  for (const set of DATASETS) {
    const row = (m: string) => results.find((r) => r.dataset === set.name && r.method === m);
    const t = row('trawl offline');
    const b = row('TF-IDF words');
    if (t && b) console.log(`  ${set.name} (${set.role}): ${rel(t.f10, b.f10)}; ${rel(t.f10Words, b.f10Words)}`);
  }
}
