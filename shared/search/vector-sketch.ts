// Sketches of vectors for a fast first pass over many of them: one sign bit a dimension, scored
// asymmetrically against the full query through a table of byte sums; then a byte a dimension for
// a closer second look at the best of those.

import { CODE_DOTS_WASM } from './code-dots-wasm.js';

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
 * `sketchTable`), in slot order: the caller scores them again (sorting thousands of candidates
 * cost as much as a third of the pass), and reads their codes in memory order. Empty slots
 * (weight 0) are never returned.
 */
export function bestSketches(table: Float32Array, columns: SketchColumns, count: number): number[] {
  const { bits, weights, bytes, slots } = columns;
  const scores = new Float32Array(slots);
  // Four bytes a read where the sketches are whole words (any dimension that is a multiple of 32).
  if (LITTLE_ENDIAN && bytes % 4 === 0 && bits.byteOffset % 4 === 0)
    scoreWords(table, new Uint32Array(bits.buffer, bits.byteOffset, (slots * bytes) >> 2), bytes >> 2, weights, scores);
  else scoreBytes(table, bits, bytes, weights, scores);
  let live = 0;
  for (let i = 0; i < slots; i++) if (weights[i] !== 0) live++;
  return topScored(scores, Math.min(count, live), (i) => i, false);
}

/** Each slot's estimate (−∞ for an empty one), reading the sketches a 32-bit word at a time. Kept apart: one loop the compiler sees whole. */
function scoreWords(table: Float32Array, words: Uint32Array, perSlot: number, weights: Float32Array, scores: Float32Array): void {
  for (let i = 0, k = 0; i < scores.length; i++) {
    const w = weights[i]!;
    if (w === 0) {
      scores[i] = -Infinity;
      k += perSlot;
      continue;
    }
    let s = 0;
    for (let j = 0, t = 0; j < perSlot; j++, k++, t += 1024) {
      const x = words[k]!;
      s += table[t | (x & 255)]! + table[(t + 256) | ((x >>> 8) & 255)]! + table[(t + 512) | ((x >>> 16) & 255)]! + table[(t + 768) | (x >>> 24)]!;
    }
    scores[i] = s / w;
  }
}

/** The same, a byte at a time (sketches of other sizes). */
function scoreBytes(table: Float32Array, bits: Uint8Array, bytes: number, weights: Float32Array, scores: Float32Array): void {
  for (let i = 0, o = 0; i < scores.length; i++, o += bytes) {
    const w = weights[i]!;
    let s = 0;
    if (w !== 0) for (let j = 0; j < bytes; j++) s += table[(j << 8) | bits[o + j]!]!;
    scores[i] = w === 0 ? -Infinity : s / w;
  }
}

/**
 * The indexes of the `keep` highest scores (ties by the smaller id), best first or, unsorted, in
 * index order: a quickselect finds the cut, so only the kept entries are sorted. `-Infinity` is
 * never kept.
 */
function topScored(scores: Float32Array | Float64Array, keep: number, idOf: (index: number) => number, sorted = true): number[] {
  if (keep <= 0) return [];
  const cut = kthOf(scores, keep);
  const above: number[] = [];
  const at: number[] = [];
  for (let i = 0; i < scores.length; i++) {
    if (scores[i]! > cut) above.push(i);
    else if (scores[i] === cut && cut !== -Infinity) at.push(i);
  }
  const chosen = above.concat(at.sort((x, y) => idOf(x) - idOf(y)).slice(0, keep - above.length));
  if (!sorted) return Array.from(Int32Array.from(chosen).sort());
  return chosen.sort((a, b) => scores[b]! - scores[a]! || idOf(a) - idOf(b));
}

/**
 * The `keep`-th largest score. Over many scores, a systematic sample's quantile (at twice the share
 * kept) first finds a floor with at least `keep` scores above it; the quickselect then runs on
 * those only (at 100,000 sketches it had cost a third of the pass).
 */
function kthOf(scores: Float32Array | Float64Array, keep: number): number {
  const n = scores.length;
  if (n >= 4096 && n >= 16 * keep) {
    const step = Math.floor(n / 2048);
    const sample = new Float64Array(Math.floor(n / step));
    for (let i = 0; i < sample.length; i++) sample[i] = scores[i * step]!;
    const floor = kthLargest(sample, Math.min(sample.length, Math.ceil((2 * keep * sample.length) / n) + 8));
    let above = 0;
    for (let i = 0; i < n; i++) if (scores[i]! >= floor) above++;
    // At least `keep` scores at or above the floor: the keep-th largest of all is one of them.
    if (above >= keep) {
      const few = new Float64Array(above);
      for (let i = 0, j = 0; i < n; i++) if (scores[i]! >= floor) few[j++] = scores[i]!;
      return kthLargest(few, keep);
    }
  }
  return kthLargest(Float64Array.from(scores), keep);
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

let kernelModule: WebAssembly.Module | null | undefined;
/** The dot-product kernel (code-dots.wat), compiled once; null where this runtime has no WebAssembly SIMD. */
function codeDotsModule(): WebAssembly.Module | null {
  if (kernelModule === undefined) {
    try {
      kernelModule = new WebAssembly.Module(Buffer.from(CODE_DOTS_WASM, 'base64'));
    } catch {
      kernelModule = null;
    }
  }
  return kernelModule;
}

const align16 = (n: number) => (n + 15) & ~15;

/**
 * Byte codes kept side by side (slot i's at `codes[i * dimension …]`) with their lengths, and their
 * dot products with a query: sixteen dimensions an instruction in WebAssembly where the dimension
 * is a multiple of 16 (the codes then live in the module's memory), four running sums in
 * JavaScript otherwise. At 4,000 candidates of 512 dimensions: ~4 ms in JavaScript, ~0.6 in SIMD.
 */
export class ByteCodes {
  codes: Int8Array;
  norms: Float32Array;
  private readonly kernel?: {
    memory: WebAssembly.Memory;
    dots: (query: number, codes: number, dim: number, slots: number, count: number, out: number) => void;
  };

  constructor(
    readonly dimension: number,
    private capacity = 1024,
  ) {
    const module = dimension % 16 === 0 ? codeDotsModule() : null;
    if (module) {
      const { exports } = new WebAssembly.Instance(module, {});
      this.kernel = exports as unknown as NonNullable<ByteCodes['kernel']>;
      this.codes = this.memoryFor(capacity * dimension);
    } else this.codes = new Int8Array(capacity * dimension);
    this.norms = new Float32Array(capacity);
  }

  /** The kernel's memory grown to hold `bytes` and the codes' view of its first `capacity` slots. */
  private memoryFor(bytes: number): Int8Array {
    const { memory } = this.kernel!;
    const pages = Math.ceil(bytes / 65536) - memory.buffer.byteLength / 65536;
    if (pages > 0) memory.grow(pages);
    return new Int8Array(memory.buffer, 0, this.capacity * this.dimension);
  }

  get slots(): number {
    return this.capacity;
  }

  /** Room for at least `slots` slots (doubling), keeping what is there. */
  grow(slots: number): void {
    if (slots <= this.capacity) return;
    const size = Math.max(slots, this.capacity * 2);
    const norms = new Float32Array(size);
    norms.set(this.norms);
    this.norms = norms;
    if (this.kernel) {
      this.capacity = size;
      this.codes = this.memoryFor(size * this.dimension);
    } else {
      const codes = new Int8Array(size * this.dimension);
      codes.set(this.codes);
      this.codes = codes;
      this.capacity = size;
    }
  }

  set(slot: number, codes: Int8Array): void {
    this.grow(slot + 1);
    let norm = 0;
    for (let j = 0; j < this.dimension; j++) norm += (codes[j] ?? 0) * (codes[j] ?? 0);
    this.codes.fill(0, slot * this.dimension, (slot + 1) * this.dimension);
    this.codes.set(codes.subarray(0, this.dimension), slot * this.dimension);
    this.norms[slot] = Math.sqrt(norm);
  }

  /** Each slot's code's cosine with the query, up to a factor all share (−∞ for an empty code). */
  scores(query: Float32Array, slots: number[]): Float64Array {
    const out = new Float64Array(slots.length);
    const { dimension, norms } = this;
    if (this.kernel) {
      // The query in 16-bit integers, scaled so no sum can pass 2³¹ (127 · scale · dimension).
      let max = 0;
      for (let j = 0; j < dimension; j++) max = Math.max(max, Math.abs(query[j]!));
      const scale = max > 0 ? Math.min(16383, Math.floor(2 ** 31 / (128 * dimension))) / max : 0;
      const queryAt = align16(this.capacity * dimension);
      const slotsAt = align16(queryAt + 2 * dimension);
      const outAt = align16(slotsAt + 4 * slots.length);
      this.codes = this.memoryFor(outAt + 4 * slots.length);
      const buffer = this.kernel.memory.buffer;
      const q = new Int16Array(buffer, queryAt, dimension);
      for (let j = 0; j < dimension; j++) q[j] = Math.round(query[j]! * scale);
      new Int32Array(buffer, slotsAt, slots.length).set(slots);
      this.kernel.dots(queryAt, 0, dimension, slotsAt, slots.length, outAt);
      const dots = new Int32Array(buffer, outAt, slots.length);
      for (let i = 0; i < slots.length; i++) {
        const norm = norms[slots[i]!]!;
        out[i] = norm > 0 ? dots[i]! / norm : -Infinity;
      }
      return out;
    }
    const codes = this.codes;
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
      out[i] = norm > 0 ? (a + b + c + d) / norm : -Infinity;
    }
    return out;
  }
}

/**
 * Of the given slots, the `count` whose byte codes have the highest cosine with the query (within
 * about 1 % of the exact one), best first.
 */
export function bestCodes(query: Float32Array, codes: ByteCodes, slots: number[], count: number): number[] {
  const scores = codes.scores(query, slots);
  return topScored(scores, Math.min(count, slots.length), (i) => slots[i]!).map((i) => slots[i]!);
}
