import { countTokens } from '../extract/chunks.js';
import { contentStems, sentences } from './text.js';

/** The extractive summary's bounds: at most this many sentences and tokens. */
export const SUMMARY_LIMITS = { sentences: 8, tokens: 200 } as const;

/** Sentences shorter than this (in words) are headings, captions or fragments, not claims. */
const MIN_WORDS = 5;
/** Longer ones are run-ons or lists flattened into one line. */
const MAX_WORDS = 80;
const DAMPING = 0.85;
const ITERATIONS = 40;

interface SentenceCandidate {
  index: number;
  text: string;
  stems: Set<string>;
  /** Counted when the sentence is considered for the summary (BPE is the costliest step). */
  tokens?: number;
}

/** TextRank's similarity: shared content words, normalised by the log lengths of both sentences. */
function similarity(a: SentenceCandidate, b: SentenceCandidate): number {
  if (a.stems.size < 2 || b.stems.size < 2) return 0;
  let shared = 0;
  for (const s of a.stems) if (b.stems.has(s)) shared++;
  return shared === 0 ? 0 : shared / (Math.log(a.stems.size) + Math.log(b.stems.size));
}

/** PageRank over the sentence graph, weighted by similarity; a small lead bias breaks flat graphs. */
function rank(candidates: SentenceCandidate[]): number[] {
  const n = candidates.length;
  const weights = candidates.map((a) => candidates.map((b) => (a === b ? 0 : similarity(a, b))));
  const outSum = weights.map((row) => row.reduce((s, w) => s + w, 0));
  const prior = candidates.map((_, i) => 1 / (1 + i * 0.15));
  const priorSum = prior.reduce((s, p) => s + p, 0);
  let score = prior.map((p) => p / priorSum);
  for (let it = 0; it < ITERATIONS; it++) {
    const next = prior.map((p) => ((1 - DAMPING) * p) / priorSum);
    for (let j = 0; j < n; j++) {
      if (outSum[j] === 0) continue;
      for (let i = 0; i < n; i++) {
        const w = weights[j]![i]!;
        if (w > 0) next[i]! += (DAMPING * score[j]! * w) / outSum[j]!;
      }
    }
    score = next;
  }
  return score;
}

/**
 * An extractive summary (TextRank): the page's most central sentences, in reading order, within
 * {@link SUMMARY_LIMITS}. Deterministic: ties go to the earlier sentence.
 *
 * @example summarizeExtractive(plainText(extract.markdown), 'en')
 */
export function summarizeExtractive(text: string, language?: string, maxCandidates = 120): string {
  const candidates: SentenceCandidate[] = [];
  for (const s of sentences(text, language)) {
    const wordsIn = s.split(/\s+/).length;
    if (wordsIn < MIN_WORDS || wordsIn > MAX_WORDS || !/[.!?…。]["'”’)]?$/.test(s)) continue;
    candidates.push({ index: candidates.length, text: s, stems: new Set(contentStems(s, language)) });
    if (candidates.length >= maxCandidates) break;
  }
  if (candidates.length === 0) return fallbackLead(text);
  const scores = rank(candidates);
  const order = [...candidates].sort((a, b) => scores[b.index]! - scores[a.index]! || a.index - b.index);
  const chosen: SentenceCandidate[] = [];
  let tokens = 0;
  for (const c of order) {
    if (chosen.length >= SUMMARY_LIMITS.sentences) break;
    c.tokens ??= countTokens(c.text);
    if (tokens + c.tokens > SUMMARY_LIMITS.tokens) continue;
    chosen.push(c);
    tokens += c.tokens;
  }
  if (chosen.length === 0) return fallbackLead(text);
  return chosen
    .sort((a, b) => a.index - b.index)
    .map((c) => c.text)
    .join(' ');
}

/** A page with no whole sentences (a list, a table): its first words, cut to the token budget. */
function fallbackLead(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  const out: string[] = [];
  let tokens = 0;
  for (const w of flat.split(' ')) {
    tokens += countTokens(` ${w}`);
    if (tokens > SUMMARY_LIMITS.tokens) break;
    out.push(w);
  }
  return out.join(' ');
}
