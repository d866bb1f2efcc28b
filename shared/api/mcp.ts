import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { z } from 'zod';
import { errorMessage } from '../errors.js';
import { preflight } from '../fetch/preflight.js';
import { crawl } from '../library/crawl.js';
import { fetch as fetchTarget } from '../library/fetch.js';
import { openStore, type TrawlStore } from '../library/store.js';
import { CrawlJobs } from './crawl-jobs.js';
import type { WebhookSender } from './webhooks.js';
import type { JobBook } from '../store/local/job-book.js';
import { version } from '../cli/usage.js';

export interface McpOptions {
  /** The data directory the tools read and crawl into. */
  data: string;
  /** Crawls and fetches may reach loopback and private addresses (`trawl mcp --allow-private-network`). @default false */
  allowPrivateNetwork?: boolean;
  /** Provider settings the pages were enriched with, for queries (`search`). */
  env?: NodeJS.ProcessEnv;
}

/** Characters of a page's markdown one `get_page` call returns; the rest comes with `offset`. */
const PAGE_CHARS = 20_000;
const text = (value: unknown) => ({ content: [{ type: 'text' as const, text: typeof value === 'string' ? value : JSON.stringify(value, null, 2) }] });
const failure = (message: string) => ({ ...text(message), isError: true });

/**
 * The Model Context Protocol server of a data directory: tools an agent uses to crawl, follow a
 * crawl, search, read a page and its links, and fetch one page politely, each answering with what
 * the agent needs for its next step; pages are resources too (`trawl://page/<id>`).
 */
export function createMcpServer(options: McpOptions, shared?: CrawlJobs): { server: McpServer; jobs: CrawlJobs } {
  const env = options.env ?? process.env;
  const allowPrivateNetwork = options.allowPrivateNetwork ?? false;
  const jobs = shared ?? newJobs(options);
  const server = new McpServer({ name: 'trawl', version: version() });
  const withStore = async <T>(use: (store: TrawlStore) => Promise<T>): Promise<T> => {
    const store = openStore(options.data);
    try {
      return await use(store);
    } finally {
      await store.close();
    }
  };
  const guarded =
    <A>(run: (args: A) => Promise<ReturnType<typeof text>>) =>
    async (args: A) => {
      try {
        return await run(args);
      } catch (err) {
        return failure(errorMessage(err));
      }
    };

  server.registerTool(
    'crawl',
    {
      description: 'Start a polite crawl (robots.txt, delays) from seed URLs into the data directory; returns a job id for crawl_status.',
      inputSchema: {
        seeds: z.array(z.string()).min(1).describe('URLs to start from (search queries and accounts work too)'),
        maxPages: z.number().int().min(1).max(100_000).optional().describe('stop after this many fetched pages (default 10,000)'),
        maxDepth: z.number().int().min(0).max(1000).optional().describe('links followed from a seed (default 20)'),
        enrich: z.boolean().optional().describe('summaries, tags, embeddings and the search index as pages are stored (default true)'),
      },
    },
    guarded(async ({ seeds, maxPages, maxDepth, enrich }: { seeds: string[]; maxPages?: number; maxDepth?: number; enrich?: boolean }) => {
      // Refused here, before a job exists, when a seed is on a private address the server was not started to reach.
      for (const seed of seeds) if (/^https?:\/\//i.test(seed)) await preflight(seed, { allowPrivateNetwork, unresolved: 'pass' });
      const job = jobs.start(seeds, { maxPages, maxDepth, enrich: enrich ?? true });
      return text({ id: job.id, status: job.status, next: 'call crawl_status with this id until status is finished' });
    }),
  );

  server.registerTool(
    'crawl_status',
    { description: 'Progress and, once finished, the summary of a crawl job.', inputSchema: { id: z.string() } },
    guarded(async ({ id }: { id: string }) => {
      const job = jobs.get(id);
      if (!job) return failure(`no crawl job ${id}: ids come from the crawl tool`);
      return text(job);
    }),
  );

  server.registerTool(
    'search',
    {
      description:
        'Hybrid search (full text and vectors) over the crawled, enriched pages; each hit with its URL, title, summary, tags, why it matched and its id.',
      inputSchema: {
        query: z.string().min(1),
        limit: z.number().int().min(1).max(50).optional(),
        tags: z.array(z.string()).optional(),
        domain: z.string().optional(),
      },
    },
    guarded(async ({ query, limit, tags, domain }: { query: string; limit?: number; tags?: string[]; domain?: string }) =>
      withStore(async (store) => {
        const result = await store.search(query, { limit: limit ?? 10, tags, domain, env });
        return text({
          query,
          hits: result.hits.map((h) => ({ id: h.urlId, url: h.url, title: h.title, summary: h.summary, tags: h.tags, why: h.why })),
        });
      }),
    ),
  );

  server.registerTool(
    'get_page',
    {
      description: 'A stored page: its markdown (paged for long pages), metadata, summary and tags.',
      inputSchema: { url: z.string().describe('the page URL (or its id from search)'), offset: z.number().int().min(0).optional() },
    },
    guarded(async ({ url, offset }: { url: string; offset?: number }) =>
      withStore(async (store) => {
        const page = await store.page(url);
        if (!page) return failure(`no stored page for ${url}: crawl it first, or use fetch_page`);
        const x = await store.extraction(page.url);
        const e = await store.enrichment(page.url);
        const markdown = x?.markdown ?? '';
        const from = offset ?? 0;
        const next = from + PAGE_CHARS < markdown.length ? from + PAGE_CHARS : undefined;
        return text({
          id: page.urlId,
          url: page.url,
          title: x?.title ?? page.title,
          status: page.status,
          language: x?.language,
          summary: e?.summary,
          tags: e?.tags,
          markdown: markdown.slice(from, from + PAGE_CHARS),
          nextOffset: next,
        });
      }),
    ),
  );

  server.registerTool(
    'links',
    {
      description: 'Links into and out of a page, with their anchor text, surrounding text and page section.',
      inputSchema: { url: z.string(), direction: z.enum(['in', 'out', 'both']).optional(), limit: z.number().int().min(1).max(500).optional() },
    },
    guarded(async ({ url, direction, limit }: { url: string; direction?: 'in' | 'out' | 'both'; limit?: number }) =>
      withStore(async (store) => {
        const n = limit ?? 100;
        const shape = (l: { fromUrl: string; toUrl: string; anchor: string; context: string; section: string }) => ({
          from: l.fromUrl,
          to: l.toUrl,
          anchor: l.anchor,
          context: l.context,
          section: l.section,
        });
        const dir = direction ?? 'both';
        return text({
          url,
          inlinks: dir === 'out' ? undefined : (await store.inlinks(url)).slice(0, n).map(shape),
          outlinks: dir === 'in' ? undefined : (await store.outlinks(url)).slice(0, n).map(shape),
        });
      }),
    ),
  );

  server.registerTool(
    'fetch_page',
    { description: 'Fetch one URL now, politely (robots.txt first), archived in the data directory; returned as markdown.', inputSchema: { url: z.string() } },
    guarded(async ({ url }: { url: string }) => {
      const content = await fetchTarget(url, { data: options.data, allowPrivateNetwork, env });
      if (content.type === 'page')
        return text({ url: content.url, status: content.status, title: content.title, markdown: content.markdown.slice(0, PAGE_CHARS) });
      return text(content);
    }),
  );

  server.registerResource(
    'page',
    new ResourceTemplate('trawl://page/{id}', { list: undefined }),
    { description: 'A stored page as markdown', mimeType: 'text/markdown' },
    async (uri, { id }) =>
      withStore(async (store) => {
        const page = await store.page(String(id));
        const x = page && (await store.extraction(page.url));
        return { contents: [{ uri: uri.href, mimeType: 'text/markdown', text: x?.markdown ?? '' }] };
      }),
  );
  return { server, jobs };
}

/**
 * The same tools over MCP's Streamable HTTP (`/mcp` on `trawl serve`, behind its Host and token
 * checks): stateless, one server per request, the crawl jobs shared between them.
 */
export function mcpHttpHandler(options: McpOptions, jobs = newJobs(options)): (request: Request) => Promise<Response> {
  return async (request) => {
    const { server } = createMcpServer(options, jobs);
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    try {
      return await transport.handleRequest(request);
    } finally {
      await server.close();
    }
  };
}

/** The crawl jobs of a data directory (with the webhooks that tell receivers about them). */
export function newJobs(options: McpOptions, webhooks?: WebhookSender, book?: JobBook): CrawlJobs {
  return new CrawlJobs(
    crawl,
    { data: options.data, allowPrivateNetwork: options.allowPrivateNetwork ?? false, env: options.env ?? process.env },
    webhooks,
    book,
  );
}
