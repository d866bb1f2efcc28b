// Real articles (24 pages of 2025–2026 from the modern-eval corpus, Apache-2.0, in
// support/search/real) as a small blog on loopback: each article at /a/<id> as it was served,
// and the hub pages a blog has around them (the home page, an archive, a page per tag), each
// listing its articles' titles and first lines. A question per article is written from the middle
// of its text, in other words than the page's, never from its title.
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { join } from 'node:path';
import { serve } from '../helpers.js';
import { hybridSearch, type SearchDeps, type SearchMode } from '../../shared/search/hybrid.js';

export interface RealArticle {
  id: string;
  /** Where it was served. */
  url: string;
  title: string;
  /** Its first 40 words, as a listing shows them. */
  lede: string;
  tags: string[];
  question: string;
}

const DIR = join(import.meta.dirname, 'real');
export const REAL_ARTICLES: RealArticle[] = JSON.parse(readFileSync(join(DIR, 'articles.json'), 'utf8')) as RealArticle[];

const escape = (s: string) => s.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);

function hub(title: string, articles: RealArticle[], tags: string[]): string {
  const items = articles
    .map(
      (a) =>
        `<article class="post-card"><h2><a href="/a/${a.id}">${escape(a.title)}</a></h2><p>${escape(a.lede)}…</p>` +
        `<p class="meta">Filed under ${a.tags.map((t) => `<a href="/tag/${t}">${t}</a>`).join(', ')}</p><a class="more" href="/a/${a.id}">Read more</a></article>`,
    )
    .join('\n');
  const nav = tags.map((t) => `<li><a href="/tag/${t}">${t}</a></li>`).join('');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escape(title)} | The Reading Room</title></head><body><header><a href="/">The Reading Room</a><nav><ul>${nav}<li><a href="/archive">Archive</a></li></ul></nav></header><main><h1>${escape(title)}</h1>${items}</main></body></html>`;
}

/** The hub pages by path: the home page (the latest ten), the archive, and one page per tag. */
export function hubPages(): Map<string, string> {
  const tags = [...new Set(REAL_ARTICLES.flatMap((a) => a.tags))].sort();
  const pages = new Map<string, string>();
  pages.set('/', hub('Latest stories', REAL_ARTICLES.slice(-10).reverse(), tags));
  pages.set('/archive', hub('All stories', REAL_ARTICLES, tags));
  for (const t of tags)
    pages.set(
      `/tag/${t}`,
      hub(
        `Stories tagged ${t}`,
        REAL_ARTICLES.filter((a) => a.tags.includes(t)),
        tags,
      ),
    );
  return pages;
}

export async function startRealSite(): Promise<{ origin: string; close: () => Promise<void> }> {
  const hubs = hubPages();
  return serve((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    const hubPage = hubs.get(path);
    const m = /^\/a\/(\d{4})$/.exec(path);
    const article = m && REAL_ARTICLES.some((a) => a.id === m[1]) ? gunzipSync(readFileSync(join(DIR, `${m[1]}.html.gz`))) : undefined;
    if (hubPage === undefined && article === undefined) return void res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(hubPage ?? article);
  });
}

export interface RealScore {
  mode: SearchMode;
  mrr: number;
  recallAt5: number;
  /** Questions whose article a hub page outranked, with the hub's path. */
  hubAbove: string[];
  misses: string[];
  /** The rank of each question's article (0: not in the first 10). */
  ranks: number[];
  /** Hub pages in the first three hits, over all questions. */
  hubsInTop3: number;
}

/** Every question in one mode: the rank of its article, and whether a hub page came before it. */
export async function evaluateReal(deps: SearchDeps, mode: SearchMode, textWeight?: number): Promise<RealScore> {
  let rr = 0;
  let found = 0;
  const hubAbove: string[] = [];
  const misses: string[] = [];
  const ranks: number[] = [];
  let hubsInTop3 = 0;
  for (const a of REAL_ARTICLES) {
    const { hits } = await hybridSearch(deps, { q: a.question, mode, limit: 10, textWeight });
    const paths = hits.map((h) => new URL(h.url).pathname);
    const rank = paths.indexOf(`/a/${a.id}`) + 1;
    ranks.push(rank);
    hubsInTop3 += paths.slice(0, 3).filter((p) => !p.startsWith('/a/')).length;
    if (rank > 0) rr += 1 / rank;
    if (rank > 0 && rank <= 5) found++;
    else misses.push(`${a.question} → ${paths.slice(0, 3).join(', ') || 'nothing'}`);
    const before = (rank > 0 ? paths.slice(0, rank - 1) : paths).filter((p) => !p.startsWith('/a/'));
    if (before.length) hubAbove.push(`${a.question} → ${before.join(', ')} above /a/${a.id} (rank ${rank || 'none'})`);
  }
  const n = REAL_ARTICLES.length;
  return { mode, mrr: rr / n, recallAt5: found / n, hubAbove, misses, ranks, hubsInTop3 };
}
