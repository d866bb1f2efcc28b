/**
 * 64-bit SimHash over word 3-gram shingles (Charikar 2002, as used for web near-duplicates by
 * Manku et al. 2007), kept as 16 hex digits. Two pages within Hamming distance 3 are
 * near-duplicates; split into 4 bands of 16 bits, any two such hashes share at least one band
 * (pigeonhole: 3 differing bits touch at most 3 bands), so a band index finds candidates
 * without scanning every page.
 */
export const SIMHASH_BITS = 64;
export const NEAR_DUPLICATE_DISTANCE = 3;
export const BANDS = 4;

function words(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/** murmur3's fmix32: the final avalanche, so nearby shingles spread over all bits. */
function fmix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

const SPACE = 0x20;

/**
 * Adds a shingle's 64-bit feature hash to the bit tallies: FNV-1a over the UTF-16 code units of its
 * words joined by spaces, in two lanes with different offsets, each through fmix32. The words are
 * hashed where they are (the joined string is never built): stored hashes depend on these exact
 * values, so the same code units go through the same steps.
 */
function addShingle(v: Int32Array, words: readonly string[], from: number, count: number): void {
  let h1 = 0x811c9dc5;
  let h2 = 0x01000193 ^ 0x9e3779b9;
  for (let k = 0; k < count; k++) {
    if (k > 0) {
      h1 = Math.imul(h1 ^ SPACE, 0x01000193);
      h2 = Math.imul(h2 ^ SPACE, 0x01000193) ^ (h2 >>> 15);
    }
    const w = words[from + k]!;
    for (let i = 0; i < w.length; i++) {
      const c = w.charCodeAt(i);
      h1 = Math.imul(h1 ^ c, 0x01000193);
      h2 = Math.imul(h2 ^ c, 0x01000193) ^ (h2 >>> 15);
    }
  }
  const hi = fmix(h1);
  const lo = fmix(h2);
  for (let b = 0; b < 32; b++) {
    v[b]! += (((hi >>> b) & 1) << 1) - 1;
    v[32 + b]! += (((lo >>> b) & 1) << 1) - 1;
  }
}

/** The SimHash of a text as 16 hex digits; texts shorter than three words hash their words. */
export function simhash(text: string): string {
  const w = words(text);
  const v = new Int32Array(SIMHASH_BITS);
  if (w.length >= 3) for (let i = 0; i + 2 < w.length; i++) addShingle(v, w, i, 3);
  else for (let i = 0; i < w.length; i++) addShingle(v, w, i, 1);
  let hi = 0;
  let lo = 0;
  for (let b = 0; b < 32; b++) {
    if (v[b]! > 0) hi |= 1 << b;
    if (v[32 + b]! > 0) lo |= 1 << b;
  }
  return (hi >>> 0).toString(16).padStart(8, '0') + (lo >>> 0).toString(16).padStart(8, '0');
}

function popcount32(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return Math.imul((x + (x >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24;
}

export function hammingDistance(a: string, b: string): number {
  return popcount32(parseInt(a.slice(0, 8), 16) ^ parseInt(b.slice(0, 8), 16)) + popcount32(parseInt(a.slice(8), 16) ^ parseInt(b.slice(8), 16));
}

/** The 4 bands of 16 bits (4 hex digits each) that index a hash. */
export function simhashBands(hash: string): string[] {
  return [0, 1, 2, 3].map((i) => hash.slice(i * 4, i * 4 + 4));
}

/** Bits of the six blocks a hash is cut into for {@link simhashWideBands}, high bits first. */
const WIDE_BLOCKS = [11, 11, 11, 11, 10, 10] as const;
/**
 * The block pairs that key the wide bands: the edges of two triangles ({0,1,2} and {3,4,5}). Three
 * differing bits spoil at most three of the six blocks, so at least three stay clean, and any three
 * blocks hold two from the same triangle: one of these pairs is clean and its band matches.
 */
const WIDE_PAIRS = [
  [0, 1],
  [0, 2],
  [1, 2],
  [3, 4],
  [3, 5],
  [4, 5],
] as const;

/**
 * Six bands of 20–22 bits for a store whose bands are partitions read per page (the cloud's). Any
 * two hashes within {@link NEAR_DUPLICATE_DISTANCE} share one, as with {@link simhashBands}, while
 * each band holds 2⁴–2⁶ times fewer pages: about 100 at 10⁸ pages instead of 1,500. Each band is
 * its pair's bits as hex.
 */
export function simhashWideBands(hash: string): string[] {
  const bits = BigInt(`0x${hash}`);
  const blocks: bigint[] = [];
  let shift = BigInt(SIMHASH_BITS);
  for (const width of WIDE_BLOCKS) {
    shift -= BigInt(width);
    blocks.push((bits >> shift) & ((1n << BigInt(width)) - 1n));
  }
  return WIDE_PAIRS.map(([a, b]) => {
    const width = WIDE_BLOCKS[a] + WIDE_BLOCKS[b];
    const value = (blocks[a]! << BigInt(WIDE_BLOCKS[b])) | blocks[b]!;
    return value.toString(16).padStart(Math.ceil(width / 4), '0');
  });
}
