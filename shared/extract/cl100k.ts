import { readFileSync } from 'node:fs';

/**
 * OpenAI's cl100k_base byte-pair encoding, in plain JavaScript over its rank table (tiktoken's
 * `encoders/cl100k_base.json`, shipped beside this module as `cl100k_base.json`).
 *
 * Written here because every packaged tokenizer fails one of our two budgets: tiktoken,
 * js-tiktoken, gpt-tokenizer and ai-tokenizer install 22–31 MB (every encoding they know), and
 * @microsoft/tiktokenizer, 0.1 MB, keeps ~35 MB of heap per tokenizer. This one keeps ~7 MB,
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

export class Cl100k {
  /** A token's bytes, as a Latin-1 string (one character a byte), to its rank. */
  private readonly ranks = new Map<string, number>();
  /** Rank to the token's bytes (Latin-1). */
  private readonly bytes: string[] = [];
  private readonly cache = new Map<string, number[]>();

  constructor(file: RankFile) {
    for (const line of file.bpe_ranks.split('\n')) {
      const parts = line.split(' ');
      if (parts.length < 3) continue;
      const first = Number(parts[1]);
      for (let i = 2; i < parts.length; i++) {
        const token = Buffer.from(parts[i]!, 'base64').toString('latin1');
        this.ranks.set(token, first + i - 2);
        this.bytes[first + i - 2] = token;
      }
    }
    if (this.ranks.size !== 100_256) throw new Error(`cl100k_base's rank file holds ${this.ranks.size} tokens, not 100,256: the file is damaged`);
  }

  static load(path: string): Cl100k {
    return new Cl100k(JSON.parse(readFileSync(path, 'utf8')) as RankFile);
  }

  /** Tokens of `text`, special tokens' spellings encoded as the plain text they are (tiktoken's `encode_ordinary`). */
  encode(text: string): number[] {
    const out: number[] = [];
    for (const match of text.matchAll(PIECES)) {
      const piece = match[0];
      let tokens = this.cache.get(piece);
      if (!tokens) {
        const bytes = Buffer.from(piece, 'utf8').toString('latin1');
        const whole = this.ranks.get(bytes);
        tokens = whole === undefined ? this.merge(bytes) : [whole];
        if (this.cache.size >= CACHE_PIECES) this.cache.clear();
        this.cache.set(piece, tokens);
      }
      for (const t of tokens) out.push(t);
    }
    return out;
  }

  /** The bytes of `tokens`, concatenated. */
  decode(tokens: ArrayLike<number>): Uint8Array {
    let latin1 = '';
    for (let i = 0; i < tokens.length; i++) latin1 += this.bytes[tokens[i]!] ?? '';
    return Buffer.from(latin1, 'latin1');
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
    const rankOf = (i: number): number => (i + 2 < starts.length ? (this.ranks.get(bytes.slice(starts[i]!, starts[i + 2]!)) ?? Infinity) : Infinity);
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
    for (let i = 0; i + 1 < starts.length; i++) tokens.push(this.ranks.get(bytes.slice(starts[i]!, starts[i + 1]!))!);
    return tokens;
  }
}
