// npm run train:extract — fits the learned block model on both extraction corpora
// (../shared/corpora/extraction-eval and modern-eval), prints its 5-fold cross-validation by site
// beside the rules alone, and writes the model the build ships (shared/extract/block-model-data.ts).
// Deterministic: the same corpora give the same file.
import { writeFileSync } from 'node:fs';
import { crossValidateBlocks, fitBlockModel, modelModule, trainingPages, type CorpusFigures } from '../bench/block-training.js';

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

const cv = crossValidateBlocks(pages, K);
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
console.log(`thresholds per fold (drop below / add above): ${cv.thresholds.join(', ')}`);

const model = fitBlockModel(
  pages,
  `extraction-eval (${pages.filter((p) => p.corpus === 'snippets').length} pages) and modern-eval (${pages.filter((p) => p.corpus === 'whole').length} pages), ${labelled} labelled blocks`,
);
const out = 'shared/extract/block-model-data.ts';
writeFileSync(out, modelModule('train:extract', 'SHIPPED_BLOCK_MODEL: (TreeModel & { dropBelow: number; addAbove: number; trainedOn: string }) | null', model));
console.log(
  `\nwrote ${out}: ${model.trees.length} trees, drop below ${model.dropBelow}, add above ${model.addAbove} (${((Date.now() - started) / 1000).toFixed(0)} s)`,
);
