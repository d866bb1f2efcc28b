import { hash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Cl100k } from './cl100k.js';
import { CL100K_RANKS, CL100K_RANKS_SOURCE } from './runtime-files.js';

/**
 * The rank table, beside this module (or beside a Lambda stage's bundle, which ships it:
 * lib/stages.ts), and checked when this module loads: a stage without it fails at its cold
 * start, not later on every page as a page without chunks.
 */
const RANKS = fileURLToPath(new URL(`./${CL100K_RANKS}`, import.meta.url));
if (!existsSync(RANKS))
  throw new Error(`the tokenizer's rank table ${RANKS} is missing: reinstall trawl (or, in a build of your own, copy ${CL100K_RANKS_SOURCE} there)`);
let cl100k: Cl100k | undefined;

/**
 * The tokenizer, loaded on first use: its ranks cost a thread ~7 MB and ~200 ms, and the crawl
 * thread, which only chunks when a search result or PDF needs it, should not carry them for nothing.
 */
function tokenizer(): Cl100k {
  cl100k ??= Cl100k.load(RANKS);
  return cl100k;
}
/** A piece of a document sized for an embedding model. */
export interface Chunk {
  id: string;
  text: string;
  tokens: number;
  /** Where the chunk starts in the document, 0 (start) to 1 (end). */
  position: number;
  prevId?: string;
  nextId?: string;
}

export interface ChunkOptions {
  targetTokens: number;
  overlap: number;
  minTokens: number;
  maxTokens: number;
}

/** Only this much of a document's text is chunked. */
export const MAX_CHUNKED_CHARS = 1024 * 1024;

/** 512 tokens with 15 % overlap, never below 100 or above 1024 (common embedding-model sweet spot). */
export const DEFAULT_CHUNKING: ChunkOptions = { targetTokens: 512, overlap: 0.15, minTokens: 100, maxTokens: 1024 };

interface Sentence {
  text: string;
  tokens: number;
  offset: number;
}

/**
 * BPE merging is quadratic in the length of one pre-token, so a 5 MB run of letters (a base64
 * blob, a generated page) would take minutes. Longer pre-tokens are merged in parts of this many
 * characters; natural-language words are far shorter, so real text tokenizes exactly as tiktoken does.
 */
const MAX_PIECE = 64;

/**
 * A page's text is data, not a prompt: a special token's spelling in it (an article about
 * tokenizers quoting `<|endoftext|>`) is encoded as the plain text it is.
 */
function tokenize(text: string): number[] {
  return tokenizer().encode(text, MAX_PIECE);
}

export function countTokens(text: string): number {
  return tokenize(text).length;
}

/** Token counts of stretches of a text, from one pass over it (`Cl100k.spans`). */
function spanCounter(text: string): (from: number, to: number) => number {
  const spans = tokenizer().spans(text, MAX_PIECE);
  return (from, to) => spans.countSpan(from, to);
}

/** Sentences (and paragraph breaks) with their token counts; a sentence longer than the maximum is cut by tokens. */
function sentences(text: string, maxTokens: number, count: (from: number, to: number) => number): Sentence[] {
  const out: Sentence[] = [];
  // Every character is in a sentence: one may start with its marks (`![image](…)`, `…and`), and a line of marks is one.
  const re = /[.!?]*[^.!?\n]+(?:[.!?]+["')\]]*|\n+|$)\s*|[.!?\n]+\s*/g;
  for (let m = re.exec(text); m && m[0].length > 0; m = re.exec(text)) {
    const counted = count(m.index, m.index + m[0].length);
    if (counted <= maxTokens) {
      out.push({ text: m[0], tokens: counted, offset: m.index });
      continue;
    }
    const tokens = tokenize(m[0]);
    let offset = m.index;
    // One decoder across the pieces: a character whose bytes two pieces share goes whole to the second.
    const utf8 = new TextDecoder();
    for (let i = 0; i < tokens.length; i += maxTokens) {
      const piece = utf8.decode(tokenizer().decode(tokens.slice(i, i + maxTokens)), { stream: i + maxTokens < tokens.length });
      out.push({ text: piece, tokens: Math.min(maxTokens, tokens.length - i), offset });
      offset += piece.length;
    }
  }
  return out;
}

/**
 * Splits text into chunks for embedding: whole sentences up to the target size, each chunk
 * starting with the last ~15 % of the one before, a short tail merged into its neighbour.
 * Ids are content hashes; neighbours are linked both ways.
 */
export function chunkText(fullText: string, options: ChunkOptions = DEFAULT_CHUNKING): Chunk[] {
  // 1 MiB of text is ~250k tokens, ~500 chunks: past that a "page" is a data dump, not prose to embed.
  const text = fullText.length > MAX_CHUNKED_CHARS ? fullText.slice(0, MAX_CHUNKED_CHARS) : fullText;
  const count = spanCounter(text);
  const all = sentences(text, options.maxTokens, count);
  if (all.length === 0) return [];
  const groups: Sentence[][] = [];
  let current: Sentence[] = [];
  let size = 0;
  const overlapTokens = Math.round(options.targetTokens * options.overlap);
  for (const s of all) {
    if (size + s.tokens > options.targetTokens && size >= options.minTokens) {
      groups.push(current);
      const carried: Sentence[] = [];
      let carriedSize = 0;
      for (let i = current.length - 1; i >= 0 && carriedSize < overlapTokens; i--) {
        if (carriedSize + current[i]!.tokens + s.tokens > options.maxTokens) break;
        carried.unshift(current[i]!);
        carriedSize += current[i]!.tokens;
      }
      current = carried;
      size = carriedSize;
    }
    current.push(s);
    size += s.tokens;
  }
  const lastSize = current.reduce((n, s) => n + s.tokens, 0);
  const previous = groups.at(-1);
  const newInLast = current.filter((s) => !previous?.includes(s));
  if (
    previous &&
    lastSize < options.minTokens &&
    previous.reduce((n, s) => n + s.tokens, 0) + newInLast.reduce((n, s) => n + s.tokens, 0) <= options.maxTokens
  ) {
    previous.push(...newInLast);
  } else groups.push(current);
  const chunks: Chunk[] = groups.map((g) => {
    const joined = g.map((s) => s.text).join('');
    const body = joined.trim();
    // Sentences that follow each other in the text: the body is a stretch of it, counted from the one pass.
    const from = g[0]!.offset;
    const stretch = text.startsWith(joined, from);
    const lead = joined.length - joined.trimStart().length;
    return {
      id: hash('sha256', body, 'hex').slice(0, 32),
      text: body,
      tokens: stretch ? count(from + lead, from + lead + body.length) : countTokens(body),
      position: Math.round((g[0]!.offset / Math.max(1, text.length)) * 1000) / 1000,
    };
  });
  // A text of white space and marks alone ("\n", "   ") has nothing to embed.
  if (chunks.length === 1 && !chunks[0]!.text) return [];
  chunks.forEach((c, i) => {
    c.prevId = chunks[i - 1]?.id;
    c.nextId = chunks[i + 1]?.id;
  });
  return chunks;
}
