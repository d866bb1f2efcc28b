import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { z } from 'zod';
import { errorMessage } from '../errors.js';
import { checkJobSeeds, MAX_JOB_SEEDS } from './job-seeds.js';
import { hybridSearch } from '../search/hybrid.js';
import { citedHighlights } from '../search/cited-highlights.js';
import { targetId } from '../targets/route.js';
import type { CrawlLauncher } from '../ports/crawl-launcher.js';
import type { JobOptions } from '../config/job-options.js';
import type { ApiDeps } from './router.js';
import type { WriteAccess } from './write-access.js';
import { version } from '../util/version.js';

/**
 * What the MCP tools read and start, the same ports in both runtimes: a data directory's stores
 * and crawl jobs (`localMcpSource`), or the cloud's table, bucket and run machine (the search API Lambda).
 */
export interface McpSource {
  /** Runs `use` with the stores to read (a data directory opens them per call: a crawl may create or write it meanwhile). */
  read<T>(use: (deps: ApiDeps) => Promise<T>): Promise<T>;
  /** Starts and follows crawls; absent: no `crawl` and `crawl_status` tools (a deployment whose API only reads). */
  jobs?: CrawlLauncher;
  /** Crawl seeds may be private or loopback addresses. */
  allowPrivateNetwork: boolean;
  /** One URL fetched now, politely and archived (the embedded runtime); absent: no `fetch_page` tool. */
  fetchPage?: (url: string) => Promise<unknown>;
}

/** Characters of a page's markdown one `get_page` call returns; the rest comes with `offset`. */
const PAGE_CHARS = 20_000;
const text = (value: unknown) => ({ content: [{ type: 'text' as const, text: typeof value === 'string' ? value : JSON.stringify(value, null, 2) }] });
const failure = (message: string) => ({ ...text(message), isError: true });
/** A page's id, from its URL or the id itself (as search hits give it). */
const idOf = (input: string): string => (/^[0-9a-f]{32}$/.test(input) ? input : targetId(input));

/** A tool that only reads, and one that starts or archives something (it needs write access). */
const READS = { readOnlyHint: true, openWorldHint: false } as const;
const WRITES = { readOnlyHint: false, destructiveHint: false, openWorldHint: true } as const;

/**
 * The Model Context Protocol server: tools an agent uses to crawl, follow a crawl, search, read a
 * page and its links, and fetch one page politely, each answering with what the agent needs for its
 * next step; pages are resources too (`trawl://page/<id>`). A tool whose annotations do not say it
 * only reads runs only with write `access` (the same decision as the HTTP API's writing routes);
 * over stdio the user who started the server has it.
 */
export function createMcpServer(source: McpSource, access: WriteAccess = { allowed: true }): McpServer {
  const server = new McpServer({ name: 'trawl', version: version() });
  const guarded =
    <A>(annotations: { readOnlyHint: boolean }, run: (args: A) => Promise<ReturnType<typeof text>>) =>
    async (args: A) => {
      if (!annotations.readOnlyHint && !access.allowed) return failure(`this tool starts or archives something: ${access.error}`);
      try {
        return await run(args);
      } catch (err) {
        return failure(errorMessage(err));
      }
    };

  registerCrawlTools(server, source, guarded, access);
  registerReadTools(server, source, guarded);
  const fetchPage = source.fetchPage;
  if (fetchPage)
    server.registerTool(
      'fetch_page',
      {
        description: 'Fetch one URL now, politely (robots.txt first), archived in the data directory; returned as markdown.',
        annotations: WRITES,
        inputSchema: { url: z.string() },
      },
      guarded(WRITES, async ({ url }: { url: string }) => text(await fetchPage(url))),
    );

  server.registerResource(
    'page',
    new ResourceTemplate('trawl://page/{id}', { list: undefined }),
    { description: 'A stored page as markdown', mimeType: 'text/markdown' },
    async (uri, { id }) =>
      source.read(async (deps) => {
        const x = await deps.store.getExtract(idOf(String(id)));
        return { contents: [{ uri: uri.href, mimeType: 'text/markdown', text: x?.markdown ?? '' }] };
      }),
  );
  return server;
}

/** A tool's handler behind the write check and the error answer (`createMcpServer`'s `guarded`). */
type Guarded = <A>(annotations: { readOnlyHint: boolean }, run: (args: A) => Promise<ReturnType<typeof text>>) => (args: A) => Promise<ReturnType<typeof text>>;

/** `crawl` and `crawl_status`, where the source starts crawl jobs. */
function registerCrawlTools(server: McpServer, source: McpSource, guarded: Guarded, access: WriteAccess): void {
  const jobs = source.jobs;
  if (!jobs) return;
  server.registerTool(
    'crawl',
    {
      description: 'Start a polite crawl (robots.txt, delays) from seed URLs; returns a job id for crawl_status.',
      annotations: WRITES,
      inputSchema: {
        seeds: z.array(z.string()).min(1).max(MAX_JOB_SEEDS).describe('URLs to start from (search queries and accounts work too)'),
        maxPages: z.number().int().min(1).max(100_000).optional().describe('stop after this many fetched pages (default 10,000)'),
        maxDepth: z.number().int().min(0).max(1000).optional().describe('links followed from a seed (default 20)'),
        enrich: z.boolean().optional().describe('summaries, tags, embeddings and the search index as pages are stored (default true)'),
      },
    },
    guarded(WRITES, async ({ seeds, maxPages, maxDepth, enrich }: { seeds: string[]; maxPages?: number; maxDepth?: number; enrich?: boolean }) => {
      // Refused here, before a job exists: a seed trawl cannot fetch, or on a private address the server was not started to reach.
      await checkJobSeeds(seeds, source.allowPrivateNetwork);
      const options: JobOptions = { ...(maxPages === undefined ? {} : { maxPages }), ...(maxDepth === undefined ? {} : { maxDepth }), enrich: enrich ?? true };
      const job = await jobs.start(seeds, options, access.allowed && access.caller ? { caller: access.caller } : {});
      return text({ id: job.id, status: job.status, next: 'call crawl_status with this id until status is finished' });
    }),
  );

  server.registerTool(
    'crawl_status',
    { description: 'Progress and, once finished, the summary of a crawl job.', annotations: READS, inputSchema: { id: z.string() } },
    guarded(READS, async ({ id }: { id: string }) => {
      const job = await jobs.get(id);
      if (!job) return failure(`no crawl job ${id}: ids come from the crawl tool`);
      return text(job);
    }),
  );
}

/** `search`, `get_page` and `links`: reads of the stored crawl. */
function registerReadTools(server: McpServer, source: McpSource, guarded: Guarded): void {
  server.registerTool(
    'search',
    {
      description:
        'Hybrid search (full text and vectors) over the crawled, enriched pages; each hit with its URL, title, summary, tags, why it matched and its id.',
      annotations: READS,
      inputSchema: {
        query: z.string().min(1),
        limit: z.number().int().min(1).max(50).optional(),
        tags: z.array(z.string()).optional(),
        domain: z.string().optional(),
      },
    },
    guarded(READS, async ({ query, limit, tags, domain }: { query: string; limit?: number; tags?: string[]; domain?: string }) =>
      source.read(async (deps) => {
        const result = await hybridSearch(deps, {
          q: query,
          limit: limit ?? 10,
          filters: { tags: tags?.map((t) => (t.startsWith('#') ? t : `#${t}`)), domain },
        });
        return text({
          query,
          hits: result.hits.map((h) => ({ id: h.urlId, url: h.url, title: h.title, summary: h.summary, tags: h.tags, why: h.why })),
        });
      }),
    ),
  );

  server.registerTool(
    'highlights',
    {
      description:
        "A stored page's own passages that answer a query (sentences, code blocks, table rows, never rewritten), each citing the WARC record it came from and its span in the page's markdown.",
      annotations: READS,
      inputSchema: {
        url: z.string().describe('the page URL (or its id from search)'),
        query: z.string().min(1).max(1000),
        limit: z.number().int().min(1).max(20).optional().describe('at most this many passages (6)'),
      },
    },
    guarded(READS, async ({ url, query, limit }: { url: string; query: string; limit?: number }) =>
      source.read(async (deps) => {
        const found = await citedHighlights(deps.store, idOf(url), query, limit ? { maxUnits: limit } : {});
        if (!found) return failure(`no stored page for ${url}: crawl it first${source.fetchPage ? ', or use fetch_page' : ''}`);
        return text({ url: found.page.url, query, highlights: found.text, citations: found.citations });
      }),
    ),
  );

  server.registerTool(
    'get_page',
    {
      description: 'A stored page: its markdown (paged for long pages), metadata, summary and tags.',
      annotations: READS,
      inputSchema: { url: z.string().describe('the page URL (or its id from search)'), offset: z.number().int().min(0).optional() },
    },
    guarded(READS, async ({ url, offset }: { url: string; offset?: number }) =>
      source.read(async (deps) => {
        const id = idOf(url);
        const page = await deps.store.getPage(id);
        if (!page) return failure(`no stored page for ${url}: crawl it first${source.fetchPage ? ', or use fetch_page' : ''}`);
        const [x, candidate] = await Promise.all([deps.store.getExtract(id), deps.enrich.enrichCandidate(id)]);
        const e = candidate?.enrichment;
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
      annotations: READS,
      inputSchema: { url: z.string(), direction: z.enum(['in', 'out', 'both']).optional(), limit: z.number().int().min(1).max(500).optional() },
    },
    guarded(READS, async ({ url, direction, limit }: { url: string; direction?: 'in' | 'out' | 'both'; limit?: number }) =>
      source.read(async (deps) => {
        const n = limit ?? 100;
        const id = idOf(url);
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
          inlinks: dir === 'out' ? undefined : (await deps.graph.inlinks(id)).slice(0, n).map(shape),
          outlinks: dir === 'in' ? undefined : (await deps.graph.outlinks(id)).slice(0, n).map(shape),
        });
      }),
    ),
  );
}

/**
 * The same tools over MCP's Streamable HTTP (`/mcp` on `trawl serve` and on the search API's
 * Function URL, behind their auth): stateless, one server per request, the source shared.
 */
export function mcpHttpHandler(source: McpSource): (request: Request, access: WriteAccess) => Promise<Response> {
  return async (request, access) => {
    const server = createMcpServer(source, access);
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    try {
      return await transport.handleRequest(request);
    } finally {
      await server.close();
    }
  };
}
