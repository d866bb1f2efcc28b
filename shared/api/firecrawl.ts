// A Firecrawl-compatible surface over trawl's crawl: `POST /v1|v2/scrape`, `POST /v1|v2/crawl`,
// `GET` and `DELETE /v1|v2/crawl/{id}`, `POST /v1|v2/map`, so code written for Firecrawl's SDKs
// and loaders can point at a trawl server. Each call is a crawl job of the server's (its
// politeness, robots.txt and address guard always apply); the pages come back from the data
// directory as Firecrawl documents. What trawl does not do is refused with Firecrawl's error
// shape, naming the option.
import * as cheerio from 'cheerio';
import type { Context } from 'hono';
import { Hono } from 'hono';
import { z } from 'zod';
import { decodeBody, sniffCharset } from '../fetch/charset.js';
import { errorMessage, JobQueueFullError, UsageError } from '../errors.js';
import { SchemaExtractor } from '../enrich/schema-extract.js';
import type { ChatClient } from '../enrich/providers.js';
import type { TrawlStore } from '../library/store.js';
import type { CrawlJob, CrawlLauncher } from '../store/ports/crawl-launcher.js';
import type { ExtractRecord, PageRecord } from '../store/ports/index.js';
import { checkJobSeeds } from './job-seeds.js';
import { pageActionsOf } from '../render/page-session.js';

export interface FirecrawlOptions {
  jobs: CrawlLauncher;
  /** Opens the data directory for reading (closed after each call). */
  open: () => TrawlStore;
  /** The server's chat model, for the `json` format; absent with the local provider. */
  chat?: ChatClient;
  allowPrivateNetwork: boolean;
  /** How long a scrape or a map waits for its page. @default 60_000 */
  waitMs?: number;
}

/** Documents a crawl status answers with at most; the rest come with `next`. */
const PAGE_DOCS = 100;
/** A v2 scrape answers from a page stored within this long unless told otherwise (Firecrawl's default: two days). */
const V2_MAX_AGE_MS = 2 * 86_400_000;
const EXPIRY_MS = 86_400_000;
const FORMATS = new Set(['markdown', 'html', 'rawHtml', 'links']);

const JsonFormat = z.object({ type: z.literal('json'), schema: z.record(z.string(), z.unknown()).optional(), prompt: z.string().optional() });
const ScrapeOptions = z
  .object({
    formats: z.array(z.union([z.string(), JsonFormat, z.object({ type: z.string() }).passthrough()])).optional(),
    onlyMainContent: z.boolean().optional(),
    includeTags: z.array(z.string()).optional(),
    excludeTags: z.array(z.string()).optional(),
    actions: z.array(z.unknown()).optional(),
    maxAge: z.number().int().min(0).optional(),
    timeout: z.number().int().positive().optional(),
    waitFor: z.number().int().min(0).optional(),
    mobile: z.boolean().optional(),
    location: z.unknown().optional(),
    jsonOptions: z.object({ schema: z.record(z.string(), z.unknown()).optional(), prompt: z.string().optional() }).optional(),
    extract: z.object({ schema: z.record(z.string(), z.unknown()).optional(), prompt: z.string().optional() }).optional(),
  })
  .passthrough();
const ScrapeBody = ScrapeOptions.extend({ url: z.string().min(1) });
const CrawlBody = z
  .object({
    url: z.string().min(1),
    limit: z.number().int().min(1).max(100_000).optional(),
    maxDepth: z.number().int().min(0).optional(),
    maxDiscoveryDepth: z.number().int().min(0).optional(),
    excludePaths: z.array(z.string()).optional(),
    includePaths: z.array(z.string()).optional(),
    allowExternalLinks: z.boolean().optional(),
    allowSubdomains: z.boolean().optional(),
    crawlEntireDomain: z.boolean().optional(),
    webhook: z.unknown().optional(),
    scrapeOptions: ScrapeOptions.optional(),
  })
  .passthrough();
const MapBody = z
  .object({
    url: z.string().min(1),
    search: z.string().optional(),
    limit: z.number().int().min(1).max(100_000).optional(),
    includeSubdomains: z.boolean().optional(),
  })
  .passthrough();

type Version = 'v1' | 'v2';
type Options = z.infer<typeof ScrapeOptions>;
interface Wanted {
  formats: Set<string>;
  /** The page's actions (Firecrawl's names), run in the renderer before it is read. */
  actions?: unknown[];
  json?: { schema?: Record<string, unknown>; prompt?: string };
  mainContent: 'article' | 'full';
}

/** A request trawl cannot serve as asked: a 400 in Firecrawl's error shape. */
class Refused extends Error {
  constructor(
    message: string,
    readonly status: 400 | 403 | 404 | 408 | 429 | 502 = 400,
  ) {
    super(message);
  }
}

/** What a scrape asks for, or why trawl refuses it. */
function wantedOf(options: Options, version: Version, chat: ChatClient | undefined): Wanted {
  if (options.includeTags?.length || options.excludeTags?.length)
    throw new Refused(
      'includeTags and excludeTags are not supported: trawl keeps the main content by its own rules (onlyMainContent: false keeps the whole readable page)',
    );
  if (options.mobile) throw new Refused('mobile is not supported: trawl renders with a desktop viewport');
  if (options.location) throw new Refused('location is not supported: trawl fetches from where the server is');
  const formats = new Set<string>();
  let json: Wanted['json'];
  for (const f of options.formats ?? ['markdown']) {
    const name = typeof f === 'string' ? f : f.type;
    if (name === 'json' || name === 'extract') {
      json = typeof f === 'string' ? (version === 'v1' ? (name === 'json' ? options.jsonOptions : options.extract) : undefined) : JsonFormat.parse(f);
      if (!json?.schema && !json?.prompt) throw new Refused(`the ${name} format needs a schema or a prompt`);
      continue;
    }
    if (!FORMATS.has(name)) throw new Refused(`the ${name} format is not supported: trawl serves markdown, html, rawHtml, links and json`);
    formats.add(name);
  }
  // Checked now: a bad action is this request's 400, naming it.
  if (options.actions?.length) pageActionsOf({ actions: options.actions });
  if (json && !chat)
    throw new Refused('the json format needs an LLM provider: start trawl serve with --provider openai (and --openai-base-url) or --provider bedrock');
  return {
    formats,
    json,
    mainContent: options.onlyMainContent === false ? 'full' : 'article',
    ...(options.actions?.length ? { actions: options.actions } : {}),
  };
}

const failure = (c: Context, err: unknown) => {
  if (err instanceof Refused) return c.json({ success: false, error: err.message }, err.status);
  if (err instanceof UsageError) return c.json({ success: false, error: err.message }, 400);
  if (err instanceof JobQueueFullError) return c.json({ success: false, error: err.message }, 429);
  throw err;
};

async function body<T extends z.ZodTypeAny>(c: Context, schema: T): Promise<z.infer<T>> {
  let raw: unknown;
  try {
    raw = await c.req.json();
  } catch {
    throw new Refused('the body is not JSON: send one JSON object with Content-Type: application/json');
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Refused(`invalid body field "${issue?.path.join('.') || '(all)'}": ${issue?.message ?? 'not valid'}`);
  }
  return parsed.data as z.infer<T>;
}

/** The Firecrawl-compatible routes. */
export function firecrawlRoutes(options: FirecrawlOptions): Hono {
  const app = new Hono();
  const waitMs = options.waitMs ?? 60_000;
  /** The formats of each crawl started here, for its documents. */
  const crawls = new Map<string, Wanted>();
  /** The pages of each ended crawl, in fetch order, once asked for. */
  const ended = new Map<string, PageRecord[]>();

  const withStore = async <T>(use: (store: TrawlStore) => Promise<T>): Promise<T> => {
    const store = options.open();
    try {
      return await use(store);
    } finally {
      await store.close();
    }
  };

  /** Starts a job and waits for it to end (a scrape or map: one page). */
  const oneJob = async (url: string, settings: Record<string, unknown>, timeoutMs: number): Promise<CrawlJob> => {
    const started = await options.jobs.start([url], settings);
    const until = Date.now() + timeoutMs;
    for (;;) {
      const job = await options.jobs.get(started.id);
      if (!job) throw new Refused('the job went away', 502);
      if (job.status === 'finished' || job.status === 'stopped' || job.status === 'failed') return job;
      if (Date.now() > until) {
        await options.jobs.stop(started.id);
        throw new Refused(`the page was not fetched within ${timeoutMs} ms (the server's crawl queue may be busy): try again, or raise timeout`, 408);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  };

  /** The stored page of a URL fetched within `maxAge`, else fetched now as a one-page crawl job. */
  const freshPage = async (url: string, maxAge: number, wanted: Wanted, timeoutMs: number): Promise<PageRecord> => {
    const stored = await withStore((s) => s.page(url));
    // A page with actions is the page after them: it is always fetched and rendered anew.
    if (stored && maxAge > 0 && !wanted.actions && Date.now() - stored.fetchedAt <= maxAge) return stored;
    await checkJobSeeds([url], options.allowPrivateNetwork);
    const settings = { maxPages: 1, maxDepth: 0, mainContent: wanted.mainContent, enrich: false, ...(wanted.actions ? { actions: wanted.actions } : {}) };
    const job = await oneJob(url, settings, timeoutMs);
    if (job.status === 'failed') throw new Refused(`the crawl of ${url} failed: ${job.error ?? 'see the server log'}`, 502);
    const page = await withStore((s) => s.page(url));
    if (!page || page.fetchedAt < job.createdAt)
      throw new Refused(`${url} was not fetched: robots.txt of the site may disallow it, or its host failed (GET /crawls/${job.id} has the run)`, 403);
    return page;
  };

  const documentOf = async (store: TrawlStore, page: PageRecord, wanted: Wanted, x?: ExtractRecord, sourceURL = page.url): Promise<Record<string, unknown>> => {
    const doc: Record<string, unknown> = {};
    const f = wanted.formats;
    if (f.has('markdown')) doc.markdown = x?.markdown ?? '';
    if (f.has('rawHtml') || f.has('html')) {
      const served = await store.replay(page.url).catch(() => undefined);
      const raw = served?.body ? decodeBody(served.body, sniffCharset(served.body, served.charset, true)) : '';
      if (f.has('rawHtml')) doc.rawHtml = raw;
      if (f.has('html')) {
        const dom = page.fetcher === 'browser' ? await store.replay(page.url, { view: 'rendered' }).catch(() => undefined) : undefined;
        doc.html = cleanHtml(dom?.body ? dom.body.toString('utf8') : raw);
      }
    }
    if (f.has('links')) doc.links = [...new Set((await store.outlinks(page.url)).map((l) => l.toUrl))];
    doc.metadata = {
      title: x?.title ?? page.title,
      description: x?.description,
      language: x?.language,
      ...(x?.author ? { author: x.author } : {}),
      ...(x?.published ? { publishedTime: x.published } : {}),
      ...(x?.siteName ? { ogSiteName: x.siteName } : {}),
      sourceURL,
      url: page.url,
      statusCode: page.status,
      contentType: page.mime,
    };
    return doc;
  };

  /** The `json` format: the page's values for the schema from the server's chat model (`wantedOf` made sure there is one). */
  const jsonOf = async (
    chat: ChatClient,
    page: PageRecord,
    x: ExtractRecord | undefined,
    json: NonNullable<Wanted['json']>,
  ): Promise<{ json?: unknown; warning?: string }> => {
    const extractor = new SchemaExtractor(chat, { schema: json.schema ?? { type: 'object' }, prompt: json.prompt });
    let out;
    try {
      out = await extractor.extract({ url: page.url, title: x?.title ?? page.title ?? '', markdown: x?.markdown ?? '' });
    } catch (err) {
      throw new Refused(`the ${chat.provider} model ${chat.model} failed: ${errorMessage(err)}`, 502);
    }
    return out.error ? { warning: `json: ${out.error}` } : { json: out.data };
  };

  for (const version of ['v1', 'v2'] as const) {
    app.post(`/${version}/scrape`, async (c) => {
      try {
        const req = await body(c, ScrapeBody);
        const wanted = wantedOf(req, version, options.chat);
        const page = await freshPage(req.url, req.maxAge ?? (version === 'v2' ? V2_MAX_AGE_MS : 0), wanted, req.timeout ?? waitMs);
        const data = await withStore(async (store) => {
          const x = await store.extraction(page.url);
          const doc = await documentOf(store, page, wanted, x, req.url);
          if (wanted.json && options.chat) {
            const { json, warning } = await jsonOf(options.chat, page, x, wanted.json);
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
        const wanted = wantedOf(req.scrapeOptions ?? {}, version, options.chat);
        if (req.includePaths?.length) throw new Refused('includePaths is not supported: use excludePaths (trawl denies URLs by pattern)');
        if (req.allowExternalLinks)
          throw new Refused('allowExternalLinks is not supported: a crawl stays on its host (allowSubdomains: true takes its domain)');
        if (req.webhook) throw new Refused("a crawl's own webhook is not supported: the server's --webhook receivers are told of every crawl (signed)");
        if (wanted.json) throw new Refused('the json format of a crawl is the crawl\'s extract schema: start it with POST /crawls and "extractSchema"');
        if (wanted.actions) throw new Refused('actions of a crawl go by URL pattern: start it with POST /crawls and "actions" rules');
        await checkJobSeeds([req.url], options.allowPrivateNetwork);
        const depth = req.maxDiscoveryDepth ?? req.maxDepth;
        const job = await options.jobs.start([req.url], {
          maxPages: req.limit ?? 10_000,
          ...(depth === undefined ? {} : { maxDepth: depth }),
          ...(req.excludePaths?.length ? { deny: req.excludePaths } : {}),
          ...(req.allowSubdomains || req.crawlEntireDomain ? { scope: 'domain' } : {}),
          mainContent: wanted.mainContent,
          enrich: false,
        });
        crawls.set(job.id, wanted);
        return c.json({ success: true, id: job.id, url: new URL(`/${version}/crawl/${job.id}`, c.req.url).href }, 200);
      } catch (err) {
        return failure(c, err);
      }
    });

    app.get(`/${version}/crawl/:id`, async (c) => {
      const id = c.req.param('id');
      const job = await options.jobs.get(id);
      if (!job) return c.json({ success: false, error: `no crawl ${id}: ids come from POST /${version}/crawl` }, 404);
      const skip = Math.max(0, Number(c.req.query('skip') ?? 0) || 0);
      const status = job.status === 'finished' ? 'completed' : job.status === 'stopped' ? 'cancelled' : job.status === 'failed' ? 'failed' : 'scraping';
      const wanted = crawls.get(id) ?? { formats: new Set(['markdown']), mainContent: 'article' as const };
      let data: Array<Record<string, unknown>> = [];
      let total = job.progress.pagesStored + job.progress.queued;
      let next: string | undefined;
      const runId = job.summary?.runId;
      if (runId !== undefined && status !== 'scraping') {
        const docs = await withStore(async (store) => {
          // An ended crawl's pages do not change: listed once (every page of the data directory is read to find them), then paged.
          let pages = ended.get(id);
          if (!pages)
            ended.set(id, (pages = (await store.pages()).filter((p) => p.runId === runId && p.status !== undefined).sort((a, b) => a.fetchedAt - b.fetchedAt)));
          total = pages.length;
          return Promise.all(pages.slice(skip, skip + PAGE_DOCS).map(async (p) => documentOf(store, p, wanted, await store.extraction(p.url))));
        });
        data = docs;
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
      if (!(await options.jobs.get(id))) return c.json({ success: false, error: `no crawl ${id}: ids come from POST /${version}/crawl` }, 404);
      await options.jobs.stop(id);
      return c.json({ success: true, status: 'cancelled' }, 200);
    });

    app.post(`/${version}/map`, async (c) => {
      try {
        const req = await body(c, MapBody);
        const page = await freshPage(req.url, V2_MAX_AGE_MS, { formats: new Set(), mainContent: 'article' }, waitMs);
        const links = await withStore(async (store) => {
          const host = new URL(page.url).hostname;
          const onSite = (u: string) => {
            const h = new URL(u).hostname;
            return h === host || (req.includeSubdomains !== false && h.endsWith(`.${host.replace(/^www\./, '')}`));
          };
          const known = new Map<string, { url: string; title?: string; description?: string }>();
          known.set(page.url, { url: page.url, title: page.title });
          for (const l of await store.outlinks(page.url))
            if (onSite(l.toUrl) && !known.has(l.toUrl)) known.set(l.toUrl, { url: l.toUrl, title: l.anchor || undefined });
          for (const p of await store.pages()) if (onSite(p.url)) known.set(p.url, { url: p.url, title: p.title ?? known.get(p.url)?.title });
          let all = [...known.values()];
          if (req.search) {
            const q = req.search.toLowerCase();
            const score = (l: { url: string; title?: string }) => (l.url.toLowerCase().includes(q) ? 2 : 0) + (l.title?.toLowerCase().includes(q) ? 1 : 0);
            all = all.filter((l) => score(l) > 0).sort((a, b) => score(b) - score(a));
          }
          return all.slice(0, req.limit ?? 5000);
        });
        return c.json({ success: true, links: version === 'v1' ? links.map((l) => l.url) : links }, 200);
      } catch (err) {
        return failure(c, err);
      }
    });
  }
  return app;
}

/** Firecrawl's `html`: the page without its scripts, styles, frames and comments. */
function cleanHtml(html: string): string {
  const $ = cheerio.load(html);
  $('script, style, noscript, iframe, template, link[rel="stylesheet"]').remove();
  $('*')
    .contents()
    .filter((_, n) => n.type === 'comment')
    .remove();
  return $.html();
}
