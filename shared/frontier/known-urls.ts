/**
 * What a run knows of a URL it has seen: still to fetch (held in memory, or `spilled`: queued in
 * the store only), skipped for now (may be admitted again), or settled.
 */
export type Known = 'queued' | 'spilled' | 'soft' | 'final';

const CODES: readonly Known[] = ['queued', 'spilled', 'soft', 'final'];
const MAX_LOAD = 0.7;

/**
 * The URLs a run has seen, by url id, in typed arrays: 9 bytes a slot (64 bits of the id and its
 * state) instead of a Map entry holding a 32-character string (~150 bytes of heap a URL). A run of
 * millions of URLs keeps them in tens of MB. Two ids sharing their first 64 bits would be taken
 * for one URL: at a million URLs the chance is about 3 in 100 million. Ids that are not hex (a
 * caller's own) are hashed instead.
 */
export class KnownUrls {
  private hi = new Uint32Array(1024);
  private lo = new Uint32Array(1024);
  /** 0: empty slot; else 1 + the index of the state in CODES. */
  private states = new Uint8Array(1024);
  private count = 0;

  get size(): number {
    return this.count;
  }

  get(id: string): Known | undefined {
    const slot = this.find(keyHi(id), keyLo(id));
    const code = this.states[slot]!;
    return code === 0 ? undefined : CODES[code - 1];
  }

  has(id: string): boolean {
    return this.states[this.find(keyHi(id), keyLo(id))] !== 0;
  }

  set(id: string, known: Known): void {
    const hi = keyHi(id);
    const lo = keyLo(id);
    let slot = this.find(hi, lo);
    if (this.states[slot] === 0) {
      if (this.count + 1 > this.states.length * MAX_LOAD) {
        this.grow();
        slot = this.find(hi, lo);
      }
      this.hi[slot] = hi;
      this.lo[slot] = lo;
      this.count++;
    }
    this.states[slot] = CODES.indexOf(known) + 1;
  }

  /** The slot holding this key, or the empty slot where it would go (linear probing). */
  private find(hi: number, lo: number): number {
    const mask = this.states.length - 1;
    let slot = lo & mask;
    while (this.states[slot] !== 0 && (this.hi[slot] !== hi || this.lo[slot] !== lo)) slot = (slot + 1) & mask;
    return slot;
  }

  private grow(): void {
    const { hi, lo, states } = this;
    const size = states.length * 2;
    this.hi = new Uint32Array(size);
    this.lo = new Uint32Array(size);
    this.states = new Uint8Array(size);
    const mask = size - 1;
    for (let i = 0; i < states.length; i++) {
      if (states[i] === 0) continue;
      let slot = lo[i]! & mask;
      while (this.states[slot] !== 0) slot = (slot + 1) & mask;
      this.hi[slot] = hi[i]!;
      this.lo[slot] = lo[i]!;
      this.states[slot] = states[i]!;
    }
  }
}

function keyHi(id: string): number {
  return parseHex(id, 0) ?? fnv1a(id, 0x811c9dc5);
}

function keyLo(id: string): number {
  return parseHex(id, 8) ?? fnv1a(id, 0x01000193);
}

/** Eight hex digits of a url id from `at`, as an unsigned 32-bit number; undefined for an id of another shape. */
function parseHex(id: string, at: number): number | undefined {
  if (id.length < at + 8) return undefined;
  let n = 0;
  for (let i = at; i < at + 8; i++) {
    const c = id.charCodeAt(i);
    const d = c >= 48 && c <= 57 ? c - 48 : c >= 97 && c <= 102 ? c - 87 : -1;
    if (d < 0) return undefined;
    n = n * 16 + d;
  }
  return n >>> 0;
}

/** FNV-1a over the id's UTF-16 units, for ids that are not hex (callers' own). */
function fnv1a(id: string, seed: number): number {
  let h = seed;
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193);
  return h >>> 0;
}
