/*
 * Gradient-boosted trees as data: what a learned model of trawl ships (the block model of the
 * extraction, the tag ranker), fitted by the repo's training scripts and evaluated here.
 */

/** A node of a tree: a split (feature index, threshold, children's indexes) or a leaf's score. */
export type TreeNode = { f: number; t: number; l: number; r: number } | { v: number };

/** Trees over named features, with the base score they add to. */
export interface TreeModel {
  /** The feature names the trees were fitted on, in order (a file fitted on others is not used). */
  features: readonly string[];
  base: number;
  trees: TreeNode[][];
}

/** A sample's probability: the base score plus every tree's leaf, through the logistic. */
export function treeProbability(m: TreeModel, features: number[]): number {
  let z = m.base;
  for (const tree of m.trees) {
    let node = tree[0]!;
    while (!('v' in node)) node = tree[features[node.f]! <= node.t ? node.l : node.r]!;
    z += node.v;
  }
  return 1 / (1 + Math.exp(-z));
}

/** Whether a model was fitted on exactly these features, in this order. */
export function fittedOn(m: TreeModel | null | undefined, features: readonly string[]): boolean {
  return !!m && m.features.length === features.length && m.features.every((f, i) => f === features[i]);
}

/** The model in use, swapped for another while a function runs (as the training's cross-validation does). */
export class ModelSlot<T> {
  constructor(private current: T | null) {}

  get(): T | null {
    return this.current;
  }

  with<R>(model: T | null, f: () => R): R {
    const before = this.current;
    this.current = model;
    try {
      return f();
    } finally {
      this.current = before;
    }
  }
}
