import { createHash } from 'node:crypto';
import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { hybridSearch } from '../../search/hybrid.js';
import type { ApiMetrics } from '../metrics.js';
import { errors, json, newRouter, type ApiDeps } from '../router.js';
import { MAX_SEARCH_WINDOW, SearchBody, SearchQuery } from '../schemas.js';

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

/** `/search`: hybrid search with filters and cursor pagination. */
export function searchRoutes(deps: ApiDeps, metrics: ApiMetrics): OpenAPIHono {
  const router = newRouter();
  router.openapi(
    createRoute({
      method: 'get',
      path: '/search',
      summary: 'Hybrid search (BM25 and vectors, fused by match strength; listings below what they list) with filters and cursor pagination',
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

  return router;
}
