import { decodeBody, sniffCharset } from '../../fetch/charset.js';
import { parseFeed } from '../../extract/feed.js';
import { extractPdf } from '../../extract/pdf.js';
import { gunzipCapped, parseSitemap } from '../../extract/sitemap.js';
import { PageProcessingError, type ProcessingStage } from '../../errors.js';
import type { AliasRecord, ChunkRecord, CrawlStore, EdgeRecord, ExtractRecord, FrontierRow, PageRecord } from '../../ports/index.js';
import type { LinkCandidate } from './admission.js';
import { sameUrl } from '../../url/canonical.js';
import type { CrawlContext } from './context.js';
import type { FetchOutcome } from './fetch-stage.js';
import { edgesOf, extractRecords, pdfExtraction } from './content-records.js';
import { renderModeFor } from '../../config/render-settings.js';
import { renderDecision, type HostRenderStats } from '../../render/decision.js';
import { notRendered, renderInfo, type RenderCapture, type RenderWanted } from './render-stage.js';

const FRESH_WINDOW_MS = 30 * 86_400_000;
/** The render reason of a page rendered for its actions (`--actions`). */
export const ACTIONS_REASON = 'actions';

/**
 * What reading a page's content needs of the crawl: its settings, extractor, clocks and logger,
 * the rendered DOMs, and of the store only who owns a body and which pages a text duplicates.
 */
export type ContentDeps = Pick<
  CrawlContext,
  'settings' | 'extractor' | 'stages' | 'clock' | 'logger' | 'inFlight' | 'rendering' | 'robotsToken' | 'scoring' | 'pageActions'
> & {
  store: Pick<CrawlStore, 'claimBody' | 'findNearDuplicate' | 'findTextDuplicate'>;
  blobs: Pick<CrawlContext['blobs'], 'get'>;
};

/** A content result with no aliases and no links to follow unless `fields` gives them: the one place that says so. */
export function contentResult(fields: Partial<ContentResult>): ContentResult {
  return { aliases: [], candidates: [], ...fields };
}

export interface ContentResult {
  page?: PageRecord;
  edges?: EdgeRecord[];
  extract?: ExtractRecord;
  chunks?: ChunkRecord[];
  aliases: AliasRecord[];
  candidates: LinkCandidate[];
  duplicateOf?: string;
  /** Processing failed at this stage: the page is kept as fetched and the URL fails with the error. */
  failure?: PageProcessingError;
  /** The page needs rendering: the caller renders it and processes it again with the capture. */
  renderWanted?: RenderWanted;
}

/** How a fetched page meets the browser: a decision to make (first pass), or a render to extract (second pass). */
export interface RenderPass {
  /** Decide whether the page needs rendering, with what rendering brought its host this run. */
  decide?: { host?: HostRenderStats };
  /** The page's render: its DOM is what gets extracted. */
  capture?: RenderCapture;
}

/** Runs one processing stage; any error becomes a `PageProcessingError` naming the stage. */
async function stage<T>(name: ProcessingStage, fn: () => T | Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw err instanceof PageProcessingError ? err : new PageProcessingError(name, err);
  }
}

function isFresh(date: string | undefined, now: number): boolean {
  if (!date) return false;
  const t = Date.parse(date);
  return !Number.isNaN(t) && now - t < FRESH_WINDOW_MS;
}

/** Sitemap index → more sitemaps; urlset → pages (fresh when modified in the last 30 days). */
export async function sitemapCandidates(ctx: ContentDeps, row: FrontierRow, body: Buffer): Promise<LinkCandidate[]> {
  const { data, cut } = await gunzipCapped(body, ctx.settings.maxBodyBytes * 10);
  if (cut) ctx.logger.warn('sitemap inflates past its cap: reading the entries before the cut', { url: row.url, capBytes: ctx.settings.maxBodyBytes * 10 });
  const xml = data.toString('utf8');
  const sitemap = parseSitemap(xml);
  // sitemaps.org: an index lists sitemaps, never other indexes. An index found in an index (a row
  // with a parent) lists nothing more, so a chain of indexes ends at its second link in both
  // runtimes, with no state to keep; one index lists at most --max-sitemaps children.
  if (sitemap.kind === 'index' && row.discoveredFrom) {
    ctx.logger.warn('a sitemap index inside a sitemap index: not followed (indexes do not nest)', { url: row.url });
    return [];
  }
  if (sitemap.kind === 'index') sitemap.entries = sitemap.entries.slice(0, ctx.settings.maxSitemaps);
  const now = ctx.clock();
  return sitemap.entries.map((e) =>
    sitemap.kind === 'index'
      ? { href: e.loc, depth: row.depth, kind: 'sitemap' as const, structural: true, from: row.urlId }
      : { href: e.loc, depth: row.depth + 1, kind: 'page' as const, fresh: isFresh(e.lastmod, now), from: row.urlId },
  );
}

export function feedCandidates(row: FrontierRow, text: string): LinkCandidate[] {
  return parseFeed(text, row.url).items.map((item) => ({ href: item.url, depth: row.depth + 1, kind: 'page' as const, fresh: true, from: row.urlId }));
}

/** What a host answered, as the content stages read it: the response, the body's hash, when, and the page that first fetched these bytes. */
export type Answered = Pick<Extract<FetchOutcome, { kind: 'response' }>, 'res' | 'contentHash' | 'at' | 'bodyOwner'>;

function basePage(row: FrontierRow, { res, contentHash, at }: Answered): PageRecord {
  return {
    urlId: row.urlId,
    url: row.url,
    host: row.host,
    runId: row.runId,
    status: res.status,
    mime: res.mime,
    charset: res.charset,
    contentHash,
    bytes: res.body?.length ?? 0,
    truncated: res.truncated,
    etag: res.headers.etag,
    lastModified: res.headers['last-modified'],
    fetchedAt: at,
    indexable: true,
    nofollow: false,
  };
}

/** An HTML page: full extraction (content, metadata, links with context), duplicates, canonical alias, feeds. */
async function htmlContent(ctx: ContentDeps, row: FrontierRow, answered: Answered, pass: RenderPass = {}): Promise<ContentResult> {
  const { res, contentHash, at, bodyOwner } = answered;
  const body = res.body ?? Buffer.alloc(0);
  const page = { ...basePage(row, answered), charset: sniffCharset(body, res.charset, true) };
  const owner = bodyOwner ?? (contentHash ? await ctx.store.claimBody(contentHash, row.urlId, at) : row.urlId);
  if (owner !== row.urlId) return contentResult({ page: { ...page, duplicateOf: owner }, duplicateOf: owner });
  const { capture } = pass;
  const rendered = capture?.ok && capture.renderedHash ? await ctx.blobs.get(capture.renderedHash) : undefined;
  if (capture?.ok && !rendered) throw new PageProcessingError('render', `the rendered DOM ${capture.renderedHash} is missing from the blob store`);
  let x;
  try {
    x = await stage('extract', () =>
      ctx.extractor.extract({
        // The served bytes are decoded where the page is extracted: the crawl thread holds them once.
        ...(rendered ? { html: rendered.toString('utf8') } : { bytes: body, charset: res.charset }),
        url: row.url,
        mode: ctx.settings.extract,
        mainContent: ctx.settings.mainContent,
        robotsToken: ctx.robotsToken,
        xRobotsTag: res.headers['x-robots-tag'],
        fields: ctx.scoring.fields,
        timed: ctx.stages.enabled || undefined,
      }),
    );
    ctx.stages.merge(x.timings);
  } catch (err) {
    return contentResult({ page, failure: err as PageProcessingError });
  }
  if (x.decoded) page.charset = x.decoded.charset;
  page.indexable = !x.noindex;
  page.nofollow = x.nofollow;
  page.title = x.title;
  if (capture) {
    page.render = renderInfo(capture);
    if (rendered) page.fetcher = 'browser';
  } else if (pass.decide) {
    // A page with actions to run is rendered: the actions are the user's ask.
    const decision = ctx.pageActions?.(row.url)
      ? { render: true, reason: ACTIONS_REASON }
      : renderDecision(x.shell, renderModeFor(ctx.settings, row.host), row.runId, pass.decide.host, row.url);
    const available = ctx.rendering !== 'none';
    page.render = notRendered(decision, available);
    // It is processed again from its DOM: links, chunks and near-duplicate lookups wait for that pass.
    if (decision.render && available)
      return contentResult({ page, renderWanted: { reason: decision.reason, served: { textChars: x.shell.textChars, links: x.shell.links } } });
  }
  const snapshot = contentHash ?? 'empty';
  const edges = edgesOf(row, snapshot, x);
  // Candidates carry the href as written, so the interaction record keeps the raw target.
  const candidates: LinkCandidate[] = edges.map((e, i) => ({
    href: x.links[i]!.href,
    depth: row.depth + 1,
    kind: 'page' as const,
    nofollow: e.nofollow,
    from: row.urlId,
    link: { anchor: e.anchor, context: e.context, section: e.section, sameHost: e.internal },
  }));
  const aliases: AliasRecord[] = [];
  if (x.linkCanonical && !sameUrl(x.linkCanonical, row.url)) {
    page.canonicalUrl = x.linkCanonical;
    aliases.push({ urlId: row.urlId, url: row.url, targetUrl: x.linkCanonical, reason: 'rel-canonical' });
    candidates.push({ href: x.linkCanonical, depth: row.depth, kind: 'page', structural: true, from: row.urlId });
  }
  if (!page.nofollow || ctx.settings.followNofollow) {
    for (const feed of x.feeds) candidates.push({ href: feed, depth: row.depth + 1, kind: 'feed', fresh: true, from: row.urlId });
    // Where the page's script tried to take the browser (blocked there): URLs like its links.
    for (const href of capture?.navigations ?? []) candidates.push({ href, depth: row.depth + 1, kind: 'page', from: row.urlId });
  }
  const records =
    'markdown' in x
      ? await extractRecords(ctx, row, snapshot, x, {
          notes: {
            cuts: x.cuts,
            charset: x.decoded?.guessed && { ...x.decoded.guessed, used: x.decoded.charset },
            problems: x.problems,
          },
        })
      : {};
  return { page, edges, aliases, candidates, ...records };
}

async function pdfContent(ctx: ContentDeps, row: FrontierRow, answered: Answered): Promise<ContentResult> {
  const { res, contentHash } = answered;
  const page = basePage(row, answered);
  if (!res.body || res.truncated) return contentResult({ page });
  let pdf;
  try {
    pdf = await stage('pdf', () => ctx.stages.timeAsync('PDF', () => (ctx.extractor.pdf ? ctx.extractor.pdf(res.body!) : extractPdf(res.body!))));
  } catch (err) {
    return contentResult({ page, failure: err as PageProcessingError });
  }
  page.title = pdf.title;
  let parts;
  try {
    parts = await stage('pdf', () => ctx.extractor.textParts(pdf.text, ctx.stages.enabled));
    ctx.stages.merge(parts.timings);
  } catch (err) {
    return contentResult({ page, failure: err as PageProcessingError });
  }
  return contentResult({ page, ...(await extractRecords(ctx, row, contentHash ?? 'empty', pdfExtraction(pdf, parts), { pdfPages: pdf.pages })) });
}

/** Any 2xx body: HTML is extracted, XML feeds yield items, PDFs give text; other text is kept as it is. */
export async function contentOf(ctx: ContentDeps, row: FrontierRow, answered: Answered, pass: RenderPass = {}): Promise<ContentResult> {
  const { res } = answered;
  if (row.kind === 'sitemap') return contentResult({ candidates: await stage('sitemap', () => sitemapCandidates(ctx, row, res.body ?? Buffer.alloc(0))) });
  if (row.kind === 'feed' || (res.contentClass === 'xml' && looksLikeFeed(res.body))) {
    const text = decodeBody(res.body ?? Buffer.alloc(0), sniffCharset(res.body ?? Buffer.alloc(0), res.charset, false));
    const candidates = await stage('feed', () => feedCandidates(row, text));
    if (row.kind === 'feed' || candidates.length > 0) return contentResult({ candidates });
  }
  if (res.contentClass === 'html') return htmlContent(ctx, row, answered, pass);
  if (res.contentClass === 'pdf') return pdfContent(ctx, row, answered);
  return contentResult({ page: basePage(row, answered) });
}

function looksLikeFeed(body: Buffer | null): boolean {
  const head = body?.subarray(0, 512).toString('latin1') ?? '';
  return /<(rss|feed|rdf:RDF)[\s>]/.test(head);
}
