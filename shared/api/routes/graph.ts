import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { neighbourhood } from '../../graph/neighbourhood.js';
import { errors, json, newRouter, type ApiDeps } from '../router.js';
import { NeighbourhoodBody, NeighbourhoodQuery, PageParams, TopBody, TopQuery } from '../schemas.js';

/** `/graph/…`: the top pages and a page's neighbourhood. */
export function graphRoutes(deps: ApiDeps): OpenAPIHono {
  const router = newRouter();
  router.openapi(
    createRoute({
      method: 'get',
      path: '/graph/top',
      summary: 'The most linked pages (PageRank, inlinks, linking hosts)',
      request: { query: TopQuery },
      responses: { 200: json(TopBody, 'Pages, best first.'), 400: errors[400] },
    }),
    async (c) => c.json({ pages: await deps.graph.top(c.req.valid('query').limit) }, 200),
  );

  router.openapi(
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

  return router;
}
