import { createHash } from 'node:crypto';
import { OpenAPIHono, createRoute, type z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { historyOf } from '../archive/replay.js';
import type { Embedder } from '../enrich/providers.js';
import { neighbourhood } from '../graph/neighbourhood.js';
import { errorMessage } from '../errors.js';
import type { Logger } from '../log/logger.js';
import { hybridSearch } from '../search/hybrid.js';
import type { CrawlStore, EnrichStore, GraphStore, VectorIndex } from '../store/ports/index.js';
import { authGuard, hostGuard, securityHeaders } from './guards.js';
import { ApiMetrics } from './metrics.js';
import {
  ErrorBody,
  HealthBody,
  MAX_HISTORY,
  MAX_MARKDOWN_CHARS,
  MAX_PAGE_LINKS,
  MAX_SEARCH_WINDOW,
  NeighbourhoodBody,
  NeighbourhoodQuery,
  PageBody,
  PageParams,
  RunBody,
  RunParams,
  RunsBody,
  SearchBody,
  SearchQuery,
  TopBody,
  TopQuery,
} from './schemas.js';
import type { UiAssets } from './ui-assets.js';

/** What the API reads: the same ports in both runtimes. */
export interface ApiDeps {
  store: CrawlStore;
  graph: GraphStore;
  enrich: EnrichStore;
  vectors: VectorIndex;
  /** Embeds queries the way the pages were embedded. */
  embedder: Embedder;
}

export interface ApiOptions {
  /** Every request but `/healthz` must carry it: `Authorization: Bearer <token>`. */
  token?: string;
  /**
   * Every request but `/healthz` must carry this header with a key whose SHA-256 (hex) is `sha256`
   * (the Lambda's public URL mode: the function's environment holds the hash, never the key).
   */
  apiKey?: { header: string; sha256: string };
  /**
   * Host headers answered beside loopback names and addresses (a name, an address, or `.domain`
   * for its subdomains); anything else is a 421 with no data (DNS rebinding).
   * @default []
   */
  allowedHosts?: readonly string[];
  /** The built web UI, served at `/`; without it `/` says how to build it. */
  ui?: UiAssets;
  logger?: Logger;
}

type Target = 'query' | 'param' | 'header' | 'json';
const TARGET_NAMES: Record<Target, string> = { query: 'query parameter', param: 'path parameter', header: 'header', json: 'body field' };

/** A 400 that names the parameter and what it expects. */
function validationMessage(target: Target, error: z.ZodError): string {
  const issue = error.issues[0];
  const name = issue?.path.join('.') || '(all)';
  return `invalid ${TARGET_NAMES[target] ?? target} "${name}": ${issue?.message ?? 'not valid'}`;
}

/** A cursor is the offset into one search's results, bound to the query and filters it came from. */
function searchKey(q: Record<string, unknown>): string {
  const { cursor: _c, limit: _l, ...rest } = q;
  return createHash('sha256').update(JSON.stringify(rest)).digest('base64url').slice(0, 12);
}
const encodeCursor = (offset: number, key: string) => Buffer.from(JSON.stringify({ o: offset, k: key })).toString('base64url');
function decodeCursor(cursor: string, key: string): number | string {
  try {
    const { o, k } = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { o: unknown; k: unknown };
    if (k !== key) return 'the cursor belongs to another query or filters: start again without cursor';
    if (typeof o !== 'number' || !Number.isInteger(o) || o < 0 || o >= MAX_SEARCH_WINDOW) return 'the cursor is out of range';
    return o;
  } catch {
    return "not a cursor this API made: pass the previous page's next";
  }
}

const json = (schema: z.ZodType, description: string) => ({ content: { 'application/json': { schema } }, description });
const errors = {
  400: json(ErrorBody, 'A parameter is not valid: the message names it.'),
  404: json(ErrorBody, 'No such page or run.'),
};

/**
 * The HTTP API and the web UI as one Hono app, the same under Node (`trawl serve`) and in a Lambda
 * (`hono/aws-lambda`). Every parameter is validated by its route schema (a 400 names it), unknown
 * ids are 404s, lists are capped, and `/openapi.json` is generated from the same schemas.
 */
export function createApi(deps: ApiDeps, options: ApiOptions = {}): OpenAPIHono {
  const metrics = new ApiMetrics();
  const app = new OpenAPIHono({
    defaultHook: (result, c) => {
      if (!result.success) return c.json({ error: validationMessage(result.target as Target, result.error) }, 400);
    },
  });

  app.use('*', async (c, next) => {
    await next();
    metrics.countRequest(c.req.routePath === '/*' ? 'other' : c.req.routePath, c.res.status);
  });
  app.use('*', securityHeaders);
  app.use('*', hostGuard(options.allowedHosts ?? []));
  app.use('*', authGuard(options));
  app.onError((err, c) => {
    options.logger?.error('api request failed', { path: c.req.path, error: errorMessage(err) });
    return c.json({ error: 'internal error: the server log has the details' }, 500);
  });
  app.notFound((c) => c.json({ error: `no route ${c.req.method} ${c.req.path}: see /openapi.json` }, 404));

  app.openapi(createRoute({ method: 'get', path: '/healthz', responses: { 200: json(HealthBody, 'The store answers.') } }), async (c) =>
    c.json({ ok: true, runs: (await deps.store.runs()).length }, 200),
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/search',
      summary: 'Hybrid search (BM25 and vectors, fused by reciprocal rank) with filters and cursor pagination',
      request: { query: SearchQuery },
      responses: { 200: json(SearchBody, 'Hits with why each matched.'), 400: errors[400] },
    }),
    async (c) => {
      const q = c.req.valid('query');
      const key = searchKey(q);
      const offset = q.cursor ? decodeCursor(q.cursor, key) : 0;
      if (typeof offset === 'string') return c.json({ error: `invalid query parameter "cursor": ${offset}` }, 400);
      const end = Math.min(offset + q.limit, MAX_SEARCH_WINDOW);
      const started = performance.now();
      const tags = q.tags?.split(',').map((t) => (t.startsWith('#') ? t : `#${t}`));
      const result = await hybridSearch(deps, {
        q: q.q,
        mode: q.mode,
        limit: end,
        filters: { tags, domain: q.domain, language: q.lang, since: q.since, until: q.until },
      });
      metrics.observeSearch((performance.now() - started) / 1000);
      const hits = result.hits.slice(offset, end);
      const next = result.hits.length >= end && end < MAX_SEARCH_WINDOW ? encodeCursor(end, key) : undefined;
      return c.json({ ...result, hits, next }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/pages/{id}',
      summary: 'A page: metadata, summary and tags, inlinks and outlinks with context, fetch history',
      request: { params: PageParams },
      responses: { 200: json(PageBody, 'The page.'), 400: errors[400], 404: errors[404] },
    }),
    async (c) => {
      const { id } = c.req.valid('param');
      const page = await deps.store.getPage(id);
      if (!page) return c.json({ error: `no stored page with id ${id}: ids come from search hits, /graph/top or links` }, 404);
      const [x, candidate, inlinks, outlinks, fetches] = await Promise.all([
        deps.store.getExtract(id),
        deps.enrich.enrichCandidate(id),
        deps.graph.inlinks(id),
        deps.graph.outlinks(id),
        deps.store.fetchHistory(id),
      ]);
      const e = candidate?.enrichment;
      return c.json(
        {
          id,
          url: page.url,
          host: page.host,
          status: page.status,
          mime: page.mime,
          fetchedAt: page.fetchedAt,
          bytes: page.bytes,
          title: x?.title ?? page.title,
          canonicalUrl: page.canonicalUrl,
          duplicateOf: page.duplicateOf,
          fetcher: page.fetcher,
          extraction: x && {
            language: x.language,
            published: x.published,
            description: x.description,
            wordCount: x.wordCount,
            readingMinutes: x.readingMinutes,
            method: x.method,
            nearDuplicateOf: x.nearDuplicateOf,
            textDuplicateOf: x.textDuplicateOf,
            metadata: x.metadata,
            markdown: x.markdown.slice(0, MAX_MARKDOWN_CHARS),
            markdownTruncated: x.markdown.length > MAX_MARKDOWN_CHARS,
          },
          enrichment: e && { summary: e.summary, tags: e.tags, model: e.summaryStamp.model, updatedAt: e.updatedAt },
          inlinks: inlinks.slice(0, MAX_PAGE_LINKS),
          inlinksTotal: inlinks.length,
          outlinks: outlinks.slice(0, MAX_PAGE_LINKS),
          outlinksTotal: outlinks.length,
          history: historyOf(fetches).slice(-MAX_HISTORY),
        },
        200,
      );
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/graph/top',
      summary: 'The most linked pages (PageRank, inlinks, linking hosts)',
      request: { query: TopQuery },
      responses: { 200: json(TopBody, 'Pages, best first.'), 400: errors[400] },
    }),
    async (c) => c.json({ pages: await deps.graph.top(c.req.valid('query').limit) }, 200),
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/graph/neighbourhood/{id}',
      summary: "A page's link neighbourhood (1 or 2 hops, either direction) as nodes and edges",
      request: { params: PageParams, query: NeighbourhoodQuery },
      responses: { 200: json(NeighbourhoodBody, 'Nodes and edges, capped.'), 400: errors[400], 404: errors[404] },
    }),
    async (c) => {
      const { id } = c.req.valid('param');
      const page = await deps.store.getPage(id);
      if (!page) return c.json({ error: `no stored page with id ${id}` }, 404);
      const n = await neighbourhood(deps.graph, id, page.url, c.req.valid('query').depth);
      const pages = await Promise.all(n.nodes.map((node) => deps.store.getPage(node.id)));
      const nodes = n.nodes.map((node, i) => ({ ...node, title: pages[i]?.title, fetched: pages[i] !== undefined }));
      return c.json({ ...n, nodes }, 200);
    },
  );

  app.openapi(createRoute({ method: 'get', path: '/runs', summary: 'Every run, newest first', responses: { 200: json(RunsBody, 'Runs.') } }), async (c) => {
    const runs = (await deps.store.runs()).reverse().map(({ id, status, startedAt, finishedAt, seeds }) => ({ id, status, startedAt, finishedAt, seeds }));
    return c.json({ runs }, 200);
  });

  app.openapi(
    createRoute({
      method: 'get',
      path: '/runs/{id}',
      summary: 'A run: counters, statuses, skips by reason, and pages/s over time',
      request: { params: RunParams },
      responses: { 200: json(RunBody, 'The run.'), 400: errors[400], 404: errors[404] },
    }),
    async (c) => {
      const { id } = c.req.valid('param');
      if (!(await deps.store.runs()).some((r) => r.id === id)) return c.json({ error: `no run ${id}: GET /runs lists them` }, 404);
      const [s, activity] = await Promise.all([deps.store.summary(id), deps.store.activity(id)]);
      const seconds = activity.bucketMs / 1000;
      return c.json(
        {
          id,
          status: s.status,
          startedAt: s.startedAt,
          finishedAt: s.finishedAt,
          seeds: s.seeds,
          requests: s.requests,
          pagesStored: s.pagesStored,
          unchanged: s.unchanged,
          duplicates: s.duplicates,
          bytes: s.bytes,
          urlsByState: s.urlsByState,
          fetchesByStatus: s.fetchesByStatus,
          skipsByReason: s.skipsByReason,
          hostsParked: s.hostsParked,
          bucketMs: activity.bucketMs,
          series: activity.points.map((p) => ({ ...p, pagesPerSecond: Number((p.ok / seconds).toFixed(3)) })),
        },
        200,
      );
    },
  );

  app.get('/metrics', async (c) => c.body(await metrics.render(deps.store, deps.enrich), 200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' }));

  app.doc31('/openapi.json', {
    openapi: '3.1.0',
    info: { title: 'trawl', version: '1', description: 'Search a crawl, read its pages and link graph, watch its runs.' },
  });

  const ui = options.ui;
  const asset = (c: Context, path: string) => {
    const file = ui?.get(path);
    if (!file) return undefined;
    return c.body(file.body as Uint8Array<ArrayBuffer>, 200, {
      'content-type': file.type,
      'cache-control': path === '/index.html' ? 'no-cache' : 'public, max-age=3600',
      'x-content-type-options': 'nosniff',
      'content-security-policy': "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'",
    });
  };
  app.get('/', (c) => asset(c, '/index.html') ?? c.json({ error: 'the web UI is not built: run npm run build:ui (the API routes work without it)' }, 503));
  app.get('/ui/:file', (c) => asset(c, `/${c.req.param('file')}`) ?? c.json({ error: `no UI file ${c.req.param('file')}` }, 404));
  return app;
}
