// npm run train:tags — fits the learned tag ranker on the four keyphrase datasets
// (../shared/corpora/keyphrase-eval's Inspec and SemEval 2017, and the keys the extraction corpora's
// pages declare), prints its 5-fold cross-validation beside the rules and TF-IDF, and writes the
// model the build ships (shared/enrich/tag-model-data.ts). Deterministic.
import { writeFileSync } from 'node:fs';
import { crossValidateTags, fitTagModel, tagSets } from '../bench/tag-training.js';
import { modelModule } from '../bench/block-training.js';

const K = 5;
const started = Date.now();
const sets = tagSets();
if (sets.length < 2) {
  console.error('train:tags needs the keyphrase datasets: ../shared/corpora/keyphrase-eval and the extraction corpora');
  process.exit(1);
}
const samples = sets.reduce((n, s) => n + s.samples.reduce((m, d) => m + d.y.length, 0), 0);
console.log(`${sets.map((s) => `${s.name} ${s.docs.length}`).join(', ')} documents; ${samples} candidate tags`);
const cv = crossValidateTags(sets, K);
console.log(`\n${K}-fold cross-validation, F1@10:`);
console.log('| dataset | docs | rules | learned ranker (CV) | TF-IDF words | learned / TF-IDF |');
console.log('|---|---:|---:|---:|---:|---:|');
for (const f of cv.figures)
  console.log(`| ${f.set} | ${f.docs} | ${f.rules.toFixed(3)} | ${f.learned.toFixed(3)} | ${f.tfidf.toFixed(3)} | ${(f.learned / f.tfidf).toFixed(2)} × |`);
console.log(`thresholds per fold: ${cv.thresholds.join(', ')}`);
const model = fitTagModel(sets, () => true, `${sets.map((s) => `${s.name} (${s.docs.length})`).join(', ')}; ${samples} candidates`);
const out = 'shared/enrich/tag-model-data.ts';
writeFileSync(out, modelModule('train:tags', 'SHIPPED_TAG_MODEL: (TreeModel & { threshold: number; trainedOn: string }) | null', model));
console.log(`\nwrote ${out}: ${model.trees.length} trees, threshold ${model.threshold} (${((Date.now() - started) / 1000).toFixed(0)} s)`);
