// The MCP tools over a data directory (`trawl mcp`, `/mcp` on `trawl serve`): stores opened per
// call, crawls queued behind the directory's single writer, `fetch_page` archived into it in its
// turn among them.
import { createEmbedder } from '../enrich/embedder-factory.js';
import { QueryEmbeddingCache } from '../enrich/query-cache.js';
import type { CrawlSettings } from '../config/settings.js';
import { crawl, settingsOf } from '../library/crawl.js';
import { fetch as fetchTarget } from '../library/fetch.js';
import { openLocalForReading } from '../store/local/open-local.js';
import type { JobBook } from '../store/local/job-book.js';
import { CrawlJobs } from './crawl-jobs.js';
import type { McpSource } from './mcp.js';
import type { WebhookSender } from './webhooks.js';

export interface McpOptions {
  /** The data directory the tools read and crawl into. */
  data: string;
  /** Crawls and fetches may reach loopback and private addresses (`trawl mcp --allow-private-network`). @default false */
  allowPrivateNetwork?: boolean;
  /** Provider settings the pages were enriched with, for queries (`search`). */
  env?: NodeJS.ProcessEnv;
  /**
   * The server's own settings (`trawl serve --delay-ms 250`, `TRAWL_USER_AGENT`…): the crawls it
   * starts keep its politeness and start from its other values; a job chooses only its job settings.
   * @default the settings' defaults, over `env`
   */
  crawlDefaults?: Partial<CrawlSettings>;
}

/** Characters of a fetched page's markdown `fetch_page` returns. */
const FETCH_CHARS = 20_000;
/** How long `fetch_page` waits for a running crawl job to give the directory back (an agent's call times out at about a minute). */
const FETCH_WAIT_MS = 30_000;

/** The tools' source for a data directory, with its crawl jobs (new ones unless the server shares its own). */
export function localMcpSource(options: McpOptions, jobs: CrawlJobs = newJobs(options)): McpSource & { jobs: CrawlJobs } {
  const env = options.env ?? process.env;
  const allowPrivateNetwork = options.allowPrivateNetwork ?? false;
  // Built once: query vectors are cached across calls (each is a network call with a model provider).
  const embedder = new QueryEmbeddingCache(createEmbedder(settingsOf({ env }), env));
  return {
    jobs,
    allowPrivateNetwork,
    async read(use) {
      const local = openLocalForReading(options.data);
      try {
        return await use({ store: local.store, graph: local.graph, enrich: local.enrich, vectors: local.vectors, embedder, changes: local.changes });
      } finally {
        await local.close();
      }
    },
    async fetchPage(url) {
      // The directory has one writer: a one-off fetch takes its turn among the crawl jobs.
      const content = await jobs.exclusive(() => fetchTarget(url, { data: options.data, allowPrivateNetwork, env }), FETCH_WAIT_MS);
      if (content.type !== 'page') return content;
      return { url: content.url, status: content.status, title: content.title, markdown: content.markdown.slice(0, FETCH_CHARS) };
    },
  };
}

/** The crawl jobs of a data directory (with the webhooks that tell receivers about them). */
export function newJobs(options: McpOptions, webhooks?: WebhookSender, book?: JobBook): CrawlJobs {
  return new CrawlJobs(
    crawl,
    { ...options.crawlDefaults, data: options.data, allowPrivateNetwork: options.allowPrivateNetwork ?? false, env: options.env ?? process.env },
    webhooks,
    book,
  );
}
