import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { streamSSE } from 'hono/streaming';
import { JOB_SETTINGS, type JobSetting } from '../../config/job-options.js';
import type { CrawlLauncher, JobEvent } from '../../ports/crawl-launcher.js';
import { SETTINGS } from '../../config/settings.js';
import { errors, json, newRouter } from '../router.js';
import { ErrorBody } from '../schemas.js';
import { checkJobSeeds, MAX_JOB_SEEDS } from '../job-seeds.js';
import { ForbiddenError, JobQueueFullError, UsageError } from '../../errors.js';
import { writeRequestOf } from '../write-access.js';
import { pageActionsOf } from '../../render/action-rules.js';
import { sessionCookiesOf } from '../../fetch/session-cookies.js';
import { extractSpecOf, schemaValidator } from '../../enrich/extract-spec.js';

const CrawlBody = z
  .object({
    seeds: z.array(z.string().min(1)).min(1).max(MAX_JOB_SEEDS),
    // Each setting a job may choose, validated by the settings table's own schema.
    ...(Object.fromEntries(JOB_SETTINGS.map((name) => [name, SETTINGS[name].schema.optional()])) as {
      [K in JobSetting]: z.ZodOptional<(typeof SETTINGS)[K]['schema']>;
    }),
    // The schema itself: a string would be read as a file on the server.
    extractSchema: z
      .record(z.string(), z.unknown())
      .optional()
      .openapi({ description: "A JSON Schema each page's values are extracted to by the server's LLM provider (enrichment on)." }),
    actions: z
      .array(z.unknown())
      .optional()
      .openapi({ description: 'Actions run on each page before it is read, or {"pattern", "actions"} rules (see docs/rendering.md).' }),
    cookies: z
      .union([z.array(z.unknown()), z.record(z.string(), z.unknown())])
      .optional()
      .openapi({ description: 'Session cookies (a list, or a storage state with "cookies"), each sent only to its own host.' }),
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

export interface CrawlsRouteOptions {
  /** Seeds on private or loopback addresses are refused unless this is set. */
  allowPrivateNetwork: boolean;
}

/** `/crawls`: start a crawl (202 with its id), follow it (status, Server-Sent Events), stop it. */
export function crawlsRoutes(jobs: CrawlLauncher, options: CrawlsRouteOptions): OpenAPIHono {
  const router = newRouter();
  router.openapi(
    createRoute({
      method: 'post',
      path: '/crawls',
      summary: 'Start a crawl of the data directory (one at a time; later ones queue)',
      request: { body: { content: { 'application/json': { schema: CrawlBody } } } },
      responses: {
        202: json(z.object({ id: z.string(), status: z.string() }), 'The job, queued.'),
        400: errors[400],
        413: json(ErrorBody, 'The body is over 1 MiB.'),
        429: json(ErrorBody, 'The queue of jobs is full: try again when one has ended.'),
      },
    }),
    async (c) => {
      const body = c.req.valid('json');
      try {
        await checkJobSeeds(body.seeds, options.allowPrivateNetwork);
        // Checked now, so a bad one is this request's 400, not a job that fails later.
        pageActionsOf(body);
        sessionCookiesOf(body);
        const spec = extractSpecOf(body);
        if (spec) schemaValidator(spec.schema);
      } catch (err) {
        if (err instanceof UsageError) return c.json({ error: err.message }, 400);
        throw err;
      }
      const { seeds: _seeds, ...chosen } = body;
      try {
        const { caller } = writeRequestOf(c);
        const job = await jobs.start(body.seeds, { ...chosen, enrich: body.enrich ?? true }, caller ? { caller } : {});
        return c.json({ id: job.id, status: job.status }, 202);
      } catch (err) {
        if (err instanceof UsageError) return c.json({ error: err.message }, 400);
        if (err instanceof JobQueueFullError) return c.json({ error: err.message }, 429);
        throw err;
      }
    },
  );
  router.openapi(
    createRoute({
      method: 'get',
      path: '/crawls/{id}',
      summary: "A crawl job: its status, progress and, once it ended, its run's summary",
      request: { params: JobParams },
      responses: { 200: json(JobBody, 'The job.'), 404: errors[404] },
    }),
    async (c) => {
      const job = await jobs.get(c.req.valid('param').id);
      return job ? c.json(job as z.infer<typeof JobBody>, 200) : c.json({ error: 'no such crawl job: ids come from POST /crawls' }, 404);
    },
  );
  router.openapi(
    createRoute({
      method: 'delete',
      path: '/crawls/{id}',
      summary: 'Stop a crawl cleanly (its run stays resumable)',
      request: { params: JobParams },
      responses: {
        202: json(z.object({ id: z.string(), stopping: z.boolean() }), 'Stopping.'),
        403: json(ErrorBody, "Another caller's crawl: a caller stops only its own."),
        404: errors[404],
      },
    }),
    async (c) => {
      const { id } = c.req.valid('param');
      if (!(await jobs.get(id))) return c.json({ error: 'no such crawl job: ids come from POST /crawls' }, 404);
      try {
        const { caller } = writeRequestOf(c);
        return c.json({ id, stopping: await jobs.stop(id, caller ? { caller } : {}) }, 202);
      } catch (err) {
        if (err instanceof ForbiddenError) return c.json({ error: err.message }, 403);
        throw err;
      }
    },
  );
  router.get('/crawls/:id/events', async (c) => {
    const id = c.req.param('id');
    const follow = jobs.follow?.bind(jobs);
    if (!follow) return c.json({ error: 'this server does not stream crawl events: poll GET /crawls/{id}, or subscribe to the event bus' }, 501);
    if (!(await jobs.get(id))) return c.json({ error: 'no such crawl job: ids come from POST /crawls' }, 404);
    return streamSSE(c, async (stream) => {
      const queue: JobEvent[] = [];
      let wake: (() => void) | undefined;
      const unfollow = follow(id, (e) => {
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
