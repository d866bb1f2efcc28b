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

export function textDiff(before: string, after: string): DiffPart[] {
  const changes: ChangeObject<string>[] = diffWords(before, after, { timeout: WORD_DIFF_TIMEOUT_MS }) ?? diffLines(before, after);
  const parts: DiffPart[] = changes.map((c) => ({ op: c.added ? '+' : c.removed ? '-' : '=', text: c.value }));
  return parts.flatMap((p, i) => (p.op === '=' ? trimContext(p.text, i > 0, i < parts.length - 1) : [p]));
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
