import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { errors, json, newRouter, type ApiDeps } from '../router.js';
import { RunBody, RunParams, RunsBody, RunsQuery } from '../schemas.js';

/** `/runs` and `/runs/{id}`: the runs, with their counters and activity. */
export function runsRoutes(deps: ApiDeps): OpenAPIHono {
  const router = newRouter();
  router.openapi(
    createRoute({
      method: 'get',
      path: '/runs',
      summary: 'The runs, newest first, a page at a time',
      request: { query: RunsQuery },
      responses: { 200: json(RunsBody, 'Runs.'), 400: errors[400] },
    }),
    async (c) => {
      const { limit, before } = c.req.valid('query');
      const page = await deps.store.recentRuns(limit, before);
      const runs = page.map(({ id, status, startedAt, finishedAt, seeds }) => ({ id, status, startedAt, finishedAt, seeds }));
      const oldest = page.at(-1)?.id;
      return c.json({ runs, ...(page.length === limit && oldest !== undefined && oldest > 1 ? { next: oldest } : {}) }, 200);
    },
  );

  router.openapi(
    createRoute({
      method: 'get',
      path: '/runs/{id}',
      summary: 'A run: counters, statuses, skips by reason, and pages/s over time',
      request: { params: RunParams },
      responses: { 200: json(RunBody, 'The run.'), 400: errors[400], 404: errors[404] },
    }),
    async (c) => {
      const { id } = c.req.valid('param');
      if (!(await deps.store.getRun(id))) return c.json({ error: `no run ${id}: GET /runs lists them` }, 404);
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

  return router;
}
