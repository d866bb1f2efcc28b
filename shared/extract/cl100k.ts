import { readFileSync } from 'node:fs';

/**
 * OpenAI's cl100k_base byte-pair encoding, in plain JavaScript over its rank table (tiktoken's
 * `encoders/cl100k_base.json`, shipped beside this module as `cl100k_base.json`).
 *
 * Written here because every packaged tokenizer fails one of our two budgets: tiktoken,
 * js-tiktoken, gpt-tokenizer and ai-tokenizer install 22–31 MB (every encoding they know), and
 * @microsoft/tiktokenizer, 0.1 MB, keeps ~35 MB of heap per tokenizer. This one keeps ~2 MB (typed arrays),
 * encodes the corpus faster than tiktoken's WebAssembly build, and is checked token for token
 * against tiktoken in test/extract/cl100k.test.ts.
 */

/**
 * tiktoken's pre-tokenizer for cl100k_base (`pat_str`), in JavaScript's syntax: its
 * case-insensitive contractions (`(?i:'s|'t|…)`) spelled out, and `\s` as Rust's regex reads it
 * (Unicode's White_Space: with U+0085, without the U+FEFF that JavaScript's `\s` adds).
 */
const SPACE = '\\t-\\r \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';
const PIECES = new RegExp(
  `'(?:[sS\u017f]|[tT]|[rR][eE]|[vV][eE]|[mM]|[lL][lL]|[dD])|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^${SPACE}\\p{L}\\p{N}]+[\\r\\n]*|[${SPACE}]*[\\r\\n]+|[${SPACE}]+(?![^${SPACE}])|[${SPACE}]+`,
  'gu',
);

/** Pieces remembered with their tokens (words repeat): cleared when full rather than aged. */
const CACHE_PIECES = 16_384;

interface RankFile {
  pat_str: string;
  /** Lines of `<marker> <first rank> <base64 token> <base64 token> …`, ranks counting up. */
  bpe_ranks: string;
}

/** FNV-1a over `s`'s characters from `from` to `to` (a Latin-1 string: one character a byte). */
function hashOf(s: string, from: number, to: number): number {
  let h = 0x811c9dc5;
  for (let i = from; i < to; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

export class Cl100k {
  /** Every token's bytes, one after another, in rank order. */
  private readonly pool: Uint8Array;
  /** Where the bytes of the token of rank r start in `pool`; they end where r + 1's start. */
  private readonly starts: Uint32Array;
  /**
   * The tokens by their bytes, open addressing: a slot holds rank + 1 (0: empty), at the hash of the
   * token's bytes. Typed arrays, not a Map of 100,256 strings: ~2 MB off the heap instead of ~9 MB
   * on it (heap snapshot of the extraction worker, 2026-11-28), in every thread that chunks.
   */
  private readonly slots: Int32Array;
  private readonly cache = new Map<string, number[]>();

  constructor(file: RankFile) {
    const tokens: Buffer[] = [];
    for (const line of file.bpe_ranks.split('\n')) {
      const parts = line.split(' ');
      if (parts.length < 3) continue;
      const first = Number(parts[1]);
      for (let i = 2; i < parts.length; i++) tokens[first + i - 2] = Buffer.from(parts[i]!, 'base64');
    }
    let count = 0;
    let size = 0;
    for (const t of tokens) {
      if (!t) continue;
      count++;
      size += t.length;
    }
    if (count !== 100_256) throw new Error(`cl100k_base's rank file holds ${count} tokens, not 100,256: the file is damaged`);
    this.pool = new Uint8Array(size);
    this.starts = new Uint32Array(tokens.length + 1);
    this.slots = new Int32Array(1 << 18);
    const mask = this.slots.length - 1;
    let at = 0;
    for (let r = 0; r < tokens.length; r++) {
      this.starts[r] = at;
      const t = tokens[r];
      if (!t) continue;
      this.pool.set(t, at);
      at += t.length;
      let slot = hashOf(t.toString('latin1'), 0, t.length) & mask;
      while (this.slots[slot] !== 0) slot = (slot + 1) & mask;
      this.slots[slot] = r + 1;
    }
    this.starts[tokens.length] = at;
  }

  /** The rank of the token whose bytes are `s` from `from` to `to`; -1 when there is none. */
  private rank(s: string, from: number, to: number): number {
    const mask = this.slots.length - 1;
    const length = to - from;
    for (let slot = hashOf(s, from, to) & mask; ; slot = (slot + 1) & mask) {
      const r = this.slots[slot]! - 1;
      if (r < 0) return -1;
      const start = this.starts[r]!;
      if (this.starts[r + 1]! - start !== length) continue;
      let k = 0;
      while (k < length && this.pool[start + k] === s.charCodeAt(from + k)) k++;
      if (k === length) return r;
    }
  }

  static load(path: string): Cl100k {
    return new Cl100k(JSON.parse(readFileSync(path, 'utf8')) as RankFile);
  }

  /**
   * Tokens of `text`, special tokens' spellings encoded as the plain text they are (tiktoken's
   * `encode_ordinary`). Byte-pair merging is quadratic in a piece's length: with `maxPiece`, a
   * longer piece (a run of letters in a base64 blob) is merged in parts of that many characters.
   */
  encode(text: string, maxPiece = Infinity): number[] {
    const out: number[] = [];
    for (const match of text.matchAll(PIECES)) for (const t of this.pieceTokens(match[0], maxPiece)) out.push(t);
    return out;
  }

  /** The tokens of one pre-tokenizer piece (remembered: words repeat), merged in parts of `maxPiece` characters at most. */
  private pieceTokens(piece: string, maxPiece = Infinity): number[] {
    if (piece.length > maxPiece) {
      const out: number[] = [];
      for (let at = 0; at < piece.length;) {
        let end = Math.min(piece.length, at + maxPiece);
        // Never between the halves of a surrogate pair.
        if (end < piece.length && (piece.charCodeAt(end) & 0xfc00) === 0xdc00) end--;
        for (const t of this.pieceTokens(piece.slice(at, end))) out.push(t);
        at = end;
      }
      return out;
    }
    let tokens = this.cache.get(piece);
    if (!tokens) {
      const bytes = Buffer.from(piece, 'utf8').toString('latin1');
      const whole = this.rank(bytes, 0, bytes.length);
      tokens = whole < 0 ? this.merge(bytes) : [whole];
      if (this.cache.size >= CACHE_PIECES) this.cache.clear();
      this.cache.set(piece, tokens);
    }
    return tokens;
  }

  /**
   * Counts tokens of many stretches of one text with one pass over it (`TokenSpans.countSpan`): the
   * text's pieces are counted once, and a stretch's count is theirs, its edges counted again.
   */
  spans(text: string, maxPiece = Infinity): TokenSpans {
    return new TokenSpans(text, (piece) => this.pieceTokens(piece, maxPiece).length);
  }

  /** The bytes of `tokens`, concatenated. */
  decode(tokens: ArrayLike<number>): Uint8Array {
    const known = (t: number) => Number.isInteger(t) && t >= 0 && t < this.starts.length - 1;
    let size = 0;
    for (let i = 0; i < tokens.length; i++) if (known(tokens[i]!)) size += this.starts[tokens[i]! + 1]! - this.starts[tokens[i]!]!;
    const out = Buffer.allocUnsafe(size);
    let at = 0;
    for (let i = 0; i < tokens.length; i++) {
      const t = tokens[i]!;
      if (!known(t)) continue;
      out.set(this.pool.subarray(this.starts[t]!, this.starts[t + 1]!), at);
      at += this.starts[t + 1]! - this.starts[t]!;
    }
    return out;
  }

  /**
   * Byte-pair merging of one piece (tiktoken's `byte_pair_merge`): starting from single bytes,
   * the adjacent pair whose joined bytes have the lowest rank is merged, until no pair has one.
   */
  private merge(bytes: string): number[] {
    const n = bytes.length;
    // starts[i]: where part i begins; pairRank[i]: the rank of parts i and i + 1 joined.
    const starts: number[] = [];
    for (let i = 0; i <= n; i++) starts.push(i);
    const rankOf = (i: number): number => {
      const r = i + 2 < starts.length ? this.rank(bytes, starts[i]!, starts[i + 2]!) : -1;
      return r < 0 ? Infinity : r;
    };
    const pairRank: number[] = [];
    for (let i = 0; i < n - 1; i++) pairRank.push(rankOf(i));
    for (;;) {
      let best = Infinity;
      let at = -1;
      for (let i = 0; i < pairRank.length; i++) {
        if (pairRank[i]! < best) {
          best = pairRank[i]!;
          at = i;
        }
      }
      if (at < 0) break;
      starts.splice(at + 1, 1);
      pairRank.splice(at, 1);
      if (at < pairRank.length) pairRank[at] = rankOf(at);
      if (at > 0) pairRank[at - 1] = rankOf(at - 1);
    }
    const tokens: number[] = [];
    for (let i = 0; i + 1 < starts.length; i++) tokens.push(this.rank(bytes, starts[i]!, starts[i + 1]!));
    return tokens;
  }
}

/** The run of the pre-tokenizer's white space (`SPACE`) where `lastIndex` points (sticky). */
const SPACE_RUN = new RegExp(`[${SPACE}]*`, 'y');

/**
 * Exact token counts of stretches of one text, as `encode(text.slice(from, to)).length` would give
 * them, from one pre-tokenization of the whole text. The pattern has no look-behind, so a stretch's
 * own pieces are the text's from the first place their boundaries meet, up to the last piece
 * whose matching never looked at a character past the stretch's end: a piece looks one character
 * past its end, and one starting with white space looks to the end of that white space. The
 * pieces before the meeting place and after the last such piece are the stretch's own, counted here.
 */
export class TokenSpans {
  /** Where each of the text's pieces starts, and the text's length last. */
  private readonly starts: number[] = [];
  /** Tokens before each piece: `before[i + 1] - before[i]` are piece i's. */
  private readonly before: number[] = [0];
  private readonly re = new RegExp(PIECES.source, PIECES.flags);

  constructor(
    private readonly text: string,
    private readonly count: (piece: string) => number,
  ) {
    let total = 0;
    for (const m of text.matchAll(PIECES)) {
      this.starts.push(m.index);
      this.before.push((total += count(m[0])));
    }
    this.starts.push(text.length);
  }

  /** The index of the piece starting at `at`, or -1 when no piece starts there. */
  private pieceAt(at: number): number {
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.starts[mid]! < at) lo = mid + 1;
      else hi = mid;
    }
    return lo < this.starts.length - 1 && this.starts[lo] === at ? lo : -1;
  }

  /** Whether matching piece i looked at nothing at or past `to`. */
  private inside(i: number, to: number): boolean {
    const start = this.starts[i]!;
    const end = this.starts[i + 1]!;
    if (end >= to) return false;
    // A piece that starts with white space may have looked ahead over it: inside if the run ends before `to`.
    SPACE_RUN.lastIndex = start;
    return start + SPACE_RUN.exec(this.text)![0].length < to;
  }

  /** Tokens of `text.slice(from, to)`. */
  countSpan(from: number, to: number): number {
    const sub = this.text.slice(from, to);
    const re = this.re;
    re.lastIndex = 0;
    let tokens = 0;
    let first = -1;
    // An end inside a surrogate pair leaves half a character the text does not have: all counted here.
    const low = (at: number) => at > 0 && at < this.text.length && (this.text.charCodeAt(at) & 0xfc00) === 0xdc00;
    const split = low(from) || low(to);
    // The stretch's own pieces until one ends where a piece of the text starts.
    while (!split && re.lastIndex < sub.length) {
      first = this.pieceAt(from + re.lastIndex);
      if (first >= 0) break;
      const m = re.exec(sub)!;
      tokens += this.count(m[0]);
    }
    if (split) for (let m = re.exec(sub); m; m = re.exec(sub)) tokens += this.count(m[0]);
    if (first < 0) return tokens;
    // The text's pieces from there, while their matching stayed inside the stretch.
    let last = first - 1;
    let lo = first;
    let hi = this.starts.length - 2;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (this.starts[mid + 1]! < to) {
        last = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    while (last >= first && !this.inside(last, to)) last--;
    if (last >= first) {
      tokens += this.before[last + 1]! - this.before[first]!;
      re.lastIndex = this.starts[last + 1]! - from;
    }
    // The stretch's own pieces after them.
    for (let m = re.exec(sub); m; m = re.exec(sub)) tokens += this.count(m[0]);
    return tokens;
  }
}
