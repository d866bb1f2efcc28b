import { QueryEmbeddingCache } from '../enrich/query-cache.js';
import { serve } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import { createApi } from '../api/app.js';
import { firecrawlRoutes, type FirecrawlOptions } from '../api/routes/firecrawl.js';
import { parseRoute } from '../api/routes/firecrawl-parse.js';
import type { Hono } from 'hono';
import { summarizeExtractive } from '../enrich/local-summary.js';
import { chatJson } from '../api/firecrawl-chat.js';
import { chatQuestions } from '../api/firecrawl-question.js';
import { indexSearch } from '../search/hybrid.js';
import { checkSearchProvider, searchBackend } from '../targets/search-backends.js';
import { ApiClient } from '../targets/api-client.js';
import { dataDirArchive } from '../archive/replay.js';
import { mcpHttpHandler } from '../api/mcp.js';
import { localMcpSource, newJobs } from '../api/mcp-local.js';
import { checkWebhookSettings, WebhookSender } from '../api/webhooks.js';
import { JobBook } from '../store/local/job-book.js';
import { loadUiAssets } from '../api/ui-assets.js';
import type { CrawlSettings } from '../config/settings.js';
import { createEmbedder } from '../enrich/embedder-factory.js';
import { chatFor, preflightProvider } from '../enrich/provider-factory.js';
import { UsageError } from '../errors.js';
import { ChangeDiffs } from '../changes/change-diffs.js';
import { DiffThread } from '../changes/diff-thread.js';
import { createLogger } from '../log/logger.js';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { openLocalForReading, openLocalForWriting } from '../store/local/open-local.js';
import { ReaderPool } from '../store/local/reader-pool.js';
import { availableParallelism } from 'node:os';

export interface ServeFlags {
  host?: string;
  port?: string;
  token?: string;
  /** Host names (or `.domain`) the server answers besides loopback: `--allowed-host`, repeatable. */
  'allowed-host'?: string[];
  /** The token POST/DELETE /crawls need (TRAWL_API_WRITE_TOKEN); without one, crawls cannot be started over HTTP. */
  'write-token'?: string;
  /** Receivers of the crawl jobs' signed webhooks (TRAWL_WEBHOOK_SECRET signs them). */
  webhook?: string[];
  /** Worker threads that answer searches (0: the HTTP thread answers them); one a core, up to 4, by default. */
  readers?: string;
}

export interface RunningServer {
  /** `http://host:port/` */
  url: string;
  /** Every route it answers, as Hono registered it (middleware entries included, as method `ALL`). */
  routes: ReadonlyArray<{ method: string; path: string }>;
  close(): Promise<void>;
}

/** The port `trawl serve` listens on unless `--port` says otherwise. */
export const DEFAULT_PORT = 7373;

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|localhost)$/;

/** Checks `--host`, `--port` and `--token` (or TRAWL_API_TOKEN): a server reachable from other machines needs a token. */
export function serveOptions(
  flags: ServeFlags,
  env: NodeJS.ProcessEnv,
): { host: string; port: number; token?: string; allowedHosts: string[]; readers: number } {
  const host = flags.host ?? '127.0.0.1';
  const port = flags.port === undefined ? DEFAULT_PORT : Number(flags.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new UsageError(`invalid value ${JSON.stringify(flags.port)} for --port: expected a port number from 0 to 65535`);
  const readers = flags.readers === undefined ? Math.min(4, availableParallelism()) : Number(flags.readers);
  if (!Number.isInteger(readers) || readers < 0 || readers > 64)
    throw new UsageError(`invalid value ${JSON.stringify(flags.readers)} for --readers: expected a number of search threads from 0 to 64`);
  const token = flags.token ?? (env.TRAWL_API_TOKEN || undefined);
  if (token !== undefined && token.length < 16) throw new UsageError('--token is too short: use at least 16 characters (e.g. openssl rand -hex 16)');
  if (!LOOPBACK.test(host) && !token) {
    throw new UsageError(
      `--host ${host} lets other machines reach the API and the crawl: pass --token <secret> (or TRAWL_API_TOKEN) too; clients then send Authorization: Bearer <secret>`,
    );
  }
  // The address it listens on is a name it is reached by; a wildcard address is not.
  const allowedHosts = [...(flags['allowed-host'] ?? []), ...(host === '0.0.0.0' || host === '::' ? [] : [host])];
  return { host, port, token, allowedHosts, readers };
}

/** Starts the API and the web UI over a data directory (read-only: a crawl may write to it meanwhile). */
export async function startServer(settings: CrawlSettings, flags: ServeFlags, env: NodeJS.ProcessEnv = process.env): Promise<RunningServer> {
  const { host, port, token, allowedHosts, readers: readerCount } = serveOptions(flags, env);
  try {
    checkWebhookSettings(flags.webhook ?? [], env.TRAWL_WEBHOOK_SECRET);
  } catch (err) {
    throw new UsageError((err as Error).message, { cause: err });
  }
  // A model endpoint that does not answer is said now, not on the first search or scrape that needs it.
  await preflightProvider(settings, env);
  const writeToken = flags['write-token'] ?? (env.TRAWL_API_WRITE_TOKEN || undefined);
  // A server that may start crawls starts on an empty directory too: it is made, as the first crawl would.
  if (writeToken && !existsSync(join(settings.data, 'trawl.db'))) await openLocalForWriting(settings.data, 'trawl serve').close();
  const local = openLocalForReading(settings.data);
  const readers = new ReaderPool(settings.data, local, readerCount);
  const searched = readers.stores();
  const mcpOptions = { data: settings.data, allowPrivateNetwork: settings.allowPrivateNetwork, env, crawlDefaults: settings };
  // A server that may start crawls keeps its queue and its webhook deliveries in jobs.db (a restart picks the queue up).
  const book = writeToken ? JobBook.open(settings.data) : undefined;
  const webhooks = new WebhookSender({
    urls: flags.webhook ?? [],
    secret: env.TRAWL_WEBHOOK_SECRET,
    allowPrivateNetwork: settings.allowPrivateNetwork,
    onDelivery: book && ((d) => book.saveDelivery(d)),
  });
  const jobs = newJobs(mcpOptions, webhooks, book);
  const diffThread = new DiffThread(settings.data);
  const chat = chatFor(settings, env);
  const embedder = new QueryEmbeddingCache(createEmbedder(settings, env));
  const app = createApi(
    {
      store: local.store,
      graph: local.graph,
      enrich: searched.enrich,
      vectors: searched.vectors,
      embedder,
      changes: local.changes,
      diffs: new ChangeDiffs((runId, urlId) => diffThread.diff(runId, urlId)),
    },
    {
      token,
      allowedHosts,
      ui: loadUiAssets(),
      logger: createLogger('warn'),
      mcp: mcpHttpHandler(localMcpSource(mcpOptions, jobs)),
      writeToken,
      crawls: { jobs, allowPrivateNetwork: settings.allowPrivateNetwork },
      // Firecrawl's routes start crawl jobs as /crawls does, with the write token.
      firecrawl: withParse(
        firecrawlRoutes({
          jobs,
          read: (use) =>
            use({
              store: local.store,
              graph: local.graph,
              blobs: local.blobs,
              archive: dataDirArchive(settings.data),
              enrich: local.enrich,
              sitePages: (host, limit) => local.store.sitePages(host, limit),
            }),
          json: chatJson(chat),
          questions: chatQuestions(chat),
          search: (q, limit) => indexSearch({ enrich: searched.enrich, vectors: searched.vectors, embedder }, q, limit),
          webSearch: webSearchOf(settings, env),
          allowPrivateNetwork: settings.allowPrivateNetwork,
          // A crawl's own receiver is signed with TRAWL_WEBHOOK_SECRET and recorded with the server's deliveries.
          webhooks,
          summarize: summarizeExtractive,
        }),
      ),
    },
  );
  const server = serve({ fetch: app.fetch, hostname: host, port });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('listening', resolve);
      server.once('error', reject);
    });
  } catch (err) {
    book?.close();
    await diffThread.close();
    await readers.close();
    await local.close();
    throw new UsageError(`cannot listen on ${host}:${port}: ${(err as Error).message}; pick another --port`, { cause: err });
  }
  const address = server.address() as AddressInfo;
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${shownHost}:${address.port}/`,
    routes: app.routes.map(({ method, path }) => ({ method, path })),
    async close() {
      (server as { closeAllConnections?: () => void }).closeAllConnections?.();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await jobs.shutdown();
      await diffThread.close();
      book?.close();
      await readers.close();
      await local.close();
    },
  };
}

/** The web search provider the environment configures (SearXNG, Brave, Serper), for Firecrawl's search; undefined without one. */
function webSearchOf(settings: CrawlSettings, env: NodeJS.ProcessEnv): FirecrawlOptions['webSearch'] {
  try {
    checkSearchProvider(env);
  } catch {
    return undefined;
  }
  const backend = searchBackend(env, new ApiClient({ userAgent: settings.userAgent, allowPrivateNetwork: settings.allowPrivateNetwork }));
  return (query, limit) => backend.search(query, limit, []);
}

/** The Firecrawl routes with `POST /v2/parse`, which only the embedded server serves (it extracts the uploaded file here). */
function withParse(app: Hono): Hono {
  parseRoute(app);
  return app;
}
