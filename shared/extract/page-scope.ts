import { type AnyNode, type Element, isTag, isText } from 'domhandler';
import { keepChildren, selectFirst, type Doc } from './dom.js';
import { NEVER_CONTENT } from './content-rules.js';
import { pruneNeverContent } from './page-model.js';
import type { PageType } from './block-features.js';
import { SHIPPED_SCOPE_MODEL } from './scope-model-data.js';
import { fittedOn, ModelSlot, treeProbability, type TreeModel } from '../util/boosted-trees.js';

/*
 * The learned choice of scope: some pages are no article (a listing, a collection, a product, a
 * documentation index), and their main text is the page's whole main region, not one container of
 * it. Trees fitted by `npm run train:extract` on both extraction corpora (scope-model-data.ts) judge,
 * from signals of the page and of the rules' choice, whether the region (its `<main>`, else the
 * body, with navigation, header, footer, asides and forms taken out) is the better text; where they
 * are unsure, the rules' choice stands.
 */

/** Elements the page's region never includes: the page's navigation, header, footer, asides and forms. */
const REGION_FURNITURE = new Set(['nav', 'header', 'footer', 'aside', 'form']);
const FURNITURE_ROLES = new Set(['navigation', 'banner', 'contentinfo', 'complementary', 'search']);
const HEADINGS = new Set(['h1', 'h2', 'h3', 'h4', 'h5', 'h6']);
const METHODS = ['container', 'classifier', 'relaxed', 'body'] as const;
const TYPES: PageType[] = ['article', 'product', 'forum', 'listing', 'documentation'];

/** The scope model's features, in order (a model fitted on others is not used). */
export const SCOPE_FEATURES = [
  ...TYPES.map((t) => `type-${t}`),
  ...METHODS.map((m) => `method-${m}`),
  'log-chosen-length',
  'log-region-length',
  'chosen-share-of-region',
  'region-link-density',
  'region-list-share',
  'region-cell-share',
  'log-region-headings',
  'log-region-paragraphs',
  'log-articles',
  'has-main',
  'chosen-link-density',
  'chosen-list-share',
  'log-chosen-paragraphs',
  'log-extra-length',
  'extra-link-density',
  'extra-list-share',
  'log-region-prices',
  'log-region-times',
] as const;

export interface ScopeModel extends TreeModel {
  /** The region replaces the rules' choice when its probability of being the better text is over this. */
  above: number;
  /** What it was fitted on, for the record. */
  trainedOn: string;
}

/** What a part of the page holds: its text's length, in links, list items and table cells, and its structure. */
export interface TextStats {
  length: number;
  links: number;
  listText: number;
  cellText: number;
  headings: number;
  paragraphs: number;
  articles: number;
  prices: number;
  times: number;
}

/** What the page's region holds, read before the content pass prunes the tree. */
export interface RegionStats extends TextStats {
  type: PageType;
  hasMain: boolean;
}

const PRICE = /(?:[$€£¥₹]\s?\d|\d[\d.,]*\s?(?:€|EUR|USD|zł|kr)\b)/g;

function isRegionFurniture(el: Element): boolean {
  return REGION_FURNITURE.has(el.name) || FURNITURE_ROLES.has(el.attribs.role ?? '');
}

/** The page's main region: its `<main>` (or `role="main"`), else its body. */
function regionOf(doc: Doc): Element | null {
  return selectFirst(doc, 'main') ?? selectFirst(doc, '[role="main"]') ?? selectFirst(doc, 'body');
}

/** One walk over some nodes (with `skipFurniture`, the region's furniture left out); never-content is skipped. */
export function textStats(nodes: AnyNode[], skipFurniture: boolean): TextStats {
  const s: TextStats = { length: 0, links: 0, listText: 0, cellText: 0, headings: 0, paragraphs: 0, articles: 0, prices: 0, times: 0 };
  const walk = (node: AnyNode, inLink: boolean, inList: boolean, inCell: boolean): number => {
    if (isText(node)) {
      const text = node.data.replace(/\s+/g, ' ').trim();
      const n = text.length;
      s.length += n;
      if (inLink) s.links += n;
      if (inList) s.listText += n;
      if (inCell) s.cellText += n;
      if (n && /\d/.test(text)) s.prices += text.match(PRICE)?.length ?? 0;
      return n;
    }
    if (!isTag(node) || NEVER_CONTENT.has(node.name) || (skipFurniture && isRegionFurniture(node))) return 0;
    if (HEADINGS.has(node.name)) s.headings++;
    else if (node.name === 'article') s.articles++;
    else if (node.name === 'time') s.times++;
    let n = 0;
    for (const child of node.children)
      n += walk(child, inLink || node.name === 'a', inList || node.name === 'li', inCell || node.name === 'td' || node.name === 'th');
    if (node.name === 'p' && n >= 80) s.paragraphs++;
    return n;
  };
  for (const node of nodes) walk(node, false, false, false);
  return s;
}

/** The page's region's measures, read before the content pass prunes the tree. */
export function regionStats(doc: Doc, type: PageType): RegionStats {
  const root = regionOf(doc);
  return { ...textStats(root ? [root] : [], true), type, hasMain: !!root && root.name !== 'body' };
}

/** The scope model's features of a page: its region, the rules' choice (`method`, `chosen`) and what the region holds beyond it. */
export function scopeFeatures(region: RegionStats, method: string, chosen: TextStats): number[] {
  const len = Math.max(1, region.length);
  const own = Math.max(1, chosen.length);
  const extra = Math.max(0, region.length - chosen.length);
  const share = (a: number, b: number) => (extra > 0 ? Math.min(1, Math.max(0, a - b) / extra) : 0);
  return [
    ...TYPES.map((t) => (region.type === t ? 1 : 0)),
    ...METHODS.map((m) => (method === m ? 1 : 0)),
    Math.log1p(chosen.length),
    Math.log1p(region.length),
    Math.min(2, chosen.length / len),
    region.links / len,
    region.listText / len,
    region.cellText / len,
    Math.log1p(region.headings),
    Math.log1p(region.paragraphs),
    Math.log1p(region.articles),
    region.hasMain ? 1 : 0,
    chosen.links / own,
    chosen.listText / own,
    Math.log1p(chosen.paragraphs),
    Math.log1p(extra),
    share(region.links, chosen.links),
    share(region.listText, chosen.listText),
    Math.log1p(region.prices),
    Math.log1p(region.times),
  ];
}

/** The page's region as content: never-content pruned, furniture taken out (the tree is pruned in place). */
export function regionNodes(doc: Doc): Element[] {
  const root = regionOf(doc);
  if (!root) return [];
  pruneNeverContent(root);
  const strip = (el: Element) => {
    const kept: AnyNode[] = [];
    for (const child of el.children) {
      if (isTag(child)) {
        if (isRegionFurniture(child)) continue;
        strip(child);
      }
      kept.push(child);
    }
    keepChildren(el, kept);
  };
  strip(root);
  return [root];
}

const slot = new ModelSlot<ScopeModel>(fittedOn(SHIPPED_SCOPE_MODEL, SCOPE_FEATURES) ? SHIPPED_SCOPE_MODEL : null);

/** Runs `f` with another scope model (`null`: the rules' choice always stands), as the training's cross-validation does. */
export function withScopeModel<T>(model: ScopeModel | null, f: () => T): T {
  return slot.with(model, f);
}

/** The scope model in use, or null. */
export function activeScopeModel(): ScopeModel | null {
  return slot.get();
}

/** Whether the region is the better text, by a model. */
export function regionWins(m: ScopeModel, features: number[]): boolean {
  return treeProbability(m, features) > m.above;
}

/** A region's probability of being the better text. */
export const regionProbability: (m: ScopeModel, features: number[]) => number = treeProbability;
