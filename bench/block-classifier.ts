import type { Element } from 'domhandler';
import * as stopwords from 'stopword';
import { parentElement, textOf } from '../shared/extract/dom.js';
import { isDateline } from '../shared/extract/dateline.js';
import { classSign, type PageModel } from '../shared/extract/page-model.js';

/*
 * bench:extract's block-classifier experiment: a few shallow boosted trees that judge
 * each block left inside the chosen content once the rules are done (captions, "read also" boxes,
 * author and date lines, appeals written as ordinary paragraphs), from features with names, and
 * remove those they are confident about. Fitted per fold on the extraction corpus's labels (a block
 * holding a with-snippet is content, one holding a without-snippet is boilerplate), sites held out,
 * deterministically. Cross-validated it bought +0.001 F1 and nothing at token level, so the
 * extraction does not ship it (docs/extraction.md); the bench keeps measuring it.
 */

/** A trained model: boosted trees over the named features, and the probability above which a block is dropped. */
export interface BlockModel {
  features: string[];
  base: number;
  trees: TreeNode[][];
  threshold: number;
  /** What it was trained on, for the record. */
  trainedOn: string;
}

/** A block of the content as the classifier sees it: for training, the bench, and the drop itself. */
export interface JudgedBlock {
  el: Element;
  text: string;
  features: number[];
}

const SENTENCE_END = /[.!?。！？…]["”’»)]?$/;
const LABEL_END = /[:：»›>|]$/;
const CAPTION_TAGS = new Set(['figcaption', 'caption', 'figure', 'picture']);
const LIST_TAGS = new Set(['li', 'ul', 'ol', 'dl', 'dd', 'dt']);
const QUOTE_TAGS = new Set(['blockquote', 'q', 'cite']);
const EMPHASIS_TAGS = new Set(['strong', 'b', 'em', 'i', 'small']);

let stopSet: Set<string> | undefined;
/** Stopwords of the languages most pages are in: a block of prose has many, a label or a byline few. */
function stopwordSet(): Set<string> {
  const lists = stopwords as unknown as Record<string, string[]>;
  stopSet ??= new Set(
    ['eng', 'deu', 'fra', 'spa', 'ita', 'por', 'nld', 'pol', 'ces', 'swe', 'dan', 'nob', 'fin', 'hun', 'ron', 'rus', 'ukr', 'tur'].flatMap(
      (l) => lists[l] ?? [],
    ),
  );
  return stopSet;
}

/** The feature names, in the order `blockFeatures` computes them. */
export const BLOCK_FEATURES = [
  'log-length',
  'words-under-6',
  'link-density',
  'tag-p',
  'tag-heading',
  'tag-list',
  'tag-cell',
  'tag-other',
  'in-caption',
  'in-quote',
  'all-emphasis',
  'class-boilerplate',
  'class-content',
  'position',
  'first-block',
  'last-blocks',
  'sentence-end',
  'label-end',
  'commas-per-100',
  'digit-share',
  'upper-share',
  'stopword-share',
  'dateline',
  'share-of-content',
  'prev-log-length',
  'next-log-length',
  'prev-link-density',
  'next-link-density',
  'label-prefix',
  'copyright-or-credit',
  'address-or-url',
  'exclaims-or-asks',
  'pipe-or-bullets',
] as const;

/** "Read more:", "Quelle:", "PUEDES VER:": a few words and a colon opening the block. */
const LABEL_PREFIX = /^[\p{L}\p{N} '’.-]{2,30}[:：]\s/u;
const CREDIT = /[©®℗]|\((?:foto|photo|bild|source|quelle|fuente|crédito)/iu;
const ADDRESS = /@[\w-]+\.|www\.|https?:\/\/|\+?\d[\d ()/-]{7,}\d/i;
const EXCLAIMS = /[!?¡¿]/;
const PIPES = /[|•·»›*]/;

const logLen = (n: number) => Math.log1p(n) / 8;

/** Features of each block, given the content's roots (`nodes`) and its blocks in document order. */
export function judgeBlocks(model: PageModel, blocks: Element[], nodes: Element[]): JudgedBlock[] {
  const roots = new Set(nodes);
  const stop = stopwordSet();
  const lens = blocks.map((b) => model.statsOf(b).len);
  const total = lens.reduce((a, b) => a + b, 0) || 1;
  const lds = blocks.map((b) => model.linkDensity(b));
  return blocks.map((el, i) => {
    const text = textOf(el);
    const len = lens[i]!;
    const words = text.split(/\s+/).filter(Boolean);
    const letters = text.replace(/[^\p{L}]/gu, '');
    const upper = text.replace(/[^\p{Lu}]/gu, '').length;
    const digits = text.replace(/[^\d]/g, '').length;
    let caption = 0;
    let quote = 0;
    let bad = 0;
    let good = 0;
    for (let a: Element | null = el; a && !roots.has(a); a = parentElement(a)) {
      if (CAPTION_TAGS.has(a.name)) caption = 1;
      if (QUOTE_TAGS.has(a.name)) quote = 1;
      const sign = classSign(a);
      if (sign < 0) bad = 1;
      else if (sign > 0) good = 1;
    }
    const tagChildren = el.children.filter((c) => c.type === 'tag') as Element[];
    const emphasis = tagChildren.length === 1 && EMPHASIS_TAGS.has(tagChildren[0]!.name) && textOf(tagChildren[0]).length >= 0.9 * text.length ? 1 : 0;
    const heading = /^h[1-6]$/.test(el.name);
    const f = [
      logLen(len),
      words.length < 6 ? 1 : 0,
      lds[i]!,
      el.name === 'p' ? 1 : 0,
      heading ? 1 : 0,
      LIST_TAGS.has(el.name) ? 1 : 0,
      el.name === 'td' || el.name === 'th' ? 1 : 0,
      el.name !== 'p' && !heading && !LIST_TAGS.has(el.name) && el.name !== 'td' && el.name !== 'th' ? 1 : 0,
      caption,
      quote,
      emphasis,
      bad,
      good,
      blocks.length > 1 ? i / (blocks.length - 1) : 0,
      i === 0 ? 1 : 0,
      i >= blocks.length - 3 ? 1 : 0,
      SENTENCE_END.test(text) ? 1 : 0,
      LABEL_END.test(text) ? 1 : 0,
      Math.min(5, (100 * model.statsOf(el).commas) / Math.max(1, len)),
      digits / Math.max(1, len),
      upper / Math.max(1, letters.length),
      words.length ? words.filter((w: string) => stop.has(w.toLowerCase().replace(/[^\p{L}]/gu, ''))).length / words.length : 0,
      len <= 120 && isDateline(text) ? 1 : 0,
      len / total,
      i > 0 ? logLen(lens[i - 1]!) : 0,
      i < blocks.length - 1 ? logLen(lens[i + 1]!) : 0,
      i > 0 ? lds[i - 1]! : 0,
      i < blocks.length - 1 ? lds[i + 1]! : 0,
      LABEL_PREFIX.test(text) ? 1 : 0,
      CREDIT.test(text) ? 1 : 0,
      ADDRESS.test(text) ? 1 : 0,
      EXCLAIMS.test(text) ? 1 : 0,
      PIPES.test(text) ? 1 : 0,
    ];
    return { el, text, features: f };
  });
}

/** A node of a tree: a split (feature index, threshold, children's indexes) or a leaf's score. */
export type TreeNode = { f: number; t: number; l: number; r: number } | { v: number };

/** Each block's probability that it is boilerplate: the base score plus every tree's leaf, through the logistic. */
export function boilerplateProbability(m: BlockModel, features: number[]): number {
  let z = m.base;
  for (const tree of m.trees) z += leafOf(tree, features);
  return 1 / (1 + Math.exp(-z));
}

function leafOf(tree: TreeNode[], features: number[]): number {
  let node = tree[0]!;
  while (!('v' in node)) node = tree[features[node.f]! <= node.t ? node.l : node.r]!;
  return node.v;
}

/** A training example: a block's features, and 1 when it is boilerplate. */
export interface BlockSample {
  features: number[];
  boilerplate: 0 | 1;
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
}

export const TRAIN_OPTIONS: TrainOptions = { trees: 40, depth: 3, rate: 0.2, lambda: 1, bins: 16 };

/**
 * Fits gradient-boosted trees on the logistic loss (second-order, like XGBoost, on a grid of each
 * feature's quantiles). Deterministic: the same samples give the same trees.
 */
export function trainBlockModel(samples: BlockSample[], threshold: number, trainedOn: string, o: TrainOptions = TRAIN_OPTIONS): BlockModel {
  const x = samples.map((s) => s.features);
  const y = samples.map((s) => s.boilerplate);
  const splits = BLOCK_FEATURES.map((_, f) => {
    const values = [...new Set(x.map((r) => r[f]!))].sort((a, b) => a - b);
    if (values.length <= o.bins) return values.slice(0, -1);
    return Array.from({ length: o.bins - 1 }, (_, k) => values[Math.floor(((k + 1) * values.length) / o.bins)]!);
  });
  const share = Math.min(1 - 1e-6, Math.max(1e-6, y.reduce<number>((a, b) => a + b, 0) / Math.max(1, y.length)));
  const base = Math.log(share / (1 - share));
  const score = y.map(() => base);
  const trees: TreeNode[][] = [];
  const round = (v: number) => Math.round(v * 1e5) / 1e5;
  for (let t = 0; t < o.trees; t++) {
    const p = score.map((z) => 1 / (1 + Math.exp(-z)));
    const g = p.map((pi, i) => pi - y[i]!);
    const h = p.map((pi) => Math.max(1e-6, pi * (1 - pi)));
    const tree: TreeNode[] = [];
    const grow = (rows: number[], depth: number): number => {
      const at = tree.length;
      tree.push({ v: 0 });
      let G = 0;
      let H = 0;
      for (const i of rows) {
        G += g[i]!;
        H += h[i]!;
      }
      const parent = (G * G) / (H + o.lambda);
      let best = { gain: 1e-9, f: -1, t: 0 };
      if (depth > 0 && rows.length >= 10)
        for (let f = 0; f < splits.length; f++)
          for (const cut of splits[f]!) {
            let gl = 0;
            let hl = 0;
            for (const i of rows)
              if (x[i]![f]! <= cut) {
                gl += g[i]!;
                hl += h[i]!;
              }
            const hr = H - hl;
            if (hl < 1 || hr < 1) continue;
            const gain = (gl * gl) / (hl + o.lambda) + ((G - gl) * (G - gl)) / (hr + o.lambda) - parent;
            if (gain > best.gain) best = { gain, f, t: cut };
          }
      if (best.f < 0) {
        tree[at] = { v: round((-G / (H + o.lambda)) * o.rate) };
        return at;
      }
      const node = { f: best.f, t: best.t, l: 0, r: 0 };
      tree[at] = node;
      node.l = grow(
        rows.filter((i) => x[i]![best.f]! <= best.t),
        depth - 1,
      );
      node.r = grow(
        rows.filter((i) => x[i]![best.f]! > best.t),
        depth - 1,
      );
      return at;
    };
    grow(
      x.map((_, i) => i),
      o.depth,
    );
    trees.push(tree);
    for (let i = 0; i < x.length; i++) score[i]! += leafOf(tree, x[i]!);
  }
  return { features: [...BLOCK_FEATURES], base: round(base), trees, threshold, trainedOn };
}
