// The extraction corpus (../shared/corpora/extraction-eval) for bench:extract and train:blocks: its
// pages, their sites, folds by site, the snippet scoring, and the block classifier's training and
// cross-validation.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { execFileSync } from 'node:child_process';
import { getDomain } from 'tldts';
import { boilerplateProbability, judgeBlocks, trainBlockModel, type BlockModel, type BlockSample } from './block-classifier.js';
import { extractPage } from '../shared/extract/extract-page.js';
import { boundHtml } from '../shared/extract/bounds.js';
import { parseDocument } from '../shared/extract/dom.js';
import { mainContentText } from '../shared/extract/main-content.js';
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

/** A page extracted by the rules alone, with the blocks the classifier would judge. */
export interface PageRun {
  page: Page;
  site: string;
  /** The rules' text, normalised. */
  text: string;
  blocks: Array<{ text: string; features: number[] }>;
}

export function collectRuns(pages: Page[]): PageRun[] {
  return pages.map((page) => {
    const blocks: PageRun['blocks'] = [];
    let text = '';
    try {
      // The text `extractPage` makes (the same bounds, parse and content pass), with the blocks in view.
      const parse = () => parseDocument(boundHtml(page.html).html);
      const main = mainContentText(parse(), {
        reparse: parse,
        onBlocks: ({ model, nodes, blocks: all }) => {
          // Headings are the rules' to keep or drop: a headline is content to one reader and not to another.
          for (const b of judgeBlocks(model, all, nodes)) if (!/^h[1-6]$/.test(b.el.name)) blocks.push({ text: norm(b.text), features: b.features });
        },
      });
      text = norm(main.text);
    } catch {
      // An error is an empty text: scored as such.
    }
    return { page, site: siteOf(page.key), text, blocks };
  });
}

/** Labelled blocks: one holding a with-snippet is content, one holding a without-snippet (and no with-snippet) boilerplate. */
export function samplesOf(runs: PageRun[]): BlockSample[] {
  const out: BlockSample[] = [];
  for (const r of runs) {
    const want = r.page.with.map(norm).filter(Boolean);
    const unwanted = r.page.without.map(norm).filter(Boolean);
    for (const b of r.blocks) {
      const good = want.some((w) => b.text.includes(w));
      const bad = unwanted.some((w) => b.text.includes(w));
      if (good) out.push({ features: b.features, boilerplate: 0 });
      else if (bad) out.push({ features: b.features, boilerplate: 1 });
    }
  }
  return out;
}

/** A page's text once the model dropped the blocks it is confident about. */
export function textWith(run: PageRun, model: BlockModel | null, threshold = model?.threshold ?? 1): string {
  if (!model) return run.text;
  let text = run.text;
  for (const b of run.blocks) if (b.text && boilerplateProbability(model, b.features) > threshold) text = text.replace(b.text, ' ');
  return norm(text);
}

export function countRuns(runs: PageRun[], model: BlockModel | null, threshold?: number): Counts {
  const c = zeroCounts();
  for (const r of runs) countPage(c, r.page, textWith(r, model, threshold));
  return c;
}

const THRESHOLDS = [0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95];

/** Trains on `runs` and picks the drop threshold with the best snippet F1 on the same runs. */
export function fitBlockModel(runs: PageRun[], trainedOn: string): BlockModel {
  const model = trainBlockModel(samplesOf(runs), 1, trainedOn);
  let best = { threshold: 1, f1: prf(...tuple(countRuns(runs, null))).f1 };
  for (const t of THRESHOLDS) {
    const f1 = prf(...tuple(countRuns(runs, model, t))).f1;
    if (f1 > best.f1) best = { threshold: t, f1 };
  }
  return { ...model, threshold: best.threshold };
}

const tuple = (c: Counts): [number, number, number] => [c.tp, c.fp, c.fn];

/**
 * k-fold cross-validation by site: each fold's model (weights and threshold) is fitted on the other
 * folds and scored on it; the counts of the held-out folds are summed.
 */
export function crossValidate(runs: PageRun[], k: number): { rules: Counts; learned: Counts; thresholds: number[] } {
  const learned = zeroCounts();
  const thresholds: number[] = [];
  for (let f = 0; f < k; f++) {
    const train = runs.filter((r) => foldOf(r.site, k) !== f);
    const held = runs.filter((r) => foldOf(r.site, k) === f);
    const model = fitBlockModel(train, `folds other than ${f}`);
    thresholds.push(model.threshold);
    const c = countRuns(held, model);
    for (const key of Object.keys(c) as Array<keyof Counts>) learned[key] += c[key];
  }
  return { rules: countRuns(runs, null), learned, thresholds };
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
