// The extraction corpus (../shared/corpora/extraction-eval) for bench:extract and train:extract:
// its pages, their sites, folds by site, the snippet scoring, and the rules' cross-validation.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { execFileSync } from 'node:child_process';
import { getDomain } from 'tldts';
import { extractPage } from '../shared/extract/extract-page.js';
import { canonicalize } from '../shared/url/canonical.js';
import { withContentRules, type ContentRuleName } from '../shared/extract/content-rules.js';

export const CORPUS = resolve(process.env.TRAWL_CORPUS ?? '../shared/corpora/extraction-eval');
export const EXTRACT_OPTIONS = { canonicalize: (h: string) => canonicalize(h), robotsToken: 'trawl' };
export const norm = (s: string) => s.replace(/\s+/g, ' ').trim();
const words = (s: string) => norm(s).split(' ').filter(Boolean).length;

export interface Page {
  /** The corpus's own key of the page (a URL, or a name for pages without one). */
  key: string;
  url: string;
  html: string;
  with: string[];
  without: string[];
}

/** The corpus pages (unpacked from its pages.tgz into ~/.cache/extraction-eval like its own scorer), or none. */
export function corpusPages(): Page[] {
  if (!existsSync(join(CORPUS, 'pages.tgz'))) return [];
  const cache = join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'extraction-eval');
  if (!existsSync(join(cache, 'tests/evaldata.json'))) {
    mkdirSync(cache, { recursive: true });
    execFileSync('tar', ['xzf', join(CORPUS, 'pages.tgz'), '-C', cache]);
  }
  const data = JSON.parse(readFileSync(join(cache, 'tests/evaldata.json'), 'utf8')) as Record<string, { file: string; with: string[]; without: string[] }>;
  const file = (f: string) => [join(cache, 'tests/cache', f), join(cache, 'tests/eval', f)].find((p) => existsSync(p))!;
  return Object.keys(data)
    .sort()
    .map((key) => ({
      key,
      url: key.startsWith('http') ? key : `https://corpus.example/${data[key]!.file}`,
      html: readFileSync(file(data[key]!.file), 'utf8'),
      with: data[key]!.with,
      without: data[key]!.without,
    }));
}

/** The site a page comes from (its registrable domain; an archived page's original site), so no site is in two folds. */
export function siteOf(key: string): string {
  let u = key.replace(/^x(?=https?:)/, '');
  if (u.startsWith('hard::')) u = `https://${u.slice(6).split('-')[0]}/`;
  const archived = /web\.archive\.org\/web\/[^/]+\/(https?:\/\/.+)$/.exec(u);
  if (archived) u = archived[1]!;
  try {
    const host = new URL(u).hostname;
    return getDomain(host) ?? host;
  } catch {
    return u;
  }
}

/** The fold of a site among `k`: from a hash of its name, so folds never depend on the pages' order. */
export function foldOf(site: string, k: number): number {
  return createHash('sha256').update(site).digest().readUInt32BE(0) % k;
}

/** Snippet counts, and the same weighted by the snippets' words (a token-level view). */
export interface Counts {
  tp: number;
  fp: number;
  fn: number;
  tpWords: number;
  fpWords: number;
  fnWords: number;
}

export const zeroCounts = (): Counts => ({ tp: 0, fp: 0, fn: 0, tpWords: 0, fpWords: 0, fnWords: 0 });

/** Adds a page's snippets found (and not) in `text` (normalised) to `c`, like the corpus's own scorer. */
export function countPage(c: Counts, page: Page, text: string): Counts {
  for (const w of page.with) {
    const n = words(w);
    if (text.includes(norm(w))) {
      c.tp++;
      c.tpWords += n;
    } else {
      c.fn++;
      c.fnWords += n;
    }
  }
  for (const w of page.without)
    if (text.includes(norm(w))) {
      c.fp++;
      c.fpWords += words(w);
    }
  return c;
}

export function prf(tp: number, fp: number, fn: number): { precision: number; recall: number; f1: number } {
  const precision = tp / Math.max(1, tp + fp);
  const recall = tp / Math.max(1, tp + fn);
  return { precision, recall, f1: (2 * precision * recall) / Math.max(1e-9, precision + recall) };
}

/** A page extracted by the rules alone. */
export interface PageRun {
  page: Page;
  site: string;
  /** The rules' text, normalised. */
  text: string;
}

export function collectRuns(pages: Page[]): PageRun[] {
  return pages.map((page) => {
    let text = '';
    try {
      text = norm(extractPage(page.html, page.url, EXTRACT_OPTIONS).text);
    } catch {
      // An error is an empty text: scored as such.
    }
    return { page, site: siteOf(page.key), text };
  });
}

/** The rules whose values the cross-validation chooses per fold, each with the values it tries beside the shipped one. */
export const RULE_GRID: Partial<Record<ContentRuleName, number[]>> = {
  classifierOverride: [0.4, 0.8],
  minArticleChars: [130, 300],
  linkDensity: [0.25, 0.45],
  tailBlockChars: [60, 135],
  goodBlockChars: [100, 225],
  retryChars: [500, 2000],
  retryGain: [3, 10],
};

type Changes = Partial<Record<ContentRuleName, number>>;

function textUnder(page: Page, changes: Changes): string {
  try {
    return norm(withContentRules(changes, () => extractPage(page.html, page.url, EXTRACT_OPTIONS).text));
  } catch {
    return '';
  }
}

const add = (a: Counts, b: Counts) => {
  for (const key of Object.keys(a) as Array<keyof Counts>) a[key] += b[key];
  return a;
};
const f1Of = (c: Counts) => prf(c.tp, c.fp, c.fn).f1;

/**
 * The rules cross-validated by site: for each fold, each rule of `RULE_GRID` takes the value (the
 * shipped one or one it tries) with the best F1 on the other folds, the others as shipped; the
 * held-out fold is extracted with the values chosen and scored.
 */
export function crossValidateRules(runs: PageRun[], k: number): { counts: Counts; chosen: Changes[] } {
  const perPage = new Map<string, Counts[]>();
  const variants: Array<{ rule: ContentRuleName; value: number }> = [];
  for (const [rule, values] of Object.entries(RULE_GRID) as Array<[ContentRuleName, number[]]>) for (const value of values) variants.push({ rule, value });
  for (const v of variants)
    perPage.set(
      `${v.rule}=${v.value}`,
      runs.map((r) => countPage(zeroCounts(), r.page, textUnder(r.page, { [v.rule]: v.value }))),
    );
  const base = runs.map((r) => countPage(zeroCounts(), r.page, r.text));
  const counts = zeroCounts();
  const chosen: Changes[] = [];
  for (let f = 0; f < k; f++) {
    const inTrain = runs.map((r) => foldOf(r.site, k) !== f);
    const sum = (rows: Counts[]) => rows.reduce((acc, c, i) => (inTrain[i] ? add(acc, c) : acc), zeroCounts());
    const changes: Changes = {};
    const baseF1 = f1Of(sum(base));
    for (const rule of Object.keys(RULE_GRID) as ContentRuleName[]) {
      let best = baseF1;
      for (const v of variants.filter((x) => x.rule === rule)) {
        const f1 = f1Of(sum(perPage.get(`${rule}=${v.value}`)!));
        if (f1 > best) {
          best = f1;
          changes[rule] = v.value;
        }
      }
    }
    chosen.push(changes);
    for (const [i, r] of runs.entries())
      if (!inTrain[i]) add(counts, Object.keys(changes).length ? countPage(zeroCounts(), r.page, textUnder(r.page, changes)) : base[i]!);
  }
  return { counts, chosen };
}
