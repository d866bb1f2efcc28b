// A Firecrawl-compatible surface over trawl's crawl: `POST /v1|v2/scrape`, `POST /v1|v2/crawl`,
// `GET` and `DELETE /v1|v2/crawl/{id}`, `POST /v1|v2/map`, so code written for Firecrawl's SDKs
// and loaders can point at a trawl server or a cloud deployment's API. Each call is a crawl job
// (its politeness, robots.txt and address guard always apply); the pages come back from the
// stores as Firecrawl documents. What trawl does not do is refused with Firecrawl's error shape,
// naming the option.
import { Hono, type Context } from 'hono';
import { specHash } from '../../enrich/extract-spec.js';
import type { PageRecord } from '../../ports/index.js';
import { checkJobSeeds } from '../job-seeds.js';
import { writeRequestOf } from '../write-access.js';
import { ForbiddenError, RequestRefusedError } from '../../errors.js';
import { answerDocument, documentOf } from '../firecrawl-documents.js';
import { FirecrawlJobs } from '../firecrawl-jobs.js';
import { searchRoute } from './firecrawl-search.js';
import type { FirecrawlOptions, FirecrawlReads, JsonAnswers } from '../firecrawl-ports.js';
import {
  BatchScrapeBody,
  body,
  crawlIdOf,
  CrawlBody,
  crawlJobOptions,
  failure,
  MapBody,
  parseCrawlId,
  ScrapeBody,
  wantedOf,
  webhookOf,
  type Wanted,
} from '../firecrawl-request.js';

export type { FirecrawlOptions, FirecrawlReads, JsonAnswers } from '../firecrawl-ports.js';

/** Documents a crawl status answers with at most; the rest come with `next`. */
const PAGE_DOCS = 100;
/** A v2 scrape answers from a page stored within this long unless told otherwise (Firecrawl's default: two days). */
const V2_MAX_AGE_MS = 2 * 86_400_000;
const EXPIRY_MS = 86_400_000;
/** Stored pages a map with `search` looks through, at least. */
const MAP_SEARCH_PAGES = 100_000;
/** How long the cloud's `json` waits for the page's extraction to its schema after the page was fetched. */
export const STORED_JSON_WAIT_MS = 30_000;
/**
 * The cloud's `json` format: the values a run's Summarize step extracted to the request's schema
 * with the deployment's chat model. A stored page extracted to that schema answers at once; any
 * other is fetched by a one-page run that carries the schema, and its values are waited for.
 */
export function runJson(chatModel: boolean, waitMs = STORED_JSON_WAIT_MS): JsonAnswers {
  const extractedOf = async (reads: FirecrawlReads, page: PageRecord) => (await reads.enrich.enrichCandidate(page.urlId))?.enrichment?.extracted;
  return {
    refusal: () =>
      chatModel
        ? undefined
        : 'the json format needs the deployment\'s chat model: give the construct\'s enrichment provider "bedrock" (its Summarize step extracts the page)',
    jobSettings: (spec) => ({ extractSchema: spec.schema, ...(spec.prompt ? { extractPrompt: spec.prompt } : {}) }),
    answersStored: async (reads, page, spec) => (await extractedOf(reads, page))?.spec === specHash(spec),
    async answer(reads, page, _x, spec) {
      const hash = specHash(spec);
      // The page workflow extracts after the page is stored: a page fetched just now may take a moment.
      const until = Date.now() + waitMs;
      for (;;) {
        const extracted = await extractedOf(reads, page);
        if (extracted?.spec === hash) return extracted.error ? { warning: `json: ${extracted.error}` } : { json: extracted.data };
        if (Date.now() > until)
          return { warning: 'json: the page has no extraction to this schema yet (its enrichment may have failed or be under way): ask again later' };
        await new Promise((r) => setTimeout(r, 500));
      }
    },
  };
}

/** The Firecrawl-compatible routes. */
export function firecrawlRoutes(options: FirecrawlOptions): Hono {
  const app = new Hono();
  const jobs = new FirecrawlJobs(options);
  for (const version of ['v1', 'v2'] as const) {
    scrapeRoute(app, jobs, version);
    crawlRoutes(app, jobs, version);
    mapRoute(app, jobs, version);
    searchRoute(app, jobs, version);
    batchRoutes(app, jobs, version);
  }
  return app;
}

type Version = 'v1' | 'v2';

/** `POST /scrape`: a stored page (fetched now when it is older than `maxAge`) as a document. */
function scrapeRoute(app: Hono, jobs: FirecrawlJobs, version: Version): void {
  app.post(`/${version}/scrape`, async (c) => {
    try {
      const req = await body(c, ScrapeBody);
      const wanted = wantedOf(req, version, jobs.options.json, !!jobs.options.questions);
      if (req.lockdown) lockdownRefusal(wanted);
      const fetched = req.lockdown
        ? await jobs.archivedPage(req.url)
        : await jobs.freshPage(c, req.url, req.maxAge ?? (version === 'v2' ? V2_MAX_AGE_MS : 0), wanted, req.timeout ?? jobs.waitMs);
      if ('answered' in fetched) {
        const answer = fetched.answered;
        return c.json({ success: true, data: await jobs.read((reads) => answerDocument(reads, answer, wanted, req.url)) }, 200);
      }
      const { page } = fetched;
      const data = await jobs.read(async (reads) => {
        const x = await reads.store.getExtract(page.urlId);
        const doc = await documentOf(reads, page, wanted, x, { sourceURL: req.url, questions: jobs.options.questions, summarize: jobs.options.summarize });
        if (wanted.json && jobs.options.json) {
          const { json, warning } = await jobs.options.json.answer(reads, page, x, wanted.json);
          if (json !== undefined) doc[version === 'v1' && !req.formats?.includes('json') ? 'extract' : 'json'] = json;
          if (warning) doc.warning = warning;
        }
        return doc;
      });
      return c.json({ success: true, data }, 200);
    } catch (err) {
      return failure(c, err);
    }
  });
}

/** What `lockdown` cannot answer: whatever needs a request to leave the machine. */
function lockdownRefusal(wanted: Wanted): void {
  if (wanted.actions) throw new RequestRefusedError('lockdown answers from the archive: actions and the screenshot format need the page fetched and rendered');
  if (wanted.json || wanted.question)
    throw new RequestRefusedError(
      'lockdown sends no request off the machine: the json and question formats call the chat model (the highlights format answers offline)',
    );
}

/** `POST /crawl`, and a crawl's status and cancel (`GET` and `DELETE /crawl/{id}`). */
function crawlRoutes(app: Hono, jobs: FirecrawlJobs, version: Version): void {
  app.post(`/${version}/crawl`, async (c) => {
    try {
      const req = await body(c, CrawlBody);
      const wanted = wantedOf(req.scrapeOptions ?? {}, version, jobs.options.json);
      const settings = crawlJobOptions(req, wanted);
      const canFollow = jobs.options.webhooks && jobs.options.jobs.follow && jobs.options.jobs.followPages;
      if (req.webhook && !canFollow)
        throw new RequestRefusedError(
          jobs.options.webhookRefusal ?? "a crawl's own webhook is not supported here: the server's --webhook receivers are told of every crawl",
        );
      await checkJobSeeds([req.url], jobs.options.allowPrivateNetwork);
      const hook = req.webhook === undefined ? undefined : await webhookOf(req.webhook, jobs.options.allowPrivateNetwork);
      const { caller } = writeRequestOf(c);
      const job = await jobs.options.jobs.start([req.url], settings, caller ? { caller } : {});
      const id = crawlIdOf(job.id, wanted.formats);
      if (hook) jobs.tellReceiver(job.id, id, hook, wanted);
      return c.json({ success: true, id, url: new URL(`/${version}/crawl/${id}`, c.req.url).href }, 200);
    } catch (err) {
      return failure(c, err);
    }
  });

  app.get(`/${version}/crawl/:id`, jobStatus(jobs, version, 'crawl'));
  app.delete(`/${version}/crawl/:id`, jobCancel(jobs, version, 'crawl'));
}

/**
 * `POST /batch/scrape`: the URLs as one crawl job that fetches each and follows nothing (depth 0),
 * and its status and cancel, answered as a crawl's.
 */
function batchRoutes(app: Hono, jobs: FirecrawlJobs, version: Version): void {
  app.post(`/${version}/batch/scrape`, async (c) => {
    try {
      const req = await body(c, BatchScrapeBody);
      const wanted = wantedOf(req, version, jobs.options.json);
      if (wanted.json || wanted.actions || wanted.question || wanted.highlights || wanted.attributes || wanted.summary)
        throw new RequestRefusedError(
          'a batch scrape answers with markdown, html, rawHtml and links: scrape a page for json, question, highlights, attributes, summary, actions or a screenshot',
        );
      const valid = req.urls.filter((u) => /^https?:\/\//i.test(u) && URL.canParse(u));
      const invalid = req.urls.filter((u) => !valid.includes(u));
      if (invalid.length && !req.ignoreInvalidURLs)
        throw new RequestRefusedError(
          `not http(s) URLs: ${invalid
            .slice(0, 5)
            .map((u) => JSON.stringify(u))
            .join(', ')} (ignoreInvalidURLs: true skips them)`,
        );
      if (!valid.length) throw new RequestRefusedError('no valid URL to scrape');
      await checkJobSeeds(valid, jobs.options.allowPrivateNetwork);
      const { caller } = writeRequestOf(c);
      const job = await jobs.options.jobs.start(
        valid,
        { maxPages: valid.length, maxDepth: 0, mainContent: wanted.mainContent, enrich: false },
        caller ? { caller } : {},
      );
      const id = crawlIdOf(job.id, wanted.formats);
      return c.json(
        { success: true, id, url: new URL(`/${version}/batch/scrape/${id}`, c.req.url).href, ...(invalid.length ? { invalidURLs: invalid } : {}) },
        200,
      );
    } catch (err) {
      return failure(c, err);
    }
  });
  app.get(`/${version}/batch/scrape/:id`, jobStatus(jobs, version, 'batch/scrape'));
  app.delete(`/${version}/batch/scrape/:id`, jobCancel(jobs, version, 'batch/scrape'));
}

/** Which Firecrawl job a status or cancel route answers for: a crawl, or a batch scrape. */
type JobRoute = 'crawl' | 'batch/scrape';

/** `GET /crawl/{id}` and `GET /batch/scrape/{id}`: the job's state and, once it ended, its pages as documents. */
function jobStatus(jobs: FirecrawlJobs, version: Version, route: JobRoute) {
  return async (c: Context) => {
    const id = c.req.param('id') ?? '';
    const { jobId, formats } = parseCrawlId(id);
    const job = await jobs.options.jobs.get(jobId);
    if (!job)
      return c.json({ success: false, error: `no ${route === 'crawl' ? 'crawl' : 'batch scrape'} ${id}: ids come from POST /${version}/${route}` }, 404);
    const skip = Math.max(0, Number(c.req.query('skip') ?? 0) || 0);
    const status = job.status === 'finished' ? 'completed' : job.status === 'stopped' ? 'cancelled' : job.status === 'failed' ? 'failed' : 'scraping';
    const wanted: Wanted = { formats, mainContent: 'article' };
    let data: Array<Record<string, unknown>> = [];
    let total = job.progress.pagesStored + job.progress.queued;
    let next: string | undefined;
    const runId = job.summary?.runId;
    if (runId !== undefined && status !== 'scraping') {
      total = job.progress.pagesStored;
      data = await jobs.read(async (reads) => {
        // The run's fetched pages a slice at a time, from the cursor the last answer's `next` carried
        // (or past `skip` pages): an answer reads its own pages only, never the run's whole URL list.
        let cursor = c.req.query('cursor') || undefined;
        for (let skipped = cursor ? 0 : skip; skipped > 0;) {
          const passed = await reads.store.runPages(runId, Math.min(skipped, 1000), cursor);
          skipped -= passed.urlIds.length;
          cursor = passed.cursor;
          if (!cursor) return [];
        }
        const slice = await reads.store.runPages(runId, PAGE_DOCS, cursor);
        if (slice.cursor) {
          const u = new URL(c.req.url);
          u.searchParams.set('skip', String(skip + slice.urlIds.length));
          u.searchParams.set('cursor', slice.cursor);
          next = u.href;
        }
        const pages = await Promise.all(slice.urlIds.map((id) => reads.store.getPage(id)));
        const own = pages.filter((p): p is PageRecord => p !== undefined && p.runId === runId && p.status !== undefined);
        return Promise.all(own.map(async (p) => documentOf(reads, p, wanted, await reads.store.getExtract(p.urlId))));
      });
    }
    return c.json(
      {
        success: true,
        status,
        completed: status === 'scraping' ? job.progress.pagesStored : total,
        total,
        creditsUsed: job.progress.pagesStored,
        expiresAt: new Date(job.createdAt + EXPIRY_MS).toISOString(),
        ...(next ? { next } : version === 'v2' ? { next: null } : {}),
        data,
        ...(job.error ? { error: job.error } : {}),
      },
      200,
    );
  };
}

/** `DELETE /crawl/{id}` and `DELETE /batch/scrape/{id}`: stops the job (a caller its own; an admin any). */
function jobCancel(jobs: FirecrawlJobs, version: Version, route: JobRoute) {
  return async (c: Context) => {
    const id = c.req.param('id') ?? '';
    const { jobId } = parseCrawlId(id);
    if (!(await jobs.options.jobs.get(jobId)))
      return c.json({ success: false, error: `no ${route === 'crawl' ? 'crawl' : 'batch scrape'} ${id}: ids come from POST /${version}/${route}` }, 404);
    try {
      const { caller } = writeRequestOf(c);
      await jobs.options.jobs.stop(jobId, caller ? { caller } : {});
    } catch (err) {
      if (err instanceof ForbiddenError) return c.json({ success: false, error: err.message }, 403);
      throw err;
    }
    return c.json({ success: true, status: 'cancelled' }, 200);
  };
}

/** `POST /map`: the page's on-site links and the site's stored pages, searched when asked. */
function mapRoute(app: Hono, jobs: FirecrawlJobs, version: Version): void {
  app.post(`/${version}/map`, async (c) => {
    try {
      const req = await body(c, MapBody);
      const fetched = await jobs.freshPage(c, req.url, V2_MAX_AGE_MS, { formats: new Set(), mainContent: 'article' }, jobs.waitMs);
      if ('answered' in fetched) throw new RequestRefusedError(`${req.url} answered ${fetched.answered.status}: there is no page to map from`, 502);
      const { page } = fetched;
      const links = await jobs.read(async (reads) => {
        const host = new URL(page.url).hostname;
        const onSite = (u: string) => {
          const h = new URL(u).hostname;
          return h === host || (req.includeSubdomains !== false && h.endsWith(`.${host.replace(/^www\./, '')}`));
        };
        const known = new Map<string, { url: string; title?: string; description?: string }>();
        known.set(page.url, { url: page.url, title: page.title });
        for (const l of await reads.graph.outlinks(page.urlId))
          if (onSite(l.toUrl) && !known.has(l.toUrl)) known.set(l.toUrl, { url: l.toUrl, title: l.anchor || undefined });
        const limit = req.limit ?? 5000;
        // The site's pages (its subdomains' too, `www.` or not); a search looks through more of them than it keeps.
        const site = new URL(page.url).host.replace(/^www\./, '');
        for (const p of (await reads.sitePages?.(site, req.search ? Math.max(limit, MAP_SEARCH_PAGES) : limit)) ?? [])
          if (onSite(p.url)) known.set(p.url, { url: p.url, title: p.title ?? known.get(p.url)?.title });
        let all = [...known.values()];
        if (req.search) {
          const q = req.search.toLowerCase();
          const score = (l: { url: string; title?: string }) => (l.url.toLowerCase().includes(q) ? 2 : 0) + (l.title?.toLowerCase().includes(q) ? 1 : 0);
          all = all.filter((l) => score(l) > 0).sort((a, b) => score(b) - score(a));
        }
        return all.slice(0, limit);
      });
      return c.json({ success: true, links: version === 'v1' ? links.map((l) => l.url) : links }, 200);
    } catch (err) {
      return failure(c, err);
    }
  });
}
