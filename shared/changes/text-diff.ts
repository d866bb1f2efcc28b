/**
 * A word-level diff of two versions of a page's markdown (jsdiff's `diffWords`), with long
 * unchanged stretches cut to a little context around each change.
 */
import { diffLines, diffWords, type ChangeObject } from 'diff';

export interface DiffPart {
  /** `=` the same in both, `-` only before, `+` only after, `…` unchanged words left out. */
  op: '=' | '-' | '+' | '…';
  text: string;
}

/** Words of unchanged text kept on each side of a change. */
const CONTEXT_WORDS = 12;
/** A word diff that takes longer than this (two unrelated long texts) falls back to a line diff. */
const WORD_DIFF_TIMEOUT_MS = 250;
/** Nor does a line diff run longer: past it the changed stretch is shown as removed, then added. */
const LINE_DIFF_TIMEOUT_MS = 500;
/**
 * Changed stretches longer than this (both sides) skip the word diff: jsdiff tokenises the whole
 * text before its timeout is first checked (2.9 MB took 1.7 s).
 */
const WORD_DIFF_MAX_CHARS = 200_000;
/** Characters of one removed or added part kept in the answer; the rest is counted. */
const MAX_PART_CHARS = 100_000;

/**
 * The diff of two versions, in time that grows with the changed stretch rather than the page: the
 * common start and end are set aside first (cut at white space), and what is left is diffed by
 * words, by lines past 200,000 characters, or shown whole past the timeouts.
 */
export function textDiff(before: string, after: string): DiffPart[] {
  const [head, tail] = commonEnds(before, after);
  const from = before.slice(head, before.length - tail);
  const to = after.slice(head, after.length - tail);
  const parts: DiffPart[] = [];
  if (head) parts.push({ op: '=', text: before.slice(0, head) });
  parts.push(...middleDiff(from, to));
  if (tail) parts.push({ op: '=', text: before.slice(before.length - tail) });
  return parts.flatMap((p, i) => (p.op === '=' ? trimContext(p.text, i > 0, i < parts.length - 1) : capPart(p)));
}

function middleDiff(from: string, to: string): DiffPart[] {
  if (!from && !to) return [];
  const changes: ChangeObject<string>[] | undefined =
    (from.length + to.length <= WORD_DIFF_MAX_CHARS ? diffWords(from, to, { timeout: WORD_DIFF_TIMEOUT_MS }) : undefined) ??
    diffLines(from, to, { timeout: LINE_DIFF_TIMEOUT_MS });
  if (!changes) return [...(from ? [{ op: '-' as const, text: from }] : []), ...(to ? [{ op: '+' as const, text: to }] : [])];
  return changes.map((c) => ({ op: c.added ? '+' : c.removed ? '-' : '=', text: c.value }));
}

/** The lengths of the start and the end both texts share, cut at white space (no word is split). */
function commonEnds(a: string, b: string): [number, number] {
  if (a === b) return [a.length, 0];
  const max = Math.min(a.length, b.length);
  const space = (c: string | undefined) => c !== undefined && /\s/.test(c);
  let head = 0;
  while (head < max && a.charCodeAt(head) === b.charCodeAt(head)) head++;
  while (head > 0 && !space(a[head - 1])) head--;
  let tail = 0;
  while (tail < max - head && a.charCodeAt(a.length - 1 - tail) === b.charCodeAt(b.length - 1 - tail)) tail++;
  while (tail > 0 && !space(a[a.length - tail])) tail--;
  return [head, tail];
}

/** A removed or added part of a huge change, kept to its first characters and a count of the rest. */
function capPart(p: DiffPart): DiffPart[] {
  if (p.text.length <= MAX_PART_CHARS) return [p];
  return [
    { op: p.op, text: p.text.slice(0, MAX_PART_CHARS) },
    { op: '…', text: ` … ${p.text.length - MAX_PART_CHARS} more characters ${p.op === '-' ? 'removed' : 'added'} … ` },
  ];
}

/** An unchanged stretch, keeping the words next to the changes before (`lead`) and after (`tail`) it. */
function trimContext(text: string, lead: boolean, tail: boolean): DiffPart[] {
  const words = text.split(/(\s+)/);
  const keep = CONTEXT_WORDS * 2;
  const head = lead ? keep : 0;
  const end = tail ? keep : 0;
  if (words.length <= head + end + 2) return [{ op: '=', text }];
  const out: DiffPart[] = [];
  if (head) out.push({ op: '=', text: words.slice(0, head).join('') });
  out.push({ op: '…', text: ' … ' });
  if (end) out.push({ op: '=', text: words.slice(words.length - end).join('') });
  return out;
}

/** The diff as text, the way `git diff --word-diff` writes it: `[-removed-]{+added+}`. */
export function diffText(parts: DiffPart[]): string {
  return parts.map((p) => (p.op === '-' ? `[-${p.text}-]` : p.op === '+' ? `{+${p.text}+}` : p.text)).join('');
}
