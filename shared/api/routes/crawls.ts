import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { streamSSE } from 'hono/streaming';
import { createHash, timingSafeEqual } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import { JOB_SETTINGS, type JobSetting } from '../crawl-jobs.js';
import type { CrawlLauncher, JobEvent } from '../../store/ports/crawl-launcher.js';
import { SETTINGS } from '../../config/settings.js';
import { errors, json, newRouter } from '../router.js';
import { preflight } from '../../fetch/preflight.js';
import { UsageError } from '../../errors.js';

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

/**
 * Write routes need a token even on loopback: the write token, else the server's token; with
 * neither they are refused. Behind a Lambda Function URL with IAM auth (`iam`), the signed request
 * is the authorisation: AWS checked `lambda:InvokeFunctionUrl` before the request arrived.
 */
function writeGuard(writeToken: string | undefined, auth: 'token' | 'iam'): MiddlewareHandler {
  const expected = writeToken === undefined ? undefined : sha(writeToken);
  return async (c, next) => {
    if (c.req.method === 'GET' || auth === 'iam') return next();
    if (!expected) return c.json({ error: 'starting crawls over HTTP is off: start trawl serve with --write-token <secret> (or TRAWL_API_WRITE_TOKEN)' }, 403);
    const given = /^Bearer (.+)$/.exec(c.req.header('authorization') ?? '')?.[1];
    if (given === undefined || !timingSafeEqual(sha(given), expected))
      return c.json({ error: 'missing or wrong write token: send Authorization: Bearer <write token>' }, 401);
    return next();
  };
}

export interface CrawlsRouteOptions {
  writeToken?: string;
  /** Seeds on private or loopback addresses are refused unless this is set. */
  allowPrivateNetwork: boolean;
  /**
   * Who authorises writes: a write token (`token`, the default) or the Function URL's IAM auth (`iam`).
   * @default 'token'
   */
  writeAuth?: 'token' | 'iam';
}

/** `/crawls`: start a crawl (202 with its id), follow it (status, Server-Sent Events), stop it. */
export function crawlsRoutes(jobs: CrawlLauncher, options: CrawlsRouteOptions): OpenAPIHono {
  const router = newRouter();
  const guard = writeGuard(options.writeToken, options.writeAuth ?? 'token');
  router.use('/crawls', guard);
  router.use('/crawls/*', guard);
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
      try {
        const job = await jobs.start(body.seeds, { ...chosen, enrich: body.enrich ?? true });
        return c.json({ id: job.id, status: job.status }, 202);
      } catch (err) {
        if (err instanceof UsageError) return c.json({ error: err.message }, 400);
        throw err;
      }
    },
  );
  router.openapi(
    createRoute({ method: 'get', path: '/crawls/{id}', request: { params: JobParams }, responses: { 200: json(JobBody, 'The job.'), 404: errors[404] } }),
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
      responses: { 202: json(z.object({ id: z.string(), stopping: z.boolean() }), 'Stopping.'), 404: errors[404] },
    }),
    async (c) => {
      const { id } = c.req.valid('param');
      if (!(await jobs.get(id))) return c.json({ error: 'no such crawl job: ids come from POST /crawls' }, 404);
      return c.json({ id, stopping: await jobs.stop(id) }, 202);
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
