import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { ChangeDiffs, inlineDiff } from '../../changes/change-diffs.js';
import type { ChangeKind, ChangeStore } from '../../ports/index.js';
import { errors, json, newRouter } from '../router.js';
import { ChangesBody, ChangesQuery, DiffBody, DiffParams } from '../change-schemas.js';

/** `/changes`: what changed between runs, and the word diff of a changed page. */
export function changesRoutes(changes: ChangeStore, diffs = new ChangeDiffs(inlineDiff(changes))): OpenAPIHono {
  const router = newRouter();
  router.openapi(
    createRoute({
      method: 'get',
      path: '/changes',
      summary: 'What changed in a run since the run before: new, changed (with how much), removed, orphaned, newly linked, rank shifts',
      request: { query: ChangesQuery },
      responses: { 200: json(ChangesBody, 'Changes by run, kind and URL.'), 400: errors[400] },
    }),
    async (c) => {
      const q = c.req.valid('query');
      const found = await changes.changes({
        ...(q.since ? { since: Date.parse(q.since) } : { runId: q.run }),
        ...(q.kind ? { kinds: q.kind.split(',') as ChangeKind[] } : {}),
        ...(q.path ? { paths: [q.path] } : {}),
        limit: q.limit + 1,
      });
      return c.json({ changes: found.slice(0, q.limit), truncated: found.length > q.limit }, 200);
    },
  );
  router.openapi(
    createRoute({
      method: 'get',
      path: '/changes/{run}/{id}/diff',
      summary: "The word-level diff of a page's markdown before and after a run changed it",
      request: { params: DiffParams },
      responses: { 200: json(DiffBody, 'The diff: unchanged, removed and added stretches.'), 400: errors[400], 404: errors[404] },
    }),
    async (c) => {
      const { run, id } = c.req.valid('param');
      const parts = await diffs.diff(run, id);
      if (!parts) return c.json({ error: `run ${run} did not change page ${id}: ids and runs come from /changes` }, 404);
      return c.json({ runId: run, urlId: id, parts }, 200);
    },
  );
  return router;
}
