import { decodeBody, sniffCharset } from '../fetch/charset.js';
import type { FetchResponse } from '../fetch/http-fetcher.js';
import { parseFeed } from '../extract/feed.js';
import { extractHtmlSignals, robotsDirectives } from '../extract/html-signals.js';
import { maybeGunzip, parseSitemap } from '../extract/sitemap.js';
import type { AliasRecord, EdgeRecord, FrontierRow, PageRecord } from '../store/ports.js';
import { urlId } from '../url/canonical.js';
import type { Candidate } from './admission.js';
import type { CrawlContext } from './context.js';

/** Links kept per page after de-duplication, so one link farm cannot flood the frontier. */
export const MAX_LINKS_PER_PAGE = 500;
const FRESH_WINDOW_MS = 30 * 86_400_000;

export interface ContentResult {
  page?: PageRecord;
  edges?: EdgeRecord[];
  aliases: AliasRecord[];
  candidates: Candidate[];
  duplicateOf?: string;
}

function isFresh(date: string | undefined, now: number): boolean {
  if (!date) return false;
  const t = Date.parse(date);
  return !Number.isNaN(t) && now - t < FRESH_WINDOW_MS;
}

/** Sitemap index → more sitemaps; urlset → pages (fresh when modified in the last 30 days). */
export function sitemapCandidates(ctx: CrawlContext, row: FrontierRow, body: Buffer): Candidate[] {
  const xml = maybeGunzip(body, ctx.settings.maxBodyBytes * 10).toString('utf8');
  const sitemap = parseSitemap(xml);
  const now = ctx.clock();
  return sitemap.entries.map((e) => sitemap.kind === 'index'
    ? { href: e.loc, depth: row.depth, kind: 'sitemap' as const, structural: true, from: row.urlId }
    : { href: e.loc, depth: row.depth + 1, kind: 'page' as const, fresh: isFresh(e.lastmod, now), from: row.urlId });
}

export function feedCandidates(row: FrontierRow, text: string): Candidate[] {
  return parseFeed(text, row.url).items.map((item) => ({ href: item.url, depth: row.depth + 1, kind: 'page' as const, fresh: true, from: row.urlId }));
}

function basePage(row: FrontierRow, res: FetchResponse, contentHash: string | undefined, at: number, runId: number): PageRecord {
  return {
    urlId: row.urlId, url: row.url, host: row.host, runId, status: res.status, mime: res.mime, charset: res.charset, contentHash,
    bytes: res.body?.length ?? 0, truncated: res.truncated, etag: res.headers.etag, lastModified: res.headers['last-modified'],
    fetchedAt: at, indexable: true, nofollow: false,
  };
}

function edgesOf(ctx: CrawlContext, row: FrontierRow, links: ReturnType<typeof extractHtmlSignals>['links'], pageNofollow: boolean): EdgeRecord[] {
  const byTarget = new Map<string, EdgeRecord>();
  for (const link of links) {
    const toUrl = ctx.canonicalize(link.href);
    if (!toUrl || toUrl === row.url) continue;
    const toId = urlId(toUrl);
    const nofollow = pageNofollow || link.rel.includes('nofollow');
    const existing = byTarget.get(toId);
    // Keep one edge per target; a followable link wins over a nofollow one.
    if (existing && (existing.nofollow === false || nofollow)) continue;
    byTarget.set(toId, { fromId: row.urlId, toId, toUrl, anchor: link.text.slice(0, 300), rel: link.rel.join(' '), nofollow });
    if (byTarget.size >= MAX_LINKS_PER_PAGE) break;
  }
  return [...byTarget.values()];
}

/** An HTML page: robots directives, duplicates, links as edges and candidates, canonical alias, feeds. */
export async function htmlContent(ctx: CrawlContext, row: FrontierRow, res: FetchResponse, contentHash: string | undefined, at: number): Promise<ContentResult> {
  const body = res.body ?? Buffer.alloc(0);
  const charset = sniffCharset(body, res.charset, true);
  const page = { ...basePage(row, res, contentHash, at, row.runId), charset };
  const duplicate = contentHash ? await ctx.store.findPageByContentHash(contentHash, row.urlId) : undefined;
  if (duplicate) return { page: { ...page, duplicateOf: duplicate.urlId }, aliases: [], candidates: [], duplicateOf: duplicate.urlId };
  const signals = extractHtmlSignals(decodeBody(body, charset), row.url, ctx.robotsToken);
  const header = robotsDirectives(res.headers['x-robots-tag'], ctx.robotsToken);
  page.indexable = !(signals.noindex || header.noindex);
  page.nofollow = signals.nofollow || header.nofollow;
  page.title = signals.title;
  const edges = edgesOf(ctx, row, signals.links, page.nofollow);
  const candidates: Candidate[] = edges.map((e) => ({ href: e.toUrl, depth: row.depth + 1, kind: 'page' as const, nofollow: e.nofollow, from: row.urlId }));
  const aliases: AliasRecord[] = [];
  const canonical = signals.canonical ? ctx.canonicalize(signals.canonical) : null;
  if (canonical && canonical !== row.url) {
    page.canonicalUrl = canonical;
    aliases.push({ urlId: row.urlId, url: row.url, targetUrl: canonical, reason: 'rel-canonical' });
    candidates.push({ href: canonical, depth: row.depth, kind: 'page', structural: true, from: row.urlId });
  }
  if (!page.nofollow || ctx.settings.followNofollow) {
    for (const feed of signals.feeds) candidates.push({ href: feed, depth: row.depth + 1, kind: 'feed', fresh: true, from: row.urlId });
  }
  return { page, edges, aliases, candidates };
}

/** Any 2xx body: HTML is parsed for links; XML pages that are feeds yield items; PDFs and text are kept as they are. */
export async function contentOf(ctx: CrawlContext, row: FrontierRow, res: FetchResponse, contentHash: string | undefined, at: number): Promise<ContentResult> {
  if (row.kind === 'sitemap') return { aliases: [], candidates: sitemapCandidates(ctx, row, res.body ?? Buffer.alloc(0)) };
  if (row.kind === 'feed' || (res.contentClass === 'xml' && looksLikeFeed(res.body))) {
    const text = decodeBody(res.body ?? Buffer.alloc(0), sniffCharset(res.body ?? Buffer.alloc(0), res.charset, false));
    const candidates = feedCandidates(row, text);
    if (row.kind === 'feed' || candidates.length > 0) return { aliases: [], candidates };
  }
  if (res.contentClass === 'html') return htmlContent(ctx, row, res, contentHash, at);
  return { page: basePage(row, res, contentHash, at, row.runId), aliases: [], candidates: [] };
}

function looksLikeFeed(body: Buffer | null): boolean {
  const head = body?.subarray(0, 512).toString('latin1') ?? '';
  return /<(rss|feed|rdf:RDF)[\s>]/.test(head);
}
