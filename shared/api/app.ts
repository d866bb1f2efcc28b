import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import type { Context, Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { PARSE_MAX_BYTES } from './firecrawl-request.js';
import { HTTPException } from 'hono/http-exception';
import { errorMessage } from '../errors.js';
import type { Logger } from '../log/logger.js';
import { authGuard, hostGuard, securityHeaders } from './guards.js';
import { writeDecision, writeGuard, writeRequestOf, type WriteAccess, type WritePolicy } from './write-access.js';
import { ApiMetrics } from './metrics.js';
import { json, newRouter, type ApiDeps } from './router.js';
import type { CrawlLauncher } from '../ports/crawl-launcher.js';
import { changesRoutes } from './routes/changes.js';
import { crawlsRoutes, type CrawlsRouteOptions } from './routes/crawls.js';
import { graphRoutes } from './routes/graph.js';
import { pagesRoutes } from './routes/pages.js';
import { runsRoutes } from './routes/runs.js';
import { searchRoutes } from './routes/search.js';
import { HealthBody } from './schemas.js';
import { completeDocument, PER_OPERATION_WRITES, registerPlainRoutes, type DocumentedGuards } from './openapi-doc.js';
import type { UiAssets } from './ui-assets.js';

export type { ApiDeps } from './router.js';

export interface ApiOptions extends WritePolicy {
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
  /** Crawls started over HTTP (`/crawls`); absent: no `/crawls`. Starting and stopping them needs write access. */
  crawls?: CrawlsRouteOptions & { jobs: CrawlLauncher };
  /**
   * The MCP tools over Streamable HTTP at `/mcp` (see `mcpHttpHandler`), told whether the request
   * may write (its writing tools refuse otherwise); absent: no `/mcp`.
   */
  mcp?: (request: Request, access: WriteAccess) => Promise<Response>;
  /**
   * The Firecrawl-compatible routes (`firecrawlRoutes`: `/v1|v2/scrape`, `/crawl`, `/map`), over the
   * same crawl jobs; absent: none. Their POSTs and DELETEs need write access like `/crawls`. Built
   * by the caller: the search API's bundle carries no structured extraction.
   */
  firecrawl?: Hono;
  /** The built web UI, served at `/`; without it `/` says how to build it. */
  ui?: UiAssets;
  logger?: Logger;
}

/** The largest request body the API reads: 100 seeds of 2,048 characters and every job setting fit with room to spare. */
export const MAX_BODY_BYTES = 1024 * 1024;

function clientError(err: HTTPException): string {
  if (err.status === 415) return 'the body is not declared as JSON: send it with Content-Type: application/json';
  if (/JSON/i.test(err.message)) return `the body is not valid JSON (${err.message}): send one JSON object, such as {"seeds":["https://example.com/"]}`;
  return err.message;
}

/**
 * The HTTP API and the web UI as one Hono app, the same under Node (`trawl serve`) and in a Lambda
 * (`hono/aws-lambda`). Every parameter is validated by its route schema (a 400 names it), unknown
 * ids are 404s, lists are capped, and `/openapi.json` is generated from the same schemas.
 */
export function createApi(deps: ApiDeps, options: ApiOptions = {}): OpenAPIHono {
  const metrics = new ApiMetrics();
  const app = newRouter();

  app.use('*', async (c, next) => {
    await next();
    metrics.countRequest(c.req.routePath === '/*' ? 'other' : c.req.routePath, c.res.status);
  });
  app.use('*', securityHeaders);
  app.use('*', hostGuard(options.allowedHosts ?? []));
  app.use('*', authGuard(options));
  // One write decision for every route and every MCP tool.
  const decide = writeDecision(options);
  app.use('*', writeGuard(decide, PER_OPERATION_WRITES));
  // A request body is a job or an MCP message: a few KiB. Larger ones are refused before they are read whole.
  // A file to parse (Firecrawl's /v2/parse) is the one larger body.
  const limited = (maxSize: number, what: string) =>
    bodyLimit({
      maxSize,
      // Answered before the body is read: the connection cannot carry another request (the rest of
      // the body is still on it), so the client is told to open a new one.
      onError: (c) => {
        c.header('connection', 'close');
        return c.json({ error: `the request body is over ${maxSize / 1024} KiB: ${what}` }, 413);
      },
    });
  const jobBody = limited(MAX_BODY_BYTES, 'a crawl job or an MCP message needs far less');
  const fileBody = limited(PARSE_MAX_BYTES + 64 * 1024, `a parsed file may have at most ${PARSE_MAX_BYTES} bytes`);
  app.use('*', (c, next) => (c.req.path === '/v2/parse' ? fileBody(c, next) : jobBody(c, next)));
  app.onError((err, c) => {
    // Hono's own refusals (a body that is not JSON, or not declared as JSON) are the client's to mend.
    if (err instanceof HTTPException && err.status < 500) return c.json({ error: clientError(err) }, err.status);
    options.logger?.error('api request failed', { path: c.req.path, error: errorMessage(err) });
    return c.json({ error: 'internal error: the server log has the details' }, 500);
  });
  app.notFound((c) => c.json({ error: `no route ${c.req.method} ${c.req.path}: see /openapi.json` }, 404));

  app.openapi(
    createRoute({
      method: 'get',
      path: '/healthz',
      summary: 'Whether the server and its store answer (no token needed)',
      responses: { 200: json(HealthBody, 'The store answers.') },
    }),
    async (c) => c.json({ ok: true, runs: (await deps.store.latestRun())?.id ?? 0 }, 200),
  );

  if (options.mcp) {
    const mcp = options.mcp;
    app.all('/mcp', (c) => {
      // Stateless: no stream the server starts (GET) and no session to end (DELETE), as MCP allows.
      if (c.req.method !== 'POST')
        return c.json({ jsonrpc: '2.0', error: { code: -32000, message: `${c.req.method} is not served: send MCP messages with POST` }, id: null }, 405, {
          allow: 'POST',
        });
      return mcp(c.req.raw, decide(writeRequestOf(c)));
    });
  }
  if (options.crawls) app.route('/', crawlsRoutes(options.crawls.jobs, options.crawls));
  if (options.firecrawl) app.route('/', options.firecrawl);
  app.route('/', searchRoutes(deps, metrics));
  app.route('/', pagesRoutes(deps));
  app.route('/', graphRoutes(deps));
  app.route('/', runsRoutes(deps));
  if (deps.changes) app.route('/', changesRoutes(deps.changes, deps.diffs));

  app.get('/metrics', async (c) => c.body(await metrics.render(deps.store, deps.enrich), 200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' }));

  const guards: DocumentedGuards = {
    token: options.token !== undefined,
    writeAuth: options.writeAuth ?? 'token',
    apiKeyHeader: options.apiKey?.header,
    crawls: options.crawls !== undefined,
    mcp: options.mcp !== undefined,
  };
  registerPlainRoutes(app, guards);
  app.get('/openapi.json', (c) =>
    c.json(
      completeDocument(
        app.getOpenAPI31Document({
          openapi: '3.1.0',
          info: {
            title: 'trawl',
            version: '1',
            description: 'Search a crawl, read its pages and link graph, watch its runs.',
            license: { name: 'Apache-2.0', url: 'https://www.apache.org/licenses/LICENSE-2.0' },
          },
          // The server this document came from: its paths are relative to it.
          servers: [{ url: '/', description: 'this server' }],
        }),
        guards,
      ),
      200,
    ),
  );

  const ui = options.ui;
  const asset = (c: Context, path: string) => {
    const file = ui?.get(path);
    if (!file) return undefined;
    return c.body(file.body as Uint8Array<ArrayBuffer>, 200, {
      'content-type': file.type,
      'cache-control': path === '/index.html' ? 'no-cache' : 'public, max-age=3600',
    });
  };
  app.get('/', (c) => asset(c, '/index.html') ?? c.json({ error: 'the web UI is not built: run npm run build:ui (the API routes work without it)' }, 503));
  app.get('/ui/:file', (c) => asset(c, `/${c.req.param('file')}`) ?? c.json({ error: `no UI file ${c.req.param('file')}` }, 404));
  return app;
}
