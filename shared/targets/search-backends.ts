// Web search providers behind one interface: SearXNG (self-hosted, its JSON API), the Brave Search
// API and Serper. Chosen from the environment: TRAWL_SEARXNG_URL first, then a Brave key, then a
// Serper key; with none, an error naming the three ways to configure one.
import { UsageError } from '../errors.js';
import type { ApiClient, ApiExchange } from './api-client.js';
import type { WebSearchResult } from './content.js';

export interface SearchBackend {
  /** `searxng`, `brave` or `serper`: recorded with each interaction. */
  name: string;
  search(query: string, limit: number, log: ApiExchange[]): Promise<WebSearchResult[]>;
}

/** Results asked for when a call names no limit. */
export const DEFAULT_SEARCH_LIMIT = 10;

type Env = Record<string, string | undefined>;

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** Keeps the first `limit` results with an http(s) URL, ranked from 1, a URL once. */
function ranked(items: Array<{ url: string; title: string; snippet: string }>, limit: number): WebSearchResult[] {
  const seen = new Set<string>();
  const out: WebSearchResult[] = [];
  for (const i of items) {
    if (!/^https?:\/\//i.test(i.url) || seen.has(i.url)) continue;
    seen.add(i.url);
    out.push({ url: i.url, title: i.title.trim(), snippet: i.snippet.replace(/\s+/g, ' ').trim(), rank: out.length + 1 });
    if (out.length >= limit) break;
  }
  return out;
}

/** Pages through a provider until `limit` results or an empty page (at most 5 pages). */
async function paged(limit: number, page: (n: number) => Promise<Array<{ url: string; title: string; snippet: string }>>): Promise<WebSearchResult[]> {
  const items: Array<{ url: string; title: string; snippet: string }> = [];
  for (let n = 0; n < 5 && ranked(items, limit).length < limit; n++) {
    const got = await page(n);
    if (!got.length) break;
    items.push(...got);
  }
  return ranked(items, limit);
}

/** SearXNG's JSON API: GET /search?q=…&format=json&pageno=N (the instance must enable the json format). */
export function searxng(base: string, client: ApiClient): SearchBackend {
  return {
    name: 'searxng',
    search: (query, limit, log) =>
      paged(limit, async (n) => {
        const url = new URL('search', base.endsWith('/') ? base : `${base}/`);
        url.search = new URLSearchParams({ q: query, format: 'json', pageno: String(n + 1) }).toString();
        const body = (await client.json({ url: url.href }, log)) as { results?: Array<Record<string, unknown>> };
        return (body.results ?? []).map((r) => ({ url: str(r.url), title: str(r.title), snippet: str(r.content) }));
      }),
  };
}

/** The Brave Search API: GET /res/v1/web/search?q=…&count=…&offset=… with X-Subscription-Token. */
export function brave(key: string, client: ApiClient, base = 'https://api.search.brave.com'): SearchBackend {
  return {
    name: 'brave',
    search: (query, limit, log) =>
      paged(limit, async (n) => {
        const count = Math.min(20, limit);
        const url = new URL('/res/v1/web/search', base);
        url.search = new URLSearchParams({ q: query, count: String(count), offset: String(n) }).toString();
        const body = (await client.json({ url: url.href, headers: { 'X-Subscription-Token': key } }, log)) as {
          web?: { results?: Array<Record<string, unknown>> };
        };
        return (body.web?.results ?? []).map((r) => ({ url: str(r.url), title: str(r.title), snippet: str(r.description).replace(/<[^>]+>/g, '') }));
      }),
  };
}

/** Serper (Google results): POST /search {q, num, page} with X-API-KEY. */
export function serper(key: string, client: ApiClient, base = 'https://google.serper.dev'): SearchBackend {
  return {
    name: 'serper',
    search: (query, limit, log) =>
      paged(limit, async (n) => {
        const body = (await client.json(
          { method: 'POST', url: new URL('/search', base).href, headers: { 'X-API-KEY': key }, body: { q: query, num: Math.min(100, limit), page: n + 1 } },
          log,
        )) as { organic?: Array<Record<string, unknown>> };
        return (body.organic ?? []).map((r) => ({ url: str(r.link), title: str(r.title), snippet: str(r.snippet) }));
      }),
  };
}

/**
 * The configured provider: `TRAWL_SEARXNG_URL`, else `TRAWL_BRAVE_API_KEY` (or `BRAVE_API_KEY`),
 * else `TRAWL_SERPER_API_KEY` (or `SERPER_API_KEY`); `TRAWL_BRAVE_URL` and `TRAWL_SERPER_URL`
 * point at another endpoint (a proxy). In the cloud the keys come from Secrets Manager.
 */
export function searchBackend(env: Env, client: ApiClient): SearchBackend {
  return configuredProvider(env)(client);
}

/** Throws the error `searchBackend` would when no provider is configured (checked before a crawl starts). */
export function checkSearchProvider(env: Env): void {
  configuredProvider(env);
}

function configuredProvider(env: Env): (client: ApiClient) => SearchBackend {
  const searx = env.TRAWL_SEARXNG_URL;
  if (searx) return (client) => searxng(searx, client);
  const braveKey = env.TRAWL_BRAVE_API_KEY ?? env.BRAVE_API_KEY;
  if (braveKey) return (client) => brave(braveKey, client, env.TRAWL_BRAVE_URL);
  const serperKey = env.TRAWL_SERPER_API_KEY ?? env.SERPER_API_KEY;
  if (serperKey) return (client) => serper(serperKey, client, env.TRAWL_SERPER_URL);
  throw new UsageError(
    'no web search provider is configured: set TRAWL_SEARXNG_URL to a SearXNG instance with the json format on, or TRAWL_BRAVE_API_KEY (Brave Search API), or TRAWL_SERPER_API_KEY (Serper)',
  );
}
