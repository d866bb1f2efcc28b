// The learned scope model's training, for `npm run train:extract` and bench:extract: per page of
// both corpora, the rules' text (with a block model) and the page's whole main region, each scored
// by its corpus's own method; trees fitted to tell when the region is the better text, weighed by
// how much better; the threshold chosen on out-of-fold probabilities by site. Deterministic.
import { boundHtml } from '../shared/extract/bounds.js';
import { parseDocument } from '../shared/extract/dom.js';
import { mainContentText, blockText } from '../shared/extract/main-content.js';
import { withBlockModel, type BlockModel } from '../shared/extract/block-model.js';
import { regionNodes, regionProbability, SCOPE_FEATURES, withScopeModel, type ScopeModel } from '../shared/extract/page-scope.js';
import { countPage, foldOf, norm, prf, zeroCounts } from './extraction-corpus.js';
import { pageScore } from './whole-text.js';
import { extractPage } from '../shared/extract/extract-page.js';
import { figures, fitBlockModel, fitTrees, objective, scoreTexts, type CorpusFigures, type TrainOptions, type TrainPage } from './block-training.js';
import { EXTRACT_OPTIONS } from './extraction-corpus.js';

export const SCOPE_OPTIONS: TrainOptions = { trees: 40, depth: 3, rate: 0.15, lambda: 2, bins: 32, minLeaf: 3 };
const ABOVE = [0.5, 0.6, 0.7, 0.8, 0.9, 1.01];
const INNER = 3;
/** Pages whose two texts score within this of each other teach nothing. */
const MIN_GAIN = 0.01;

/** A page as the scope model sees it under one block model: its features, the rules' text and the region's. */
export interface ScopeSample {
  features: number[];
  rulesText: string;
  regionText: string;
}

const parse = (html: string) => () => parseDocument(boundHtml(html).html);

/** The page's whole main region as text (independent of any model). */
export function regionText(html: string): string {
  try {
    return blockText(regionNodes(parse(html)()));
  } catch {
    return '';
  }
}

/** The rules' text of a page under a block model, with the scope model's features of it. */
export function scopeSample(p: TrainPage, blockModel: BlockModel | null, region: string): ScopeSample {
  let features: number[] = SCOPE_FEATURES.map(() => 0);
  let rulesText = '';
  try {
    const doc = parse(p.html);
    withScopeModel(null, () =>
      withBlockModel(blockModel, () =>
        mainContentText(doc(), {
          reparse: doc,
          onScope: (f, text) => {
            features = f;
            rulesText = text;
          },
        }),
      ),
    );
  } catch {
    // An error leaves an empty text: scored as such.
  }
  return { features, rulesText, regionText: region };
}

/** One page's score by its corpus's method: snippet F1, or whole-text F1. */
function pageF1(p: TrainPage, text: string): number {
  if (p.snippets) {
    const c = countPage(zeroCounts(), p.snippets, norm(text));
    return prf(c.tp, c.fp, c.fn).f1;
  }
  const s = pageScore(p.truth!.truth, text);
  return s.p && s.r ? (2 * s.p * s.r) / (s.p + s.r) : 0;
}

function treesOn(pages: TrainPage[], samples: ScopeSample[]): Pick<ScopeModel, 'base' | 'trees'> {
  const x: number[][] = [];
  const y: number[] = [];
  const w: number[] = [];
  pages.forEach((p, i) => {
    const s = samples[i]!;
    const gain = pageF1(p, s.regionText) - pageF1(p, s.rulesText);
    if (Math.abs(gain) < MIN_GAIN) return;
    x.push(s.features);
    y.push(gain > 0 ? 1 : 0);
    w.push(Math.abs(gain));
  });
  return fitTrees(x, y, SCOPE_OPTIONS, w);
}

/** Fits the scope model on pages (with their samples under one block model); the threshold from inner folds by site. */
export function fitScopeModel(pages: TrainPage[], samples: ScopeSample[], trainedOn: string): ScopeModel {
  const model: ScopeModel = { features: [...SCOPE_FEATURES], ...treesOn(pages, samples), above: 1.01, trainedOn };
  const probs = new Array<number>(pages.length);
  for (let f = 0; f < INNER; f++) {
    const inFold = (p: TrainPage) => foldOf(`scope:${p.site}`, INNER) === f;
    const m: ScopeModel = {
      ...model,
      ...treesOn(
        pages.filter((p) => !inFold(p)),
        samples.filter((_, i) => !inFold(pages[i]!)),
      ),
    };
    pages.forEach((p, i) => {
      if (inFold(p)) probs[i] = regionProbability(m, samples[i]!.features);
    });
  }
  let best = { above: 1.01, score: -1 };
  for (const above of ABOVE) {
    const score = objective(
      scoreTexts(
        pages,
        samples.map((s, i) => (probs[i]! > above ? s.regionText : s.rulesText)),
      ),
    );
    if (score > best.score + 1e-9) best = { above, score };
  }
  return { ...model, above: best.above };
}

/** A page's text by `extractPage` itself, with a block model and a scope model (each may be null). */
function extracted(p: TrainPage, block: BlockModel | null, scope: ScopeModel | null): { text: string; method: string } {
  try {
    return withScopeModel(scope, () => withBlockModel(block, () => extractPage(p.html, p.url, EXTRACT_OPTIONS)));
  } catch {
    return { text: '', method: 'none' };
  }
}

export interface ExtractionCv {
  rules: CorpusFigures;
  /** The rules with the block model. */
  learned: CorpusFigures;
  /** The rules with the block model and the scope model. */
  scoped: CorpusFigures;
  thresholds: string[];
  /** Held-out pages the scope model gave the region, of all held-out pages. */
  regionPages: number;
}

/**
 * k-fold cross-validation by site over both corpora: each fold's block model is fitted on the other
 * folds' pages of both corpora, then its scope model on the same pages' texts under that block
 * model; the fold's pages are extracted by `extractPage` itself with the rules alone, with the block
 * model, and with both.
 */
export function crossValidateExtraction(pages: TrainPage[], k: number): ExtractionCv {
  const regions = pages.map((p) => regionText(p.html));
  const learned = new Array<string>(pages.length);
  const scoped = new Array<string>(pages.length);
  const thresholds: string[] = [];
  let regionPages = 0;
  for (let f = 0; f < k; f++) {
    const inFold = (p: TrainPage) => foldOf(p.site, k) === f;
    const train = pages.filter((p) => !inFold(p));
    const block = fitBlockModel(train, `folds other than ${f}`);
    const trainSamples = pages.flatMap((p, i) => (inFold(p) ? [] : [scopeSample(p, block, regions[i]!)]));
    const scope = fitScopeModel(train, trainSamples, `folds other than ${f}`);
    thresholds.push(`${block.dropBelow}/${block.addAbove}/${scope.above}`);
    pages.forEach((p, i) => {
      if (!inFold(p)) return;
      learned[i] = extracted(p, block, null).text;
      const both = extracted(p, block, scope);
      scoped[i] = both.text;
      if (both.method === 'region') regionPages++;
    });
  }
  return {
    rules: figures(
      pages,
      pages.map((p) => extracted(p, null, null).text),
    ),
    learned: figures(pages, learned),
    scoped: figures(pages, scoped),
    thresholds,
    regionPages,
  };
}
