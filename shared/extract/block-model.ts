import type { Element } from 'domhandler';
import { isTag } from 'domhandler';
import { removeElement } from 'domutils';
import { contains, textOf } from './dom.js';
import { blockFeatures, BLOCK_FEATURES, type JudgedBlock, type PageSignals, type PageType } from './block-features.js';
import { CELLS, isFurnitureLine, leafBlocks, outermost } from './content-blocks.js';
import type { PageModel } from './page-model.js';
import { SHIPPED_BLOCK_MODEL } from './block-model-data.js';
import { fittedOn, ModelSlot, treeProbability, type TreeModel } from '../util/boosted-trees.js';

/*
 * The learned block model: gradient-boosted trees over the named block features, fitted by
 * `npm run train:extract` on both extraction corpora and shipped as data (block-model-data.ts). It
 * judges every leaf block once the rules have chosen the content: a block inside the choice that it
 * is sure is boilerplate goes, a block outside that it is sure is content joins; where it is unsure,
 * the rules' choice stands.
 */

export type { TreeNode } from '../util/boosted-trees.js';

export interface BlockModel extends TreeModel {
  /** A block inside the rules' choice goes when its probability of being content is under this. */
  dropBelow: number;
  /** A block outside it joins when its probability is over this. */
  addAbove: number;
  /** What it was fitted on, for the record. */
  trainedOn: string;
}

const squash = (s: string) => s.replace(/\s+/g, ' ').trim();

/** An outside block with more of its text in links than this is never a candidate (menus, link lists). */
export const CANDIDATE_LINK_DENSITY = 0.6;

const slot = new ModelSlot<BlockModel>(usable(SHIPPED_BLOCK_MODEL));

function usable(m: BlockModel | null): BlockModel | null {
  return fittedOn(m, BLOCK_FEATURES) ? m : null;
}

/** Runs `f` with another model (`null`: the rules alone), as the training's cross-validation does. */
export function withBlockModel<T>(model: BlockModel | null, f: () => T): T {
  return slot.with(model, f);
}

/** The model in use, or null for the rules alone. */
export function activeBlockModel(): BlockModel | null {
  return slot.get();
}

/** A block's probability of being content. */
export const contentProbability: (m: BlockModel, features: number[]) => number = treeProbability;

/** The page's candidate blocks in document order, inside and out, with their features. */
export function judgeContent(model: PageModel, nodes: Element[], type: PageType, wanted?: (el: Element, inside: boolean) => boolean): JudgedBlock[] {
  const inside = new Set(leafBlocks(model, nodes));
  const all = leafBlocks(
    model,
    model.body.children.filter((c): c is Element => isTag(c)),
  ).filter((b) => inside.has(b) || (model.linkDensity(b) <= CANDIDATE_LINK_DENSITY && !nodes.some((n) => contains(b, n))));
  const seen = new Set(all);
  for (const b of inside) if (!seen.has(b)) all.push(b);
  all.sort((a, b) => model.indexOf(a) - model.indexOf(b));
  const body = model.statsOf(model.body);
  const page: PageSignals = {
    type,
    linkShare: body.len ? body.links / body.len : 0,
    listShare: all.length ? all.filter((b) => b.name === 'li').length / all.length : 0,
  };
  return blockFeatures(model, all, inside, page, wanted && ((el) => wanted(el, inside.has(el))));
}

/**
 * The rules' choice (`nodes`) as the model would have it: inside blocks it is sure are boilerplate
 * removed from the tree, outside blocks it is sure are content added; in document order. `onJudged`
 * sees every candidate block (the training's samples).
 */
export function applyBlockModel(model: PageModel, nodes: Element[], type: PageType, onJudged?: (blocks: JudgedBlock[]) => void): Element[] {
  const m = slot.get();
  if ((!m && !onJudged) || nodes.length === 0) return nodes;
  // A model that drops nothing (its threshold at 0) needs the features of the blocks outside only.
  const judged = judgeContent(model, nodes, type, onJudged || !m || m.dropBelow > 0 ? undefined : (_el, inside) => !inside);
  onJudged?.(judged);
  if (!m) return nodes;
  const added: Element[] = [];
  const dropped = new Set<Element>();
  let insideTexts: Set<string> | undefined;
  for (const b of judged) {
    const p = contentProbability(m, b.features);
    // A table's cell is never dropped alone: its row's columns would shift.
    if (b.inside && p < m.dropBelow && !CELLS.has(b.el.name)) {
      removeElement(b.el);
      dropped.add(b.el);
    } else if (!b.inside && p > m.addAbove) {
      // A copy of a block the content holds (a teaser, a second copy of the article) never joins.
      // Nor does a line the rules never keep (a date line, an appeal, share buttons).
      insideTexts ??= new Set(leafBlocks(model, nodes).map((el) => squash(textOf(el))));
      const text = squash(textOf(b.el));
      if (!insideTexts.has(text) && !isFurnitureLine(text)) added.push(b.el);
    }
  }
  const kept = dropped.size ? nodes.filter((n) => !dropped.has(n)) : nodes;
  if (!added.length) return kept;
  return outermost([...kept, ...added]).sort((a, b) => model.indexOf(a) - model.indexOf(b));
}
