// Sketches of vectors for a fast first pass over many of them: one sign bit a dimension, scored
// asymmetrically against the full query through a table of byte sums; then a byte a dimension for
// a closer second look at the best of those.

/** A vector's sketch: its signs, one bit a dimension (dimension i in bit i % 8 of byte i / 8), and how well they describe it. */
export interface VectorSketch {
  bits: Uint8Array;
  /** The vector scaled to its largest component and rounded to bytes (−127…127). */
  codes: Int8Array;
  /**
   * The cosine of the vector and its sign vector (‖v‖₁ / (‖v‖₂ √d)): a vector whose mass sits in
   * few dimensions has signs that say less about it, and its estimate is scaled up by this much.
   */
  weight: number;
}

const LITTLE_ENDIAN = new Uint8Array(Uint32Array.of(1).buffer)[0] === 1;

/** Bytes a sketch of `dimension` dimensions takes. */
export const sketchBytes = (dimension: number) => Math.ceil(dimension / 8);

export function sketchVector(vector: Float32Array): VectorSketch {
  const bits = new Uint8Array(sketchBytes(vector.length));
  const codes = new Int8Array(vector.length);
  let l1 = 0;
  let l2 = 0;
  let max = 0;
  for (let i = 0; i < vector.length; i++) {
    const v = vector[i]!;
    if (v > 0) bits[i >> 3]! |= 1 << (i & 7);
    l1 += Math.abs(v);
    l2 += v * v;
    max = Math.max(max, Math.abs(v));
  }
  if (max > 0) for (let i = 0; i < vector.length; i++) codes[i] = Math.round((vector[i]! / max) * 127);
  return { bits, codes, weight: l2 > 0 ? l1 / Math.sqrt(l2 * vector.length) : 0 };
}

/**
 * The query's table of byte sums: entry `byte * 256 + b` is Σ ±query[8·byte + bit] over the bits of
 * `b` (+ where the bit is set). A sketch's estimate is then one lookup per byte, not one product per
 * dimension: `Σ table[byte * 256 + sketch[byte]]`, proportional to the query's dot product with
 * the sign vector.
 */
export function sketchTable(query: Float32Array): Float32Array {
  const bytes = sketchBytes(query.length);
  const table = new Float32Array(bytes * 256);
  for (let j = 0; j < bytes; j++) {
    const base = j * 256;
    // Each entry from a smaller one: the sum for b is the sum for b without its top bit, plus that bit's term.
    let total = 0;
    for (let bit = 0; bit < 8; bit++) total -= query[8 * j + bit] ?? 0;
    table[base] = total;
    for (let b = 1; b < 256; b++) {
      const top = 31 - Math.clz32(b);
      table[base + b] = table[base + (b ^ (1 << top))]! + 2 * (query[8 * j + top] ?? 0);
    }
  }
  return table;
}

/** Sketches kept side by side: slot i's bits at `bits[i * bytes …]`, its weight at `weights[i]` (0 for an empty slot). */
export interface SketchColumns {
  bits: Uint8Array;
  weights: Float32Array;
  bytes: number;
  slots: number;
}

/**
 * The `count` slots whose sketches estimate the highest similarity to the query (by the table from
 * `sketchTable`), best first. Empty slots (weight 0) are never returned.
 */
export function bestSketches(table: Float32Array, columns: SketchColumns, count: number): number[] {
  const { bits, weights, bytes, slots } = columns;
  const scores = new Float32Array(slots);
  // Four bytes a read where the sketches are whole words (any dimension that is a multiple of 32).
  const words = LITTLE_ENDIAN && bytes % 4 === 0 && bits.byteOffset % 4 === 0 ? new Uint32Array(bits.buffer, bits.byteOffset, (slots * bytes) >> 2) : undefined;
  const perSlot = bytes >> 2;
  let live = 0;
  for (let i = 0, o = 0; i < slots; i++, o += bytes) {
    const w = weights[i]!;
    if (w === 0) {
      scores[i] = -Infinity;
      continue;
    }
    let s = 0;
    if (words) {
      for (let j = 0, k = o >> 2, t = 0; j < perSlot; j++, k++, t += 1024) {
        const x = words[k]!;
        s += table[t | (x & 255)]! + table[(t + 256) | ((x >>> 8) & 255)]! + table[(t + 512) | ((x >>> 16) & 255)]! + table[(t + 768) | (x >>> 24)]!;
      }
    } else {
      for (let j = 0; j < bytes; j++) s += table[(j << 8) | bits[o + j]!]!;
    }
    scores[i] = s / w;
    live++;
  }
  return topScored(scores, Math.min(count, live), (i) => i);
}

/**
 * The indexes of the `keep` highest scores, best first (ties by the smaller id): a quickselect
 * finds the cut, so only the kept entries are sorted. `-Infinity` is never kept.
 */
function topScored(scores: Float32Array | Float64Array, keep: number, idOf: (index: number) => number): number[] {
  if (keep <= 0) return [];
  const cut = kthLargest(Float64Array.from(scores), keep);
  const above: number[] = [];
  const at: number[] = [];
  for (let i = 0; i < scores.length; i++) {
    if (scores[i]! > cut) above.push(i);
    else if (scores[i] === cut && cut !== -Infinity) at.push(i);
  }
  const chosen = above.concat(at.sort((x, y) => idOf(x) - idOf(y)).slice(0, keep - above.length));
  return chosen.sort((a, b) => scores[b]! - scores[a]! || idOf(a) - idOf(b));
}

/** The k-th largest value (1-based) by quickselect; reorders `values`. */
function kthLargest(values: Float64Array, k: number): number {
  let lo = 0;
  let hi = values.length - 1;
  const target = k - 1;
  while (lo < hi) {
    const pivot = values[(lo + hi) >> 1]!;
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (values[i]! > pivot) i++;
      while (values[j]! < pivot) j--;
      if (i <= j) {
        const t = values[i]!;
        values[i] = values[j]!;
        values[j] = t;
        i++;
        j--;
      }
    }
    if (target <= j) hi = j;
    else if (target >= i) lo = i;
    else break;
  }
  return values[target]!;
}

/** Byte codes kept side by side: slot i's at `codes[i * dimension …]`, their length at `norms[i]`. */
export interface CodeColumns {
  codes: Int8Array;
  norms: Float32Array;
  dimension: number;
}

/**
 * Of the given slots, the `count` whose byte codes have the highest cosine with the query (within
 * about 1 % of the exact one), best first.
 */
export function bestCodes(query: Float32Array, columns: CodeColumns, slots: number[], count: number): number[] {
  const { codes, norms, dimension } = columns;
  const scores = new Float64Array(slots.length);
  const tail = dimension - (dimension % 4);
  for (let i = 0; i < slots.length; i++) {
    const slot = slots[i]!;
    const o = slot * dimension;
    // Four sums side by side: the products do not wait on each other.
    let a = 0;
    let b = 0;
    let c = 0;
    let d = 0;
    for (let j = 0; j < tail; j += 4) {
      a += query[j]! * codes[o + j]!;
      b += query[j + 1]! * codes[o + j + 1]!;
      c += query[j + 2]! * codes[o + j + 2]!;
      d += query[j + 3]! * codes[o + j + 3]!;
    }
    for (let j = tail; j < dimension; j++) a += query[j]! * codes[o + j]!;
    const norm = norms[slot]!;
    scores[i] = norm > 0 ? (a + b + c + d) / norm : -Infinity;
  }
  return topScored(scores, Math.min(count, slots.length), (i) => slots[i]!).map((i) => slots[i]!);
}
