import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { streamSSE } from 'hono/streaming';
import { createHash, timingSafeEqual } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import { JOB_SETTINGS, type CrawlJobs, type JobEvent, type JobOptions, type JobSetting } from '../crawl-jobs.js';
import { SETTINGS } from '../../config/settings.js';
import { errors, json, newRouter } from '../router.js';
import { preflight } from '../../fetch/preflight.js';

const CrawlBody = z
  .object({
    seeds: z.array(z.string().min(1)).min(1).max(100),
    // Each setting a job may choose, validated by the settings table's own schema.
    ...(Object.fromEntries(JOB_SETTINGS.map((name) => [name, SETTINGS[name].schema.optional()])) as {
      [K in JobSetting]: z.ZodOptional<(typeof SETTINGS)[K]['schema']>;
    }),
  })
  .strict();
const JobParams = z.object({ id: z.string().uuid() });
const JobBody = z.object({
  id: z.string(),
  status: z.enum(['queued', 'running', 'finished', 'stopped', 'failed']),
  seeds: z.array(z.string()),
  progress: z.object({ requests: z.number(), pagesStored: z.number(), queued: z.number(), errors: z.number() }),
  summary: z.record(z.string(), z.unknown()).optional(),
  error: z.string().optional(),
  createdAt: z.number(),
});

const sha = (s: string) => createHash('sha256').update(s).digest();

/** Write routes need a token even on loopback: the write token, else the server's token; with neither they are refused. */
function writeGuard(writeToken: string | undefined): MiddlewareHandler {
  const expected = writeToken === undefined ? undefined : sha(writeToken);
  return async (c, next) => {
    if (c.req.method === 'GET') return next();
    if (!expected) return c.json({ error: 'starting crawls over HTTP is off: start trawl serve with --write-token <secret> (or TRAWL_API_WRITE_TOKEN)' }, 403);
    const given = /^Bearer (.+)$/.exec(c.req.header('authorization') ?? '')?.[1];
    if (given === undefined || !timingSafeEqual(sha(given), expected))
      return c.json({ error: 'missing or wrong write token: send Authorization: Bearer <write token>' }, 401);
    return next();
  };
}

/** `/crawls`: start a crawl (202 with its id), follow it (status, Server-Sent Events), stop it. */
export function crawlsRoutes(jobs: CrawlJobs, options: { writeToken?: string; allowPrivateNetwork: boolean }): OpenAPIHono {
  const router = newRouter();
  router.use('/crawls', writeGuard(options.writeToken));
  router.use('/crawls/*', writeGuard(options.writeToken));
  router.openapi(
    createRoute({
      method: 'post',
      path: '/crawls',
      summary: 'Start a crawl of the data directory (one at a time; later ones queue)',
      request: { body: { content: { 'application/json': { schema: CrawlBody } } } },
      responses: { 202: json(z.object({ id: z.string(), status: z.string() }), 'The job, queued.'), 400: errors[400] },
    }),
    async (c) => {
      const body = c.req.valid('json');
      for (const seed of body.seeds)
        if (/^https?:\/\//i.test(seed)) {
          try {
            await preflight(seed, { allowPrivateNetwork: options.allowPrivateNetwork, unresolved: 'pass' });
          } catch (err) {
            return c.json({ error: (err as Error).message }, 400);
          }
        }
      const { seeds: _seeds, ...chosen } = body;
      const job = jobs.start(body.seeds, { ...(chosen as JobOptions), enrich: body.enrich ?? true });
      return c.json({ id: job.id, status: job.status }, 202);
    },
  );
  router.openapi(
    createRoute({ method: 'get', path: '/crawls/{id}', request: { params: JobParams }, responses: { 200: json(JobBody, 'The job.'), 404: errors[404] } }),
    (c) => {
      const job = jobs.get(c.req.valid('param').id);
      return job ? c.json(job as z.infer<typeof JobBody>, 200) : c.json({ error: 'no such crawl job: ids come from POST /crawls' }, 404);
    },
  );
  router.openapi(
    createRoute({
      method: 'delete',
      path: '/crawls/{id}',
      summary: 'Stop a crawl cleanly (its run stays resumable)',
      request: { params: JobParams },
      responses: { 202: json(z.object({ id: z.string(), stopping: z.boolean() }), 'Stopping.'), 404: errors[404] },
    }),
    (c) => {
      const { id } = c.req.valid('param');
      if (!jobs.get(id)) return c.json({ error: 'no such crawl job: ids come from POST /crawls' }, 404);
      return c.json({ id, stopping: jobs.stop(id) }, 202);
    },
  );
  router.get('/crawls/:id/events', (c) => {
    const id = c.req.param('id');
    if (!jobs.get(id)) return c.json({ error: 'no such crawl job: ids come from POST /crawls' }, 404);
    return streamSSE(c, async (stream) => {
      const queue: JobEvent[] = [];
      let wake: (() => void) | undefined;
      const unfollow = jobs.follow(id, (e) => {
        queue.push(e);
        wake?.();
      })!;
      stream.onAbort(unfollow);
      try {
        for (;;) {
          const e = queue.shift();
          if (!e) {
            await new Promise<void>((r) => (wake = r));
            continue;
          }
          await stream.writeSSE({ event: e.type, data: JSON.stringify(e) });
          if (e.type === 'crawl.finished' || e.type === 'crawl.failed' || e.type === 'crawl.stopped') break;
        }
      } finally {
        unfollow();
      }
    });
  });
  return router;
}
