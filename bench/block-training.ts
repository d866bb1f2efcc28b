// The learned block model's training and cross-validation, for `npm run train:extract` and
// bench:extract: every candidate block of both corpora's pages (the snippet corpus and the whole-text
// corpus) with its features, labels from each corpus's own truth, gradient-boosted trees fitted
// with histograms, the two thresholds chosen on the training pages, and k-fold cross-validation by
// site scored by each corpus's own method on pages of sites the model never saw. Deterministic.
import { getDomain } from 'tldts';
import { boundHtml } from '../shared/extract/bounds.js';
import { parseDocument, textOf } from '../shared/extract/dom.js';
import { mainContentText } from '../shared/extract/main-content.js';
import { BLOCK_FEATURES } from '../shared/extract/block-features.js';
import { isFurnitureLine } from '../shared/extract/content-blocks.js';
import { contentProbability, withBlockModel, type BlockModel, type TreeNode } from '../shared/extract/block-model.js';
import { withScopeModel } from '../shared/extract/page-scope.js';
import type { TreeModel } from '../shared/util/boosted-trees.js';
import { corpusPages, countPage, foldOf, norm, prf, siteOf, zeroCounts, type Counts, type Page } from './extraction-corpus.js';
import { pageScore, wholeTextF1, wholeTextPages, type WholeTextPage } from './whole-text.js';

/** A page of either corpus, extracted by the rules alone, with its candidate blocks. */
export interface TrainPage {
  corpus: 'snippets' | 'whole';
  site: string;
  html: string;
  url: string;
  /** The rules' text, normalised. */
  text: string;
  blocks: Array<{ text: string; inside: boolean; features: number[]; label?: 0 | 1 }>;
  snippets?: Page;
  truth?: WholeTextPage;
}

const tokens = (s: string) => s.match(/[\p{L}\p{N}_]+/gu) ?? [];

function shingleSet(s: string): Set<string> {
  const t = tokens(s.toLowerCase());
  const out = new Set<string>();
  for (let i = 0; i + 4 <= t.length; i++) out.add(t.slice(i, i + 4).join(' '));
  return out;
}

/**
 * Labels from the whole text: a block most of whose 4-token shingles are in the article's text is
 * content, one with almost none is boilerplate; a block of two or three words is content when the
 * words appear together in the text; a single word and the blocks in between stay unlabelled.
 */
function wholeTextLabel(block: string, truthShingles: Set<string>, truthTokens: string): 0 | 1 | undefined {
  const t = tokens(block.toLowerCase());
  if (t.length < 2) return undefined;
  if (t.length < 4) return ` ${truthTokens} `.includes(` ${t.join(' ')} `) ? 1 : 0;
  let hit = 0;
  let n = 0;
  for (let i = 0; i + 4 <= t.length; i++, n++) if (truthShingles.has(t.slice(i, i + 4).join(' '))) hit++;
  const share = hit / n;
  return share >= 0.5 ? 1 : share <= 0.15 ? 0 : undefined;
}

/** A block holding a with-snippet is content, one holding a without-snippet (and no with-snippet) boilerplate. */
function snippetLabel(block: string, page: Page): 0 | 1 | undefined {
  if (page.with.some((w) => norm(w) && block.includes(norm(w)))) return 1;
  if (page.without.some((w) => norm(w) && block.includes(norm(w)))) return 0;
  return undefined;
}

function rulesPass(html: string): { text: string; blocks: TrainPage['blocks'] } {
  const blocks: TrainPage['blocks'] = [];
  let text = '';
  try {
    const parse = () => parseDocument(boundHtml(html).html);
    // The rules alone: neither learned model.
    const main = withScopeModel(null, () =>
      withBlockModel(null, () =>
        mainContentText(parse(), {
          reparse: parse,
          onJudged: (judged) => {
            for (const b of judged) blocks.push({ text: norm(textOf(b.el)), inside: b.inside, features: b.features });
          },
        }),
      ),
    );
    text = norm(main.text);
  } catch {
    // An error is an empty text: scored as such.
  }
  return { text, blocks };
}

/** Both corpora's pages with their candidate blocks and labels (empty when a corpus is missing). */
export function trainingPages(): TrainPage[] {
  const out: TrainPage[] = [];
  for (const page of corpusPages()) {
    const { text, blocks } = rulesPass(page.html);
    for (const b of blocks) b.label = snippetLabel(b.text, page);
    out.push({ corpus: 'snippets', site: siteOf(page.key), html: page.html, url: page.url, text, blocks, snippets: page });
  }
  for (const page of wholeTextPages()) {
    const { text, blocks } = rulesPass(page.html);
    const shingles = shingleSet(page.truth);
    const truthTokens = tokens(page.truth.toLowerCase()).join(' ');
    for (const b of blocks) b.label = wholeTextLabel(b.text, shingles, truthTokens);
    let site = page.url;
    try {
      const host = new URL(page.url).hostname;
      site = getDomain(host) ?? host;
    } catch {
      // the URL as the site
    }
    out.push({ corpus: 'whole', site, html: page.html, url: page.url, text, blocks, truth: page });
  }
  return out;
}

export interface TrainOptions {
  trees: number;
  depth: number;
  /** Shrinkage of each tree's leaves. */
  rate: number;
  /** L2 on the leaves' scores. */
  lambda: number;
  /** Split points tried per feature (its quantiles in the samples). */
  bins: number;
  /** Fewest samples' weight (hessian) a leaf may hold. */
  minLeaf: number;
}

export const TRAIN_OPTIONS: TrainOptions = { trees: 60, depth: 4, rate: 0.15, lambda: 2, bins: 32, minLeaf: 5 };

/**
 * Gradient-boosted trees on the logistic loss (second order, as XGBoost; splits from per-feature
 * histograms over quantile bins). `y` is 1 for content. Deterministic.
 */
export function fitTrees(x: number[][], y: number[], o: TrainOptions = TRAIN_OPTIONS, w?: number[]): Pick<BlockModel, 'base' | 'trees'> {
  const F = x[0]?.length ?? 0;
  const n = x.length;
  const cuts = Array.from({ length: F }, (_, f) => {
    const values = [...new Set(x.map((r) => r[f]!))].sort((a, b) => a - b);
    if (values.length <= o.bins) return values.slice(0, -1);
    return [...new Set(Array.from({ length: o.bins - 1 }, (_, k) => values[Math.floor(((k + 1) * values.length) / o.bins)]!))];
  });
  // Each sample's bin per feature: the first cut at or above its value.
  const bin = new Uint8Array(n * F);
  for (let i = 0; i < n; i++)
    for (let f = 0; f < F; f++) {
      const c = cuts[f]!;
      let b = 0;
      while (b < c.length && x[i]![f]! > c[b]!) b++;
      bin[i * F + f] = b;
    }
  const share = Math.min(1 - 1e-6, Math.max(1e-6, y.reduce((a, b) => a + b, 0) / Math.max(1, n)));
  const round = (v: number) => Math.round(v * 1e5) / 1e5;
  const base = round(Math.log(share / (1 - share)));
  const score = new Float64Array(n).fill(base);
  const g = new Float64Array(n);
  const h = new Float64Array(n);
  const trees: TreeNode[][] = [];
  for (let t = 0; t < o.trees; t++) {
    for (let i = 0; i < n; i++) {
      const p = 1 / (1 + Math.exp(-score[i]!));
      const weight = w?.[i] ?? 1;
      g[i] = (p - y[i]!) * weight;
      h[i] = Math.max(1e-6, p * (1 - p)) * weight;
    }
    const tree: TreeNode[] = [];
    const grow = (rows: Int32Array, depth: number): number => {
      const at = tree.length;
      tree.push({ v: 0 });
      let G = 0;
      let H = 0;
      for (const i of rows) {
        G += g[i]!;
        H += h[i]!;
      }
      let best = { gain: 1e-9, f: -1, b: 0 };
      if (depth > 0 && H >= 2 * o.minLeaf) {
        const hg = new Float64Array(F * (o.bins + 1));
        const hh = new Float64Array(F * (o.bins + 1));
        for (const i of rows)
          for (let f = 0; f < F; f++) {
            const k = f * (o.bins + 1) + bin[i * F + f]!;
            hg[k]! += g[i]!;
            hh[k]! += h[i]!;
          }
        const parent = (G * G) / (H + o.lambda);
        for (let f = 0; f < F; f++) {
          let gl = 0;
          let hl = 0;
          for (let b = 0; b < cuts[f]!.length; b++) {
            gl += hg[f * (o.bins + 1) + b]!;
            hl += hh[f * (o.bins + 1) + b]!;
            const hr = H - hl;
            if (hl < o.minLeaf || hr < o.minLeaf) continue;
            const gain = (gl * gl) / (hl + o.lambda) + ((G - gl) * (G - gl)) / (hr + o.lambda) - parent;
            if (gain > best.gain) best = { gain, f, b };
          }
        }
      }
      if (best.f < 0) {
        tree[at] = { v: round((-G / (H + o.lambda)) * o.rate) };
        return at;
      }
      const node = { f: best.f, t: cuts[best.f]![best.b]!, l: 0, r: 0 };
      tree[at] = node;
      const left = rows.filter((i) => bin[i * F + best.f]! <= best.b);
      const right = rows.filter((i) => bin[i * F + best.f]! > best.b);
      node.l = grow(left, depth - 1);
      node.r = grow(right, depth - 1);
      return at;
    };
    grow(
      Int32Array.from({ length: n }, (_, i) => i),
      o.depth,
    );
    trees.push(tree);
    for (let i = 0; i < n; i++) {
      let node = tree[0]!;
      while (!('v' in node)) node = tree[x[i]![node.f]! <= node.t ? node.l : node.r]!;
      score[i]! += node.v;
    }
  }
  return { base, trees };
}

/** A page's text as the model would make it, quickly: dropped blocks cut from the rules' text, added ones appended. */
function approxText(p: TrainPage, probs: number[], dropBelow: number, addAbove: number): string {
  let text = p.text;
  const added: string[] = [];
  p.blocks.forEach((b, i) => {
    if (!b.text) return;
    if (b.inside && probs[i]! < dropBelow) text = text.replace(b.text, ' ');
    else if (!b.inside && probs[i]! > addAbove && !isFurnitureLine(b.text)) added.push(b.text);
  });
  return added.length ? `${text} ${added.join(' ')}` : text;
}

/** Both corpora's scores of some pages' texts: snippet F1 and whole-text F1. */
export function scoreTexts(pages: TrainPage[], texts: string[]): { snippets: Counts; whole: Array<{ p: number | null; r: number | null }> } {
  const snippets = zeroCounts();
  const whole: Array<{ p: number | null; r: number | null }> = [];
  pages.forEach((p, i) => {
    if (p.snippets) countPage(snippets, p.snippets, norm(texts[i]!));
    else if (p.truth) whole.push(pageScore(p.truth.truth, texts[i]!));
  });
  return { snippets, whole };
}

const f1OfCounts = (c: Counts) => prf(c.tp, c.fp, c.fn).f1;
/** The objective a model's thresholds are chosen by: the mean of the two corpora's F1. */
export const objective = (s: ReturnType<typeof scoreTexts>) => (f1OfCounts(s.snippets) + wholeTextF1(s.whole).f1) / 2;

const DROP_BELOW = [0, 0.05, 0.1, 0.2, 0.3];
const ADD_ABOVE = [0.5, 0.6, 0.7, 0.8, 0.9, 1.01];
/** Inner folds whose out-of-fold probabilities choose the thresholds (in-sample ones are too sure of themselves). */
const INNER = 3;

/** Labelled blocks, each weighed by its length (the whole-text score counts words, so a long block's mistake costs more). */
function samplesOf(pages: TrainPage[]): { x: number[][]; y: number[]; w: number[] } {
  const x: number[][] = [];
  const y: number[] = [];
  const w: number[] = [];
  for (const p of pages)
    for (const b of p.blocks)
      if (b.label !== undefined) {
        x.push(b.features);
        y.push(b.label);
        w.push(1 + Math.log1p(b.text.length / 100));
      }
  return { x, y, w };
}

/**
 * Fits a model on the labelled blocks of `pages`, and chooses its two thresholds on the same pages
 * by probabilities each page got from trees fitted without its site (inner folds by site).
 */
export function fitBlockModel(pages: TrainPage[], trainedOn: string, o: TrainOptions = TRAIN_OPTIONS): BlockModel {
  const { x, y, w } = samplesOf(pages);
  const model: BlockModel = { features: [...BLOCK_FEATURES], ...fitTrees(x, y, o, w), dropBelow: 0, addAbove: 1.01, trainedOn };
  const probs: number[][] = new Array(pages.length);
  for (let f = 0; f < INNER; f++) {
    const inner = samplesOf(pages.filter((p) => foldOf(`inner:${p.site}`, INNER) !== f));
    const m: BlockModel = { ...model, ...fitTrees(inner.x, inner.y, o, inner.w) };
    pages.forEach((p, i) => {
      if (foldOf(`inner:${p.site}`, INNER) === f) probs[i] = p.blocks.map((b) => contentProbability(m, b.features));
    });
  }
  let best = {
    dropBelow: 0,
    addAbove: 1.01,
    score: objective(
      scoreTexts(
        pages,
        pages.map((p) => p.text),
      ),
    ),
  };
  for (const dropBelow of DROP_BELOW)
    for (const addAbove of ADD_ABOVE) {
      const score = objective(
        scoreTexts(
          pages,
          pages.map((p, i) => approxText(p, probs[i]!, dropBelow, addAbove)),
        ),
      );
      if (score > best.score + 1e-9) best = { dropBelow, addAbove, score };
    }
  return { ...model, dropBelow: best.dropBelow, addAbove: best.addAbove };
}

export interface CorpusFigures {
  snippets: { precision: number; recall: number; f1: number };
  whole: { precision: number; recall: number; f1: number; byType: Record<string, number> };
}

/** Both corpora's figures of some pages' texts, the whole text by page type too. */
export function figures(pages: TrainPage[], texts: string[]): CorpusFigures {
  const s = scoreTexts(pages, texts);
  const byType: Record<string, Array<{ p: number | null; r: number | null }>> = {};
  let w = 0;
  pages.forEach((p) => {
    if (!p.truth) return;
    (byType[p.truth.type] ??= []).push(s.whole[w++]!);
  });
  return {
    snippets: prf(s.snippets.tp, s.snippets.fp, s.snippets.fn),
    whole: { ...wholeTextF1(s.whole), byType: Object.fromEntries(Object.entries(byType).map(([t, v]) => [t, wholeTextF1(v).f1])) },
  };
}

/**
 * A generated module holding a model as data: its fields on the first line, then one tree a line
 * (prettier leaves it alone, see .prettierignore). The same model writes the same bytes.
 */
export function modelModule(script: string, declaration: string, model: TreeModel): string {
  const { trees, ...fields } = model;
  const head = JSON.stringify(fields).slice(0, -1);
  return (
    `// Generated by \`npm run ${script}\`: do not edit.\nimport type { TreeModel } from '../util/boosted-trees.js';\n\n` +
    `export const ${declaration} = ${head},"trees":[\n${trees.map((t) => JSON.stringify(t)).join(',\n')}\n]};\n`
  );
}
