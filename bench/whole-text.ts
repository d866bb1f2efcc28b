// The whole-text corpus (../shared/corpora/modern-eval: pages of 2025–2026 with their article text)
// for bench:extract, scored as the field's article-extraction benchmark scores (Zyte's evaluate.py):
// `\w+` tokens, 4-token shingles as a multiset, per-page precision and recall, their means, and F1
// of the means; by page type too.
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { gunzipSync } from 'node:zlib';

export const WHOLE_TEXT_CORPUS = resolve(process.env.TRAWL_WHOLE_TEXT_CORPUS ?? '../shared/corpora/modern-eval');

export interface WholeTextPage {
  id: string;
  url: string;
  type: string;
  html: string;
  truth: string;
}

export function wholeTextPages(): WholeTextPage[] {
  const file = join(WHOLE_TEXT_CORPUS, 'ground-truth.json');
  if (!existsSync(file)) return [];
  const truth = JSON.parse(readFileSync(file, 'utf8')) as Record<string, { url?: string; pageType?: string; articleBody?: string }>;
  return Object.entries(truth).map(([id, t]) => ({
    id,
    url: t.url || 'https://example.com/',
    type: t.pageType ?? 'other',
    html: gunzipSync(readFileSync(join(WHOLE_TEXT_CORPUS, 'html', `${id}.html.gz`))).toString('utf8'),
    truth: t.articleBody ?? '',
  }));
}

const tokens = (s: string) => s.match(/[\p{L}\p{N}_]+/gu) ?? [];

function shingles(s: string): Map<string, number> {
  const t = tokens(s);
  const out = new Map<string, number>();
  for (let i = 0; i < Math.max(1, t.length - 3); i++) {
    const k = t.slice(i, i + 4).join('\u0000');
    if (k) out.set(k, (out.get(k) ?? 0) + 1);
  }
  return out;
}

/** The truths' shingles, made once (the training scores the same pages many times). */
const truthShingles = new Map<string, Map<string, number>>();

/** One page's shingle precision and recall (null where the method leaves a page out of a mean). */
export function pageScore(truth: string, predicted: string): { p: number | null; r: number | null } {
  let t = truthShingles.get(truth);
  if (!t) truthShingles.set(truth, (t = shingles(truth)));
  const q = shingles(predicted);
  let tp = 0;
  let np = 0;
  let nt = 0;
  for (const v of q.values()) np += v;
  for (const v of t.values()) nt += v;
  for (const [k, v] of q) tp += Math.min(v, t.get(k) ?? 0);
  const fp = np - tp;
  const fn = nt - tp;
  const p = fp === 0 && fn === 0 ? 1 : tp === 0 && fp === 0 ? 0 : tp / (tp + fp);
  const r = fp === 0 && fn === 0 ? 1 : tp === 0 && fn === 0 ? 0 : tp / (tp + fn);
  return { p: tp + fp > 0 ? p : null, r: tp + fn > 0 ? r : null };
}

/** F1 of the mean precision and the mean recall of some pages. */
export function wholeTextF1(scores: Array<{ p: number | null; r: number | null }>): { precision: number; recall: number; f1: number } {
  const mean = (xs: Array<number | null>) => {
    const v = xs.filter((x): x is number => x !== null);
    return v.length ? v.reduce((a, b) => a + b, 0) / v.length : 0;
  };
  const precision = mean(scores.map((s) => s.p));
  const recall = mean(scores.map((s) => s.r));
  return { precision, recall, f1: precision + recall ? (2 * precision * recall) / (precision + recall) : 0 };
}
