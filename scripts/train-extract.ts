// npm run train:extract — fits the learned block model on both extraction corpora
// (../shared/corpora/extraction-eval and modern-eval), prints its 5-fold cross-validation by site
// beside the rules alone, and writes the model the build ships (shared/extract/block-model-data.ts).
// Deterministic: the same corpora give the same file.
import { writeFileSync } from 'node:fs';
import { fitBlockModel, modelModule, trainingPages, type CorpusFigures } from '../bench/block-training.js';
import { crossValidateExtraction, fitScopeModel, regionText, scopeSample } from '../bench/scope-training.js';

const K = 5;
const started = Date.now();
const pages = trainingPages();
if (!pages.some((p) => p.corpus === 'snippets') || !pages.some((p) => p.corpus === 'whole')) {
  console.error(
    'train:extract needs both corpora: ../shared/corpora/extraction-eval and ../shared/corpora/modern-eval (or TRAWL_CORPUS and TRAWL_WHOLE_TEXT_CORPUS)',
  );
  process.exit(1);
}
const labelled = pages.reduce((n, p) => n + p.blocks.filter((b) => b.label !== undefined).length, 0);
console.log(`${pages.length} pages, ${labelled} labelled blocks, read in ${((Date.now() - started) / 1000).toFixed(0)} s`);

const cv = crossValidateExtraction(pages, K);
const row = (name: string, f: CorpusFigures) =>
  `| ${name} | ${f.snippets.precision.toFixed(3)} | ${f.snippets.recall.toFixed(3)} | ${f.snippets.f1.toFixed(3)} | ${f.whole.precision.toFixed(3)} | ${f.whole.recall.toFixed(3)} | ${f.whole.f1.toFixed(3)} | ${Object.entries(
    f.whole.byType,
  )
    .sort()
    .map(([t, v]) => `${t} ${v.toFixed(3)}`)
    .join(', ')} |`;
console.log(`\n${K}-fold cross-validation by site, both corpora (held-out pages extracted by extractPage):`);
console.log('| extractor | snippets P | R | F1 | whole text P | R | F1 | whole-text F1 by page type |');
console.log('|---|---:|---:|---:|---:|---:|---:|---|');
console.log(row('the rules alone', cv.rules));
console.log(row('rules + learned block model', cv.learned));
console.log(row('rules + block model + scope model', cv.scoped));
console.log(`thresholds per fold (drop below / add above / region above): ${cv.thresholds.join(', ')}; held-out pages given their region: ${cv.regionPages}`);

const model = fitBlockModel(
  pages,
  `extraction-eval (${pages.filter((p) => p.corpus === 'snippets').length} pages) and modern-eval (${pages.filter((p) => p.corpus === 'whole').length} pages), ${labelled} labelled blocks`,
);
const out = 'shared/extract/block-model-data.ts';
writeFileSync(out, modelModule('train:extract', 'SHIPPED_BLOCK_MODEL: (TreeModel & { dropBelow: number; addAbove: number; trainedOn: string }) | null', model));
console.log(`\nwrote ${out}: ${model.trees.length} trees, drop below ${model.dropBelow}, add above ${model.addAbove}`);

// The scope model, fitted on every page's text under the shipped block model.
const samples = pages.map((p) => scopeSample(p, model, regionText(p.html)));
const scope = fitScopeModel(pages, samples, model.trainedOn);
const scopeOut = 'shared/extract/scope-model-data.ts';
writeFileSync(scopeOut, modelModule('train:extract', 'SHIPPED_SCOPE_MODEL: (TreeModel & { above: number; trainedOn: string }) | null', scope));
console.log(`wrote ${scopeOut}: ${scope.trees.length} trees, region above ${scope.above} (${((Date.now() - started) / 1000).toFixed(0)} s)`);
