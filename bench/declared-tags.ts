// A keyphrase set built from the corpora's own metadata for bench:tags: the pages of
// ../shared/corpora/modern-eval and extraction-eval that declare their keywords or tags
// (`<meta name="keywords">`, `news_keywords`, `article:tag`, `parsely-tags`), each with its main
// text (modern-eval's article text; for extraction-eval, trawl's extraction) and the declared
// keys as its gold. News and web pages, unlike the scientific abstracts of keyphrase-eval.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { gunzipSync } from 'node:zlib';
import * as cheerio from 'cheerio';
import { corpusPages, EXTRACT_OPTIONS } from './extraction-corpus.js';
import { extractPage } from '../shared/extract/extract-page.js';

export interface TaggedDoc {
  id: string;
  title: string;
  text: string;
  gold: string[];
  language?: string;
}

const MODERN = resolve(process.env.TRAWL_MODERN_CORPUS ?? '../shared/corpora/modern-eval');
const SELECTORS = ['meta[name="keywords" i]', 'meta[name="news_keywords" i]', 'meta[property="article:tag" i]', 'meta[name="parsely-tags" i]'];

/** The keys a page declares, each once: split on commas (and semicolons, bars), 1 to 5 words, at most 40. */
export function declaredKeys(html: string): string[] {
  const $ = cheerio.load(html);
  const keys = new Map<string, string>();
  for (const sel of SELECTORS)
    $(sel).each((_, el) => {
      for (const raw of ($(el).attr('content') ?? '').split(/[,;|]/)) {
        const key = raw.replace(/\s+/g, ' ').trim();
        const words = key.split(' ').length;
        if (key.length >= 2 && words <= 5 && !/^https?:/.test(key)) keys.set(key.toLowerCase(), key);
      }
    });
  return [...keys.values()].slice(0, 40);
}

/** A page is kept with at least 3 declared keys and 100 words of text. */
function keep(doc: TaggedDoc): boolean {
  return doc.gold.length >= 3 && doc.text.split(/\s+/).length >= 100;
}

/** modern-eval's pages that declare keys, with their article text. */
export function modernDeclared(): TaggedDoc[] {
  const truth = join(MODERN, 'ground-truth.json');
  if (!existsSync(truth)) return [];
  const gt = JSON.parse(readFileSync(truth, 'utf8')) as Record<string, { articleBody: string; url: string; title: string }>;
  const out: TaggedDoc[] = [];
  for (const file of readdirSync(join(MODERN, 'html')).sort()) {
    const id = file.replace(/\.html\.gz$/, '');
    const page = gt[id];
    if (!page) continue;
    const html = gunzipSync(readFileSync(join(MODERN, 'html', file))).toString('utf8');
    const gold = declaredKeys(html);
    if (gold.length === 0) continue;
    const language = extractPage(html, page.url, EXTRACT_OPTIONS).metadata.language;
    const doc = { id: `modern/${id}`, title: page.title, text: page.articleBody, gold, language };
    if (keep(doc)) out.push(doc);
  }
  return out;
}

/** extraction-eval's pages that declare keys, with trawl's extraction of their main text. */
export function snippetDeclared(): TaggedDoc[] {
  const out: TaggedDoc[] = [];
  for (const page of corpusPages()) {
    const gold = declaredKeys(page.html);
    if (gold.length === 0) continue;
    const x = extractPage(page.html, page.url, EXTRACT_OPTIONS);
    const doc = { id: `snippets/${page.key}`, title: x.metadata.title ?? '', text: x.text, gold, language: x.metadata.language };
    if (keep(doc)) out.push(doc);
  }
  return out;
}
