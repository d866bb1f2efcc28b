// A Firecrawl-compatible surface over trawl's crawl: `POST /v1|v2/scrape`, `POST /v1|v2/crawl`,
// `GET` and `DELETE /v1|v2/crawl/{id}`, `POST /v1|v2/map`, so code written for Firecrawl's SDKs
// and loaders can point at a trawl server or a cloud deployment's API. Each call is a crawl job
// (its politeness, robots.txt and address guard always apply); the pages come back from the
// stores as Firecrawl documents. What trawl does not do is refused with Firecrawl's error shape,
// naming the option.
import type { Context } from 'hono';
import { Hono } from 'hono';
import { specHash } from '../enrich/extract-spec.js';
import type { CrawlJob, CrawlLauncher } from '../store/ports/crawl-launcher.js';
import type { FetchRecord, PageRecord } from '../store/ports/index.js';
import { checkJobSeeds } from './job-seeds.js';
import { writeRequestOf } from './write-access.js';
import { ForbiddenError } from '../errors.js';
import type { WebhookSender } from './webhooks.js';
import { answerDocument, documentOf, idOfUrl } from './firecrawl-documents.js';
import type { FirecrawlReads, JsonAnswers } from './firecrawl-ports.js';
import {
  body,
  crawlIdOf,
  CrawlBody,
  failure,
  MapBody,
  parseCrawlId,
  Refused,
  ScrapeBody,
  wantedOf,
  webhookOf,
  type Wanted,
  type WebhookConfig,
} from './firecrawl-request.js';

export { UpstreamFailed } from './firecrawl-request.js';
export type { FirecrawlReads, JsonAnswers } from './firecrawl-ports.js';

export interface FirecrawlOptions {
  jobs: CrawlLauncher;
  /** Reads the stores (`trawl serve`: the data directory; the cloud: the table and the bucket). */
  read: <T>(use: (reads: FirecrawlReads) => Promise<T>) => Promise<T>;
  /** How the `json` format is answered; absent: it is refused. */
  json?: JsonAnswers;
  allowPrivateNetwork: boolean;
  /** How long a scrape or a map waits for its page. @default 60_000 */
  waitMs?: number;
  /**
   * Delivers a crawl's own `webhook` (signed and guarded as the server's); with jobs that can be
   * followed (`follow`, `followPages`). Absent: a crawl's webhook is refused with `webhookRefusal`.
   */
  webhooks?: WebhookSender;
  /** Why a crawl's webhook is refused here. @default the server's --webhook receivers are told of every crawl */
  webhookRefusal?: string;
}

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

/**
 * A Firecrawl `excludePaths` entry, a regular expression over a URL's path, as a trawl deny pattern
 * over the whole URL: a `^` anchors it at the path's start (after the scheme and host).
 */
export function excludedPath(pattern: string): string {
  const path = pattern.startsWith('^') ? `^[a-z][a-z0-9+.-]*://[^/?#]*(?:${pattern.slice(1)})` : pattern;
  return `/${path}/`;
}

/** What a scrape's fetch gave: a stored page, or an error status's answer (which stores no page). */
type Fetched = { page: PageRecord } | { answered: FetchRecord };

/** The Firecrawl-compatible routes. */
export function firecrawlRoutes(options: FirecrawlOptions): Hono {
  const app = new Hono();
  const waitMs = options.waitMs ?? 60_000;
  const read = options.read;

  /**
   * The page a one-page job fetched, once its extraction of that fetch is stored (the page after its
   * render, when it was rendered): the job's end is not waited for (the cloud's run loop notices it
   * up to a minute later). Undefined when the job ended without fetching it.
   */
  const fetchedBy = async (url: string, settings: Record<string, unknown>, timeoutMs: number, caller: string | undefined) => {
    const started = await options.jobs.start([url], settings, caller ? { caller } : {});
    const id = idOfUrl(url);
    const until = Date.now() + timeoutMs;
    for (;;) {
      const job = await options.jobs.get(started.id);
      if (!job) throw new Refused('the job went away', 502);
      const ended = job.status === 'finished' || job.status === 'stopped' || job.status === 'failed';
      const page = await read(async (r) => {
        const p = await r.store.getPage(id);
        if (!p || p.fetchedAt < started.createdAt) return undefined;
        // The extraction of this fetch (a page to render is extracted from its DOM, after the render).
        return (await r.store.getExtract(id))?.runId === p.runId || ended ? p : undefined;
      });
      if (page) return { job, page };
      if (ended) {
        if (job.status === 'failed') throw new Refused(`the crawl of ${url} failed: ${job.error ?? 'see the server log'}`, 502);
        return { job, page: undefined };
      }
      if (Date.now() > until) {
        await options.jobs.stop(started.id);
        throw new Refused(`the page was not fetched within ${timeoutMs} ms (the server's crawl queue may be busy): try again, or raise timeout`, 408);
      }
      await new Promise((r) => setTimeout(r, 200));
    }
  };

  /** The stored page of a URL fetched within `maxAge`, else fetched now as a one-page crawl job. */
  const freshPage = async (c: Context, url: string, maxAge: number, wanted: Wanted, timeoutMs: number): Promise<Fetched> => {
    const stored = await read((r) => r.store.getPage(idOfUrl(url)));
    const json = wanted.json && options.json;
    // A page with actions is the page after them: it is always fetched and rendered anew.
    if (stored && maxAge > 0 && !wanted.actions && Date.now() - stored.fetchedAt <= maxAge) {
      // …and a page asked for json is answered from the store when it can be.
      if (!json || !json.answersStored || (await read((r) => json.answersStored!(r, stored, wanted.json!)))) return { page: stored };
    }
    await checkJobSeeds([url], options.allowPrivateNetwork);
    const settings = {
      maxPages: 1,
      maxDepth: 0,
      mainContent: wanted.mainContent,
      enrich: false,
      ...(wanted.actions ? { actions: wanted.actions } : {}),
      ...(json && json.jobSettings ? json.jobSettings(wanted.json!) : {}),
    };
    const { job, page } = await fetchedBy(url, settings, timeoutMs, writeRequestOf(c).caller);
    return page ? { page } : { answered: await whyNotFetched(url, job) };
  };

  /**
   * A one-page job that stored no page: the answer it archived when the server answered with an
   * error status (a 404 is a document, as Firecrawl's), else a refusal naming the real cause.
   */
  const whyNotFetched = async (url: string, job: CrawlJob): Promise<FetchRecord> => {
    const history = await read((r) => r.store.fetchHistory(idOfUrl(url)));
    const answered = history.filter((f) => f.kind === 'page' && f.fetchedAt >= job.createdAt && f.status !== undefined && f.status >= 400).at(-1);
    if (answered) return answered;
    const skips = Object.keys(job.summary?.skipsByReason ?? {});
    const run = `GET /crawls/${job.id} has the run`;
    if (skips.includes('robots')) throw new Refused(`${url} was not fetched: robots.txt of ${new URL(url).origin} disallows it`, 403);
    if (skips.some((r) => r === 'private-address' || r === 'address-refused'))
      throw new Refused(`${url} was not fetched: it leads to a private or refused address (the server's --allow-private-network admits it)`, 403);
    if (skips.includes('content-type')) throw new Refused(`${url} was not fetched: its content type is not one trawl keeps as a page`, 415);
    const failed = history.filter((f) => f.fetchedAt >= job.createdAt && f.error).at(-1);
    const cause = failed?.error ?? (skips.length ? `skipped (${skips.join(', ')})` : 'its host did not answer');
    throw new Refused(`${url} was not fetched: ${cause} (${run})`, 502);
  };

  /**
   * Tells a crawl's own receiver, in Firecrawl's shape (`{ success, type, id, data, metadata }`):
   * `crawl.started`, each stored page as `crawl.page` with its document, then `crawl.completed`
   * or `crawl.failed` (a stopped crawl is `failed`, "cancelled"). Sent in that order.
   */
  const tellReceiver = (jobId: string, id: string, hook: WebhookConfig, wanted: Wanted): void => {
    const sender = options.webhooks!;
    let queue: Promise<void> = Promise.resolve();
    const tell = (type: string, body: () => Promise<Record<string, unknown>>) => {
      if (!hook.events.has(type)) return;
      queue = queue.then(async () => {
        try {
          const payload = JSON.stringify({ type: `crawl.${type}`, id, ...(await body()), metadata: hook.metadata });
          sender.sendTo(hook.url, `crawl.${type}`, payload, { headers: hook.headers, job: jobId });
        } catch {
          // A page that cannot be read now (replaced meanwhile) is left out; the crawl's status has it.
        }
      });
    };
    const unfollowPages = options.jobs.followPages!(jobId, (url) =>
      tell('page', () =>
        read(async (reads) => {
          const page = await reads.store.getPage(idOfUrl(url));
          if (!page) throw new Error(`${url} is not stored`);
          return { success: true, data: [await documentOf(reads, page, wanted, await reads.store.getExtract(page.urlId))] };
        }),
      ),
    );
    const unfollow = options.jobs.follow!(jobId, (e) => {
      if (e.type === 'crawl.started') tell('started', async () => ({ success: true, data: [] }));
      if (e.type === 'crawl.finished') tell('completed', async () => ({ success: true, data: [] }));
      if (e.type === 'crawl.stopped') tell('failed', async () => ({ success: false, data: [], error: 'the crawl was cancelled' }));
      if (e.type === 'crawl.failed') tell('failed', async () => ({ success: false, data: [], error: e.error }));
      if (e.type === 'crawl.finished' || e.type === 'crawl.stopped' || e.type === 'crawl.failed') {
        // Its end is the last thing told: queued after its pages.
        queue = queue.then(() => {
          unfollow?.();
          unfollowPages?.();
        });
      }
    });
  };

  for (const version of ['v1', 'v2'] as const) {
    app.post(`/${version}/scrape`, async (c) => {
      try {
        const req = await body(c, ScrapeBody);
        const wanted = wantedOf(req, version, options.json);
        const fetched = await freshPage(c, req.url, req.maxAge ?? (version === 'v2' ? V2_MAX_AGE_MS : 0), wanted, req.timeout ?? waitMs);
        if ('answered' in fetched) {
          const answer = fetched.answered;
          return c.json({ success: true, data: await read((reads) => answerDocument(reads, answer, wanted, req.url)) }, 200);
        }
        const { page } = fetched;
        const data = await read(async (reads) => {
          const x = await reads.store.getExtract(page.urlId);
          const doc = await documentOf(reads, page, wanted, x, req.url);
          if (wanted.json && options.json) {
            const { json, warning } = await options.json.answer(reads, page, x, wanted.json);
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

    app.post(`/${version}/crawl`, async (c) => {
      try {
        const req = await body(c, CrawlBody);
        const wanted = wantedOf(req.scrapeOptions ?? {}, version, options.json);
        if (req.includePaths?.length) throw new Refused('includePaths is not supported: use excludePaths (trawl denies URLs by pattern)');
        if (req.allowExternalLinks)
          throw new Refused('allowExternalLinks is not supported: a crawl stays on its host (allowSubdomains: true takes its domain)');
        const canFollow = options.webhooks && options.jobs.follow && options.jobs.followPages;
        if (req.webhook && !canFollow)
          throw new Refused(options.webhookRefusal ?? "a crawl's own webhook is not supported here: the server's --webhook receivers are told of every crawl");
        if (wanted.json) throw new Refused('the json format of a crawl is the crawl\'s extract schema: start it with POST /crawls and "extractSchema"');
        if (wanted.actions) throw new Refused('actions of a crawl go by URL pattern: start it with POST /crawls and "actions" rules');
        if (wanted.tags) throw new Refused('includeTags and excludeTags are for a scrape: a crawl keeps each page by --main-content (onlyMainContent)');
        await checkJobSeeds([req.url], options.allowPrivateNetwork);
        const hook = req.webhook === undefined ? undefined : await webhookOf(req.webhook, options.allowPrivateNetwork);
        const depth = req.maxDiscoveryDepth ?? req.maxDepth;
        const { caller } = writeRequestOf(c);
        const job = await options.jobs.start(
          [req.url],
          {
            maxPages: req.limit ?? 10_000,
            ...(depth === undefined ? {} : { maxDepth: depth }),
            ...(req.excludePaths?.length ? { deny: req.excludePaths.map(excludedPath) } : {}),
            ...(req.allowSubdomains || req.crawlEntireDomain ? { scope: 'domain' } : {}),
            mainContent: wanted.mainContent,
            enrich: false,
          },
          caller ? { caller } : {},
        );
        const id = crawlIdOf(job.id, wanted.formats);
        if (hook) tellReceiver(job.id, id, hook, wanted);
        return c.json({ success: true, id, url: new URL(`/${version}/crawl/${id}`, c.req.url).href }, 200);
      } catch (err) {
        return failure(c, err);
      }
    });

    app.get(`/${version}/crawl/:id`, async (c) => {
      const id = c.req.param('id');
      const { jobId, formats } = parseCrawlId(id);
      const job = await options.jobs.get(jobId);
      if (!job) return c.json({ success: false, error: `no crawl ${id}: ids come from POST /${version}/crawl` }, 404);
      const skip = Math.max(0, Number(c.req.query('skip') ?? 0) || 0);
      const status = job.status === 'finished' ? 'completed' : job.status === 'stopped' ? 'cancelled' : job.status === 'failed' ? 'failed' : 'scraping';
      const wanted: Wanted = { formats, mainContent: 'article' };
      let data: Array<Record<string, unknown>> = [];
      let total = job.progress.pagesStored + job.progress.queued;
      let next: string | undefined;
      const runId = job.summary?.runId;
      if (runId !== undefined && status !== 'scraping') {
        data = await read(async (reads) => {
          // The run's fetched pages from its own URL list, in the order it found them; only this answer's are read.
          const done = (await reads.store.seenUrls(runId)).filter((u) => u.kind === 'page' && u.state === 'done');
          total = done.length;
          const pages = await Promise.all(done.slice(skip, skip + PAGE_DOCS).map((u) => reads.store.getPage(u.urlId)));
          const own = pages.filter((p): p is PageRecord => p !== undefined && p.runId === runId && p.status !== undefined);
          return Promise.all(own.map(async (p) => documentOf(reads, p, wanted, await reads.store.getExtract(p.urlId))));
        });
        if (skip + PAGE_DOCS < total) {
          const u = new URL(c.req.url);
          u.searchParams.set('skip', String(skip + PAGE_DOCS));
          next = u.href;
        }
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
    });

    app.delete(`/${version}/crawl/:id`, async (c) => {
      const id = c.req.param('id');
      const { jobId } = parseCrawlId(id);
      if (!(await options.jobs.get(jobId))) return c.json({ success: false, error: `no crawl ${id}: ids come from POST /${version}/crawl` }, 404);
      try {
        const { caller } = writeRequestOf(c);
        await options.jobs.stop(jobId, caller ? { caller } : {});
      } catch (err) {
        if (err instanceof ForbiddenError) return c.json({ success: false, error: err.message }, 403);
        throw err;
      }
      return c.json({ success: true, status: 'cancelled' }, 200);
    });

    app.post(`/${version}/map`, async (c) => {
      try {
        const req = await body(c, MapBody);
        const fetched = await freshPage(c, req.url, V2_MAX_AGE_MS, { formats: new Set(), mainContent: 'article' }, waitMs);
        if ('answered' in fetched) throw new Refused(`${req.url} answered ${fetched.answered.status}: there is no page to map from`, 502);
        const { page } = fetched;
        const links = await read(async (reads) => {
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
  return app;
}
