// The learned tag ranker's training and cross-validation, for `npm run train:tags` and bench:tags:
// every candidate tag of the four keyphrase datasets' documents (the rules' candidates, with their
// features), labelled by the gold keys (by stem, after the corpus README's normalisation), boosted
// trees fitted on them, the threshold a tag must clear chosen on the training documents, and k-fold
// cross-validation (folds by a hash of each document's id) scored as bench:tags scores: F1@10.
import { createHash } from 'node:crypto';
import { keyphraseTags, tagCandidates, TAG_FEATURES, type TagModel } from '../shared/enrich/local-tags.js';
import { stem, words } from '../shared/enrich/text.js';
import { fitTrees, type TrainOptions } from './block-training.js';
import { corpusStats, DATASETS, norm, score, tfidfBaseline, type Doc } from './keyphrase-corpus.js';

export interface TagSet {
  name: string;
  docs: Doc[];
  stats: ReturnType<typeof corpusStats>;
  /** Each document's candidates' features and labels (1: a gold key). */
  samples: Array<{ x: number[][]; y: number[] }>;
  baseline: Map<string, string[]>;
}

const TAG_TRAIN: TrainOptions = { trees: 60, depth: 4, rate: 0.15, lambda: 2, bins: 32, minLeaf: 5 };
const THRESHOLDS = [0, 0.05, 0.1, 0.15, 0.2, 0.3, 0.4];

/** A key as the candidates key it: the stems of its normalised words. */
const keyOf = (phrase: string, language?: string) =>
  words(norm(phrase))
    .map((w) => stem(w, language))
    .join(' ');

export function tagSets(): TagSet[] {
  return DATASETS.flatMap((set) => {
    let docs: Doc[];
    try {
      docs = set.docs();
    } catch {
      return [];
    }
    if (!docs.length) return [];
    const stats = corpusStats(docs);
    const samples = docs.map((d) => {
      const gold = new Set(d.gold.map((g) => keyOf(g, d.language)));
      const candidates = tagCandidates(d.title, d.text, d.language ?? 'en', stats);
      return { x: candidates.map((c) => c.features), y: candidates.map((c) => (gold.has(c.key) ? 1 : 0)) };
    });
    return [{ name: set.name, docs, stats, samples, baseline: tfidfBaseline(docs) }];
  });
}

export const foldOfDoc = (set: string, id: string, k: number) => createHash('sha256').update(`${set}:${id}`).digest().readUInt32BE(0) % k;

function meanF1(set: TagSet, indexes: number[], model: TagModel | null): number {
  let sum = 0;
  for (const i of indexes) {
    const d = set.docs[i]!;
    sum += score(keyphraseTags(d.title, d.text, d.language ?? 'en', set.stats, { model }), d.gold, 10).f;
  }
  return indexes.length ? sum / indexes.length : 0;
}

/** Fits the ranker on the given documents of each set, and its threshold on the same documents (mean F1@10 over the sets). */
export function fitTagModel(sets: TagSet[], pick: (set: TagSet, i: number) => boolean, trainedOn: string): TagModel {
  const x: number[][] = [];
  const y: number[] = [];
  const w: number[] = [];
  for (const set of sets) {
    // Each set weighs the same: the few news pages count as much as the many abstracts.
    const weight = sets.reduce((n, s) => n + s.docs.length, 0) / sets.length / set.docs.length;
    set.samples.forEach((s, i) => {
      if (!pick(set, i)) return;
      x.push(...s.x);
      y.push(...s.y);
      for (let j = 0; j < s.y.length; j++) w.push(weight);
    });
  }
  const model: TagModel = { features: [...TAG_FEATURES], ...fitTrees(x, y, TAG_TRAIN, w), threshold: 0, trainedOn };
  let best = { threshold: 0, f: -1 };
  for (const threshold of THRESHOLDS) {
    const m = { ...model, threshold };
    const f =
      sets.reduce(
        (acc, set) =>
          acc +
          meanF1(
            set,
            set.docs.map((_, i) => i).filter((i) => pick(set, i)),
            m,
          ),
        0,
      ) / sets.length;
    if (f > best.f + 1e-9) best = { threshold, f };
  }
  return { ...model, threshold: best.threshold };
}

export interface TagFigures {
  set: string;
  docs: number;
  rules: number;
  learned: number;
  tfidf: number;
}

/** k-fold cross-validation: each fold's ranker fitted on the other folds of every set, scored (F1@10) on the fold's documents. */
export function crossValidateTags(sets: TagSet[], k: number): { figures: TagFigures[]; thresholds: number[] } {
  const learned = new Map<string, number>();
  const thresholds: number[] = [];
  for (let f = 0; f < k; f++) {
    const model = fitTagModel(sets, (set, i) => foldOfDoc(set.name, set.docs[i]!.id, k) !== f, `folds other than ${f}`);
    thresholds.push(model.threshold);
    for (const set of sets) {
      const held = set.docs.map((_, i) => i).filter((i) => foldOfDoc(set.name, set.docs[i]!.id, k) === f);
      learned.set(set.name, (learned.get(set.name) ?? 0) + meanF1(set, held, model) * held.length);
    }
  }
  const figures = sets.map((set) => {
    const all = set.docs.map((_, i) => i);
    const tfidf = set.docs.reduce((acc, d) => acc + score(set.baseline.get(d.id)!, d.gold, 10).f, 0) / set.docs.length;
    return { set: set.name, docs: set.docs.length, rules: meanF1(set, all, null), learned: learned.get(set.name)! / set.docs.length, tfidf };
  });
  return { figures, thresholds };
}
