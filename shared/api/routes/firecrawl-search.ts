// Firecrawl's `POST /v1|v2/search` over the server's own hybrid index: the stored pages that answer
// the query, each with the page's passages for it as its `description` (Firecrawl's search
// highlights), and with `scrapeOptions` each hit as a document in the formats asked for, read from
// the stores (nothing is fetched: the index holds only pages the crawls stored).
import { RequestRefusedError } from '../../errors.js';
import type { Hono } from 'hono';
import { highlightsOf } from '../../search/highlights.js';
import { documentOf, idOfUrl } from '../firecrawl-documents.js';
import type { FirecrawlJobs } from '../firecrawl-jobs.js';
import { body, failure, SearchBody, wantedOf, type Version } from '../firecrawl-request.js';

/** A web hit's page stored within this long is its document with no new fetch (Firecrawl's scrape default). */
const WEB_MAX_AGE_MS = 2 * 86_400_000;

/**
 * The web's hits through the configured provider, as the index's: each hit's description its
 * archived page's passages when trawl holds the page, else the provider's snippet.
 */
function webIndex(webSearch: NonNullable<FirecrawlJobs['options']['webSearch']>): NonNullable<FirecrawlJobs['options']['search']> {
  return async (query, limit) => {
    const found = await webSearch(query, limit);
    return { hits: found.map((r) => ({ urlId: idOfUrl(r.url), url: r.url, title: r.title, summary: r.snippet })) };
  };
}

/** Firecrawl's default number of results. */
const DEFAULT_LIMIT = 5;

const hostOf = (url: string) => new URL(url).hostname;
const inDomain = (host: string, domain: string) => host === domain || host.endsWith(`.${domain.replace(/^\.+/, '')}`);

/** `POST /search`: the index's hits, highlighted, and scraped from the stores when `scrapeOptions` asks. */
export function searchRoute(app: Hono, jobs: FirecrawlJobs, version: Version): void {
  app.post(`/${version}/search`, async (c) => {
    try {
      const req = await body(c, SearchBody);
      const search = jobs.options.webSearch ? webIndex(jobs.options.webSearch) : jobs.options.search;
      if (!search) throw new RequestRefusedError('search is not served here: it answers from a trawl serve data directory’s search index');
      const sources = (req.sources ?? ['web']).map((s) => (typeof s === 'string' ? s : s.type));
      const other = sources.find((s) => s !== 'web');
      if (other) throw new RequestRefusedError(`the ${other} source is not supported: trawl searches the pages its crawls stored (the web source)`);
      const wanted = req.scrapeOptions?.formats?.length ? wantedOf(req.scrapeOptions, version, undefined, false) : undefined;
      if (wanted?.actions || wanted?.question)
        throw new RequestRefusedError("a search's scrapeOptions read the stored pages: actions, screenshot and question are not served there");
      const limit = req.limit ?? DEFAULT_LIMIT;
      // Domain filters apply before the limit: a few more hits are asked for when they are given.
      const answer = await search(req.query, req.includeDomains || req.excludeDomains ? limit * 4 : limit);
      const hits = answer.hits
        .filter((h) => !req.includeDomains || req.includeDomains.some((d) => inDomain(hostOf(h.url), d)))
        .filter((h) => !req.excludeDomains?.some((d) => inDomain(hostOf(h.url), d)))
        .slice(0, limit);
      // A web hit not yet archived is scraped first (a one-page crawl job each, politely), when its documents are asked for.
      if (wanted && jobs.options.webSearch) for (const h of hits) await jobs.freshPage(c, h.url, WEB_MAX_AGE_MS, wanted, jobs.waitMs).catch(() => undefined);
      const web = await jobs.read((reads) =>
        Promise.all(
          hits.map(async (h, i) => {
            const x = await reads.store.getExtract(h.urlId);
            const highlighted =
              req.highlights === false || !x ? '' : highlightsOf(x.markdown, req.query, { language: x.language, maxUnits: 3, maxChars: 600 }).text;
            const result: Record<string, unknown> = { url: h.url, title: h.title, description: highlighted || h.summary, position: i + 1 };
            const page = wanted && (await reads.store.getPage(h.urlId));
            return page ? { ...(await documentOf(reads, page, wanted, x, { summarize: jobs.options.summarize })), ...result } : result;
          }),
        ),
      );
      return c.json({ success: true, data: version === 'v1' ? web : { web }, ...(answer.warning ? { warning: answer.warning } : {}) }, 200);
    } catch (err) {
      return failure(c, err);
    }
  });
}
