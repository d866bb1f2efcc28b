// The crawl jobs behind the Firecrawl routes: a scrape's one-page job and the page it stored (or
// why it stored none), and a crawl's own webhook receiver told of its pages as they are stored.
import { RequestRefusedError } from '../errors.js';
import type { Context } from 'hono';
import type { CrawlJob } from '../ports/crawl-launcher.js';
import type { JobOptions } from '../config/job-options.js';
import type { FetchRecord, PageRecord } from '../ports/index.js';
import { checkJobSeeds } from './job-seeds.js';
import { writeRequestOf } from './write-access.js';
import { documentOf, idOfUrl } from './firecrawl-documents.js';
import type { FirecrawlOptions } from './firecrawl-ports.js';
import { type Wanted, type WebhookConfig } from './firecrawl-request.js';

/** What a scrape's fetch gave: a stored page, or an error status's answer (which stores no page). */
export type Fetched = { page: PageRecord } | { answered: FetchRecord };

export class FirecrawlJobs {
  readonly read: FirecrawlOptions['read'];
  /** How long a scrape or a map waits for its page. */
  readonly waitMs: number;

  constructor(readonly options: FirecrawlOptions) {
    this.read = options.read;
    this.waitMs = options.waitMs ?? 60_000;
  }

  /**
   * The page a one-page job fetched, once its extraction of that fetch is stored (the page after its
   * render, when it was rendered): the job's end is not waited for (the cloud's run loop notices it
   * up to a minute later). Undefined when the job ended without fetching it.
   */
  async fetchedBy(url: string, settings: JobOptions, timeoutMs: number, caller: string | undefined) {
    const started = await this.options.jobs.start([url], settings, caller ? { caller } : {});
    const id = idOfUrl(url);
    const until = Date.now() + timeoutMs;
    for (;;) {
      const job = await this.options.jobs.get(started.id);
      if (!job) throw new RequestRefusedError('the job went away', 502);
      const ended = job.status === 'finished' || job.status === 'stopped' || job.status === 'failed';
      const page = await this.read(async (r) => {
        const p = await r.store.getPage(id);
        if (!p || p.fetchedAt < started.createdAt) return undefined;
        // The extraction of this fetch (a page to render is extracted from its DOM, after the render).
        return (await r.store.getExtract(id))?.runId === p.runId || ended ? p : undefined;
      });
      if (page) return { job, page };
      if (ended) {
        if (job.status === 'failed') throw new RequestRefusedError(`the crawl of ${url} failed: ${job.error ?? 'see the server log'}`, 502);
        return { job, page: undefined };
      }
      if (Date.now() > until) {
        await this.options.jobs.stop(started.id);
        throw new RequestRefusedError(
          `the page was not fetched within ${timeoutMs} ms (the server's crawl queue may be busy): try again, or raise timeout`,
          408,
        );
      }
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  /**
   * `lockdown`: the URL's stored page, whatever its age, or the error status it last answered with,
   * from the stores and the archive only; nothing is fetched (not even robots.txt).
   */
  async archivedPage(url: string): Promise<Fetched> {
    const id = idOfUrl(url);
    const stored = await this.read((r) => r.store.getPage(id));
    if (stored) return { page: stored };
    const history = await this.read((r) => r.store.fetchHistory(id));
    const answered = history.filter((f) => f.kind === 'page' && f.warc && f.status !== undefined && f.status >= 400).at(-1);
    if (answered) return { answered };
    throw new RequestRefusedError(`${url} is not in the archive: with lockdown nothing is fetched (scrape it once without lockdown, or crawl its site)`, 404);
  }

  /** The stored page of a URL fetched within `maxAge`, else fetched now as a one-page crawl job. */
  async freshPage(c: Context, url: string, maxAge: number, wanted: Wanted, timeoutMs: number): Promise<Fetched> {
    const stored = await this.read((r) => r.store.getPage(idOfUrl(url)));
    const json = wanted.json && this.options.json;
    // A page with actions is the page after them: it is always fetched and rendered anew.
    if (stored && maxAge > 0 && !wanted.actions && Date.now() - stored.fetchedAt <= maxAge) {
      // …and a page asked for json is answered from the store when it can be.
      if (!json || !json.answersStored || (await this.read((r) => json.answersStored!(r, stored, wanted.json!)))) return { page: stored };
    }
    await checkJobSeeds([url], this.options.allowPrivateNetwork);
    const settings: JobOptions = {
      maxPages: 1,
      maxDepth: 0,
      mainContent: wanted.mainContent,
      enrich: false,
      ...(wanted.actions ? { actions: wanted.actions } : {}),
      ...(json && json.jobSettings ? json.jobSettings(wanted.json!) : {}),
    };
    const { job, page } = await this.fetchedBy(url, settings, timeoutMs, writeRequestOf(c).caller);
    return page ? { page } : { answered: await this.whyNotFetched(url, job) };
  }

  /**
   * A one-page job that stored no page: the answer it archived when the server answered with an
   * error status (a 404 is a document, as Firecrawl's), else a refusal naming the real cause.
   */
  async whyNotFetched(url: string, job: CrawlJob): Promise<FetchRecord> {
    const history = await this.read((r) => r.store.fetchHistory(idOfUrl(url)));
    const answered = history.filter((f) => f.kind === 'page' && f.fetchedAt >= job.createdAt && f.status !== undefined && f.status >= 400).at(-1);
    if (answered) return answered;
    const skips = Object.keys(job.summary?.skipsByReason ?? {});
    const run = `GET /crawls/${job.id} has the run`;
    if (skips.includes('robots')) throw new RequestRefusedError(`${url} was not fetched: robots.txt of ${new URL(url).origin} disallows it`, 403);
    if (skips.some((r) => r === 'private-address' || r === 'address-refused'))
      throw new RequestRefusedError(`${url} was not fetched: it leads to a private or refused address (the server's --allow-private-network admits it)`, 403);
    if (skips.includes('content-type')) throw new RequestRefusedError(`${url} was not fetched: its content type is not one trawl keeps as a page`, 415);
    const failed = history.filter((f) => f.fetchedAt >= job.createdAt && f.error).at(-1);
    const cause = failed?.error ?? (skips.length ? `skipped (${skips.join(', ')})` : 'its host did not answer');
    throw new RequestRefusedError(`${url} was not fetched: ${cause} (${run})`, 502);
  }

  /**
   * Tells a crawl's own receiver, in Firecrawl's shape (`{ success, type, id, data, metadata }`):
   * `crawl.started`, each stored page as `crawl.page` with its document, then `crawl.completed`
   * or `crawl.failed` (a stopped crawl is `failed`, "cancelled"). Sent in that order.
   */
  tellReceiver(jobId: string, id: string, hook: WebhookConfig, wanted: Wanted): void {
    const sender = this.options.webhooks!;
    let queue: Promise<void> = Promise.resolve();
    const tell = (type: string, body: () => Promise<Record<string, unknown>>) => {
      if (!hook.events.has(type)) return;
      queue = queue.then(async () => {
        try {
          const payload = JSON.stringify({ type: `crawl.${type}`, id, ...(await body()), metadata: hook.metadata });
          sender.sendTo(hook.url, `crawl.${type}`, payload, { headers: hook.headers, job: jobId });
        } catch {
          // A page that cannot be read now (replaced meanwhile) is left out; the crawl's status has it.
        }
      });
    };
    const unfollowPages = this.options.jobs.followPages!(jobId, (url) =>
      tell('page', () =>
        this.read(async (reads) => {
          const page = await reads.store.getPage(idOfUrl(url));
          if (!page) throw new Error(`${url} is not stored`);
          return { success: true, data: [await documentOf(reads, page, wanted, await reads.store.getExtract(page.urlId))] };
        }),
      ),
    );
    const unfollow = this.options.jobs.follow!(jobId, (e) => {
      if (e.type === 'crawl.started') tell('started', async () => ({ success: true, data: [] }));
      if (e.type === 'crawl.finished') tell('completed', async () => ({ success: true, data: [] }));
      if (e.type === 'crawl.stopped') tell('failed', async () => ({ success: false, data: [], error: 'the crawl was cancelled' }));
      if (e.type === 'crawl.failed') tell('failed', async () => ({ success: false, data: [], error: e.error }));
      if (e.type === 'crawl.finished' || e.type === 'crawl.stopped' || e.type === 'crawl.failed') {
        // Its end is the last thing told: queued after its pages.
        queue = queue.then(() => {
          unfollow?.();
          unfollowPages?.();
        });
      }
    });
  }
}
