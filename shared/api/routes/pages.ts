import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { historyOf } from '../../archive/replay.js';
import { errors, json, newRouter, type ApiDeps } from '../router.js';
import { MAX_HISTORY, MAX_MARKDOWN_CHARS, MAX_PAGE_LINKS, PageBody, PageParams } from '../schemas.js';

/** `/pages/{id}`: a page with its links, enrichment and history. */
export function pagesRoutes(deps: ApiDeps): OpenAPIHono {
  const router = newRouter();
  router.openapi(
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
          enrichment: e && {
            summary: e.summary,
            tags: e.tags,
            model: e.summaryStamp.model,
            updatedAt: e.updatedAt,
            ...(e.extracted ? { extracted: { data: e.extracted.data, sources: e.extracted.sources, error: e.extracted.error } } : {}),
          },
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

  return router;
}
