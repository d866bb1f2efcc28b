// npm run bench:tags: the offline tagger's keyphrases against the gold keys of two public datasets
// (../shared/corpora/keyphrase-eval: Inspec and SemEval 2017), beside a TF-IDF top-k baseline of
// single words in the same run. P/R/F1 at 5 and 10, after lower-casing, turning -/_ into spaces
// and stripping plurals, as the corpus README says. The tagger's rules were chosen on Inspec;
// SemEval 2017 is the held-out figure. With an OpenAI-compatible provider configured
// (TRAWL_PROVIDER=openai, …), its tags are scored too.
import { keyphraseTags } from '../shared/enrich/local-tags.js';
import { stopwordSet } from '../shared/enrich/text.js';
import { corpusStats, DATASETS, LIMIT, score, tfidfBaseline, type Doc } from './keyphrase-corpus.js';
import { machine, publish, today } from './report.js';
import { crossValidateTags, tagSets } from './tag-training.js';

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
// The ranker cross-validated: each fold's ranker fitted on the other folds of every set (as train:tags fits it), scored on its fold.
const cv = crossValidateTags(tagSets(), 5);
const cvTable = {
  title:
    '5-fold cross-validation of the learned tag ranker (folds by document; each fold ranked by a ranker fitted on the other folds of all four sets), F1@10',
  columns: ['dataset', 'docs', 'rules alone', 'learned ranker (CV)', 'TF-IDF words', 'ranker / TF-IDF'],
  rows: cv.figures.map((f) => [f.set, String(f.docs), pct(f.rules), pct(f.learned), pct(f.tfidf), `${(f.learned / f.tfidf).toFixed(2)} ×`]),
};
publish({
  bench: 'tags',
  command: `npm run bench:tags${LIMIT === 500 ? '' : ` (BENCH_TAGS_DOCS=${LIMIT})`}`,
  machine: machine(),
  measured: today(),
  tables: [{ columns: rows[0]!, rows: rows.slice(1) }, cvTable],
  notes: [
    `F1@10 of the shipped tags (the ranker fitted on all four sets: in-sample here; the cross-validated table is the fair figure) against TF-IDF words on the same documents: ${comparisons.join('; ')}.`,
  ],
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
  console.log(`\n${cvTable.title}`);
  for (const r of cvTable.rows) console.log(`  ${r.join('  ')}`);
}
