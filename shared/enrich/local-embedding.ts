import { stem, stopwordSet, words } from './text.js';
import type { Embedder, ModelStamp } from './providers.js';

/** Feature weights: whole stems carry meaning, character n-grams carry inflection and compounds, bigrams carry phrases. */
export interface HashingOptions {
  dimension: number;
  /** Character n-gram sizes taken from each content word (with boundary marks); empty for plain bag-of-words. */
  charNgrams: number[];
  wordWeight: number;
  charWeight: number;
  bigramWeight: number;
}

export const DEFAULT_HASHING: HashingOptions = { dimension: 512, charNgrams: [3, 4, 5], wordWeight: 1, charWeight: 0.6, bigramWeight: 0.5 };

/** FNV-1a, 32 bits: fast, stable across platforms and versions (the vectors must not change when Node does). */
export function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

function add(vector: Float32Array, feature: string, weight: number): void {
  const h = fnv1a(feature);
  // The sign from a high bit: collisions cancel out on average instead of piling up.
  vector[h % vector.length]! += h & 0x80000000 ? -weight : weight;
}

/**
 * A local text embedding by feature hashing: stems, word bigrams and character n-grams of content
 * words, log-scaled counts, L2-normalised. Needs no model and no fit, so a page's vector never
 * depends on what else was crawled; n-grams let "kitten" meet "kittens" and "immunisation" meet "immune".
 */
export function hashEmbedding(text: string, language: string | undefined, options: HashingOptions = DEFAULT_HASHING): Float32Array {
  const stop = stopwordSet(language);
  const counts = new Map<string, number>();
  const bump = (f: string, w: number) => counts.set(f, (counts.get(f) ?? 0) + w);
  const surface = new Map<string, number>();
  let previous: string | undefined;
  for (const w of words(text)) {
    if (stop.has(w) || w.length < 2) {
      previous = undefined;
      continue;
    }
    const s = stem(w, language);
    bump(`w:${s}`, options.wordWeight);
    if (previous) bump(`b:${previous} ${s}`, options.bigramWeight);
    previous = s;
    surface.set(w, (surface.get(w) ?? 0) + 1);
  }
  // Character n-grams once per distinct word, weighted by its count.
  for (const [w, count] of surface) {
    const marked = `<${w}>`;
    for (const n of options.charNgrams) {
      const weight = (count * options.charWeight) / Math.sqrt(Math.max(1, marked.length - n + 1));
      for (let i = 0; i + n <= marked.length; i++) bump(`c:${marked.slice(i, i + n)}`, weight);
    }
  }
  const vector = new Float32Array(options.dimension);
  for (const [feature, weight] of counts) add(vector, feature, Math.log1p(weight));
  return normalize(vector);
}

/** Scales a vector to unit length (a zero vector stays zero). */
export function normalize(vector: Float32Array): Float32Array {
  let sum = 0;
  for (const v of vector) sum += v * v;
  const norm = Math.sqrt(sum);
  if (norm > 0) for (let i = 0; i < vector.length; i++) vector[i]! /= norm;
  return vector;
}

/** Offline embeddings by feature hashing of words, bigrams and character n-grams. */
export class LocalEmbedder implements Embedder {
  readonly stamp: ModelStamp;
  readonly dimension: number;

  constructor(private readonly options: HashingOptions = DEFAULT_HASHING) {
    this.dimension = options.dimension;
    const grams = options.charNgrams.length ? `c${options.charNgrams.join('')}` : 'words';
    this.stamp = { provider: 'local', model: `hash-${grams}-${options.dimension}`, version: 'hash-v1' };
  }

  async embed(texts: string[], _purpose?: 'document' | 'query'): Promise<Float32Array[]> {
    return texts.map((t) => hashEmbedding(t, undefined, this.options));
  }
}
