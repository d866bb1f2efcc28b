// Local HTTP servers that speak the real request and response formats of the search and social
// APIs trawl calls: SearXNG's JSON API, the Brave Search API, Serper, Reddit's listings, the
// Mastodon API, the Bluesky AppView (XRPC) and Apify's run-sync endpoint — with their pagination
// (pageno, offset, page, after, max_id + Link, cursor), their rate-limit headers and their error
// bodies. Fixtures are shaped like real responses (trimmed to the fields trawl reads and a few more).
import type { ServerResponse } from 'node:http';
import { readBody, serve } from '../../support/helpers.js';

export const KEYS = { brave: 'brave-test-key', serper: 'serper-test-key', apify: 'apify-test-token' };

export interface ApiServers {
  origin: string;
  /** Requests seen, in order: method, path with query, and the headers that matter. */
  requests: Array<{ method: string; path: string; headers: Record<string, string | string[] | undefined>; body: string }>;
  /** Answer the next N requests to a path prefix with 429 (and these headers). */
  limitNext(prefix: string, times: number, headers: Record<string, string>): void;
  close(): Promise<void>;
}

const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) =>
  void res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers }).end(JSON.stringify(body));

/** `n` web results for a query, pointing at pages of `site` (a content host the crawl can follow). */
function results(site: string, query: string, from: number, n: number) {
  return Array.from({ length: n }, (_, i) => ({
    url: `${site}/results/${from + i + 1}`,
    title: `${query} — result ${from + i + 1}`,
    snippet: `About ${query}: page ${from + i + 1}.`,
  }));
}

export async function startApiServers(site: () => string): Promise<ApiServers> {
  const requests: ApiServers['requests'] = [];
  const limits: Array<{ prefix: string; left: number; headers: Record<string, string> }> = [];
  const server = await serve(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const text = await readBody(req);
    requests.push({ method: req.method ?? 'GET', path: url.pathname + url.search, headers: req.headers, body: text });
    const limit = limits.find((l) => url.pathname.startsWith(l.prefix) && l.left > 0);
    if (limit) {
      limit.left--;
      return json(res, 429, { message: 'Too Many Requests', error: 429 }, limit.headers);
    }
    const q = url.searchParams;
    const p = url.pathname;
    // SearXNG: /searx/search?q=…&format=json&pageno=N; 403 unless the json format is asked (and enabled).
    if (p === '/searx/search') {
      if (q.get('format') !== 'json') return void res.writeHead(403, { 'content-type': 'text/html' }).end('<h1>403 Forbidden</h1>');
      const page = Number(q.get('pageno') ?? 1);
      const rs = page <= 2 ? results(site(), q.get('q')!, (page - 1) * 10, 10) : [];
      return json(res, 200, {
        query: q.get('q'),
        number_of_results: 20,
        results: rs.map((r) => ({
          url: r.url,
          title: r.title,
          content: r.snippet,
          engine: 'duckduckgo',
          engines: ['duckduckgo'],
          score: 1,
          category: 'general',
        })),
        answers: [],
        suggestions: [],
        unresponsive_engines: [],
      });
    }
    // Brave: /res/v1/web/search?q&count&offset with X-Subscription-Token; rate-limit headers per window.
    if (p === '/res/v1/web/search') {
      const rl = {
        'X-RateLimit-Limit': '1, 2000',
        'X-RateLimit-Policy': '1;w=1, 2000;w=2592000',
        'X-RateLimit-Remaining': '0, 1990',
        'X-RateLimit-Reset': '1, 1419704',
      };
      if (req.headers['x-subscription-token'] !== KEYS.brave)
        return json(res, 422, {
          type: 'ErrorResponse',
          error: { code: 'SUBSCRIPTION_TOKEN_INVALID', detail: 'The provided subscription token is invalid.', status: 422 },
        });
      const count = Number(q.get('count') ?? 20);
      const offset = Number(q.get('offset') ?? 0);
      const rs = results(site(), q.get('q')!, offset * count, offset < 1 ? count : 0);
      return json(
        res,
        200,
        {
          type: 'search',
          query: { original: q.get('q') },
          web: { type: 'search', results: rs.map((r) => ({ title: r.title, url: r.url, description: `<strong>${r.snippet}</strong>`, language: 'en' })) },
        },
        rl,
      );
    }
    // Serper: POST /search {q, num, page} with X-API-KEY.
    if (p === '/search' && req.method === 'POST') {
      if (req.headers['x-api-key'] !== KEYS.serper) return json(res, 403, { message: 'Unauthorized.', statusCode: 403 });
      const { q: query, num, page } = JSON.parse(text) as { q: string; num: number; page: number };
      const rs = page === 1 ? results(site(), query, 0, Math.min(num, 8)) : [];
      return json(res, 200, {
        searchParameters: { q: query, type: 'search', engine: 'google' },
        organic: rs.map((r, i) => ({ title: r.title, link: r.url, snippet: r.snippet, position: i + 1 })),
        credits: 1,
      });
    }
    // Reddit: /r/{sub}/new.json and /user/{name}/submitted.json, limit + after; x-ratelimit-* headers (seconds).
    const sub = /^\/(r|user)\/([^/]+)\/(new|submitted)\.json$/.exec(p);
    if (sub || p === '/search.json') {
      const rl = { 'x-ratelimit-used': '3', 'x-ratelimit-remaining': '97.0', 'x-ratelimit-reset': '420' };
      const name = sub?.[2] ?? 'search';
      if (name.toLowerCase() === 'banned') return json(res, 404, { reason: 'banned', message: 'Not Found', error: 404 });
      // Reddit serves at most 100 a page.
      const total = 130;
      const start = q.get('after') ? Number(q.get('after')!.replace('t3_p', '')) : 0;
      const n = Math.min(Number(q.get('limit') ?? 25), 100, total - start);
      const children = Array.from({ length: n }, (_, i) => {
        const k = start + i + 1;
        const self = k % 2 === 0;
        return {
          kind: 't3',
          data: {
            id: `p${k}`,
            name: `t3_p${k}`,
            subreddit: name,
            title: `Post ${k} in ${name}`,
            selftext: self ? `Details about post ${k}: see ${site()}/posts/${k}` : '',
            author: `user${k}`,
            permalink: `/r/${name}/comments/p${k}/post_${k}/`,
            url: self ? `https://www.reddit.com/r/${name}/comments/p${k}/post_${k}/` : `${site()}/linked/${k}`,
            is_self: self,
            created_utc: 1_700_000_000 + k * 60,
            score: k * 3,
            num_comments: k,
            preview: self ? undefined : { images: [{ source: { url: `https://i.redd.it/img${k}.jpg?width=640&amp;s=abc`, width: 640, height: 480 } }] },
          },
        };
      });
      const after = start + n < total ? `t3_p${start + n}` : null;
      return json(res, 200, { kind: 'Listing', data: { after, dist: n, modhash: '', children, before: null } }, rl);
    }
    // Mastodon: accounts/lookup, accounts/:id/statuses (max_id + Link), timelines/tag; X-RateLimit-* (reset as a date).
    if (p === '/api/v1/accounts/lookup') {
      if (q.get('acct') === 'nobody') return json(res, 404, { error: 'Record not found' });
      return json(res, 200, {
        id: '109',
        username: q.get('acct'),
        acct: q.get('acct'),
        display_name: 'Fire Safety',
        url: `${new URL(req.url!, 'http://x').origin}/@${q.get('acct')}`,
      });
    }
    const statuses = /^\/api\/v1\/(accounts\/(\d+)\/statuses|timelines\/tag\/([^/]+))$/.exec(p);
    if (statuses) {
      const rl = { 'X-RateLimit-Limit': '300', 'X-RateLimit-Remaining': '299', 'X-RateLimit-Reset': new Date(Date.now() + 300_000).toISOString() };
      const total = 25;
      const start = q.get('max_id') ? 1000 - Number(q.get('max_id')) : 0;
      const n = Math.max(0, Math.min(Number(q.get('limit') ?? 20), total - start));
      const list = Array.from({ length: n }, (_, i) => {
        const k = start + i + 1;
        return {
          id: String(1000 - k),
          created_at: new Date(Date.UTC(2026, 10, 1, 12, k)).toISOString(),
          url: `https://mastodon.example/@firesafety/${1000 - k}`,
          uri: `https://mastodon.example/users/firesafety/statuses/${1000 - k}`,
          content: `<p>Toot ${k} <a href="https://mastodon.example/tags/fire" class="mention hashtag" rel="tag">#<span>fire</span></a> read <a href="${site()}/toots/${k}" rel="nofollow noopener" target="_blank"><span class="invisible">http://</span>${site()}/toots/${k}</a></p>`,
          account: { id: '109', username: 'firesafety', acct: 'firesafety', display_name: 'Fire Safety' },
          replies_count: k,
          reblogs_count: 2 * k,
          favourites_count: 3 * k,
          media_attachments: k === 1 ? [{ id: 'm1', type: 'image', url: 'https://files.mastodon.example/m1.png' }] : [],
        };
      });
      const link: Record<string, string> =
        start + n < total && n ? { Link: `<${new URL(req.url!, 'http://x').pathname}?max_id=${1000 - (start + n)}>; rel="next"` } : {};
      return json(res, 200, list, { ...rl, ...link });
    }
    // Bluesky: /xrpc/app.bsky.feed.getAuthorFeed?actor&limit&cursor and searchPosts?q; RateLimit-* (reset in epoch seconds).
    if (p === '/xrpc/app.bsky.feed.getAuthorFeed' || p === '/xrpc/app.bsky.feed.searchPosts') {
      const rl = {
        'RateLimit-Limit': '3000',
        'RateLimit-Remaining': '2999',
        'RateLimit-Reset': String(Math.floor(Date.now() / 1000) + 300),
        'RateLimit-Policy': '3000;w=300',
      };
      if (q.get('actor') === 'missing.bsky.social') return json(res, 400, { error: 'InvalidRequest', message: 'Profile not found' });
      const total = 22;
      const start = Number(q.get('cursor') ?? 0);
      const n = Math.min(Number(q.get('limit') ?? 50), total - start);
      const handle = q.get('actor') ?? 'searcher.bsky.social';
      const posts = Array.from({ length: n }, (_, i) => {
        const k = start + i + 1;
        const link = `${site()}/skeets/${k}`;
        return {
          uri: `at://did:plc:abc${k}/app.bsky.feed.post/3k${k}`,
          cid: `bafy${k}`,
          author: { did: 'did:plc:abc', handle, displayName: 'Sky Poster' },
          record: {
            $type: 'app.bsky.feed.post',
            text: `Skeet ${k} ${link}`,
            createdAt: new Date(Date.UTC(2026, 10, 2, 8, k)).toISOString(),
            facets: [{ index: { byteStart: 9, byteEnd: 9 + link.length }, features: [{ $type: 'app.bsky.richtext.facet#link', uri: link }] }],
          },
          embed:
            k === 2
              ? { $type: 'app.bsky.embed.images#view', images: [{ thumb: 'https://cdn.bsky.app/t.jpg', fullsize: 'https://cdn.bsky.app/f.jpg', alt: '' }] }
              : undefined,
          replyCount: k,
          repostCount: k + 1,
          likeCount: k + 2,
          quoteCount: 0,
          indexedAt: new Date().toISOString(),
        };
      });
      const cursor = start + n < total ? String(start + n) : undefined;
      return json(res, 200, p.endsWith('searchPosts') ? { posts, cursor } : { feed: posts.map((post) => ({ post })), cursor }, rl);
    }
    // Apify: POST /v2/acts/{actor}/run-sync-get-dataset-items with a bearer token; the dataset items.
    const act = /^\/v2\/acts\/([^/]+)\/run-sync-get-dataset-items$/.exec(p);
    if (act && req.method === 'POST') {
      if (req.headers.authorization !== `Bearer ${KEYS.apify}`)
        return json(res, 401, { error: { type: 'user-or-token-not-found', message: 'User was not found or authentication token is not valid' } });
      const input = JSON.parse(text) as { maxItems: number };
      return json(
        res,
        201,
        Array.from({ length: Math.min(3, input.maxItems) }, (_, i) => ({
          type: 'tweet',
          id: `t${i}`,
          url: `https://x.com/nfpa/status/${i}`,
          text: `Tweet ${i} ${site()}/tweets/${i}`,
          author: { userName: 'nfpa', name: 'NFPA' },
          createdAt: 'Mon Nov 02 10:00:00 +0000 2026',
          likeCount: i,
          replyCount: 1,
          retweetCount: 2,
        })),
      );
    }
    json(res, 404, { error: 'not found' });
  });
  return {
    origin: server.origin,
    requests,
    limitNext(prefix, times, headers) {
      limits.push({ prefix, left: times, headers });
    },
    close: () => server.close(),
  };
}
