// Social backends that need no scraping: Reddit's public JSON listings, the Mastodon public API,
// the Bluesky public AppView; X, Instagram and TikTok through an Apify actor when APIFY_TOKEN is
// set. Each maps its platform's posts to one shape (text, author, URL, time, engagement, media,
// links) and pages with the platform's own cursor.
import { UsageError } from '../errors.js';
import { attr, parseDocument, selectEvery, textOf } from '../extract/dom.js';
import type { ApiClient, ApiExchange } from './api-client.js';
import type { SocialPost } from './content.js';
import type { SocialPlatform, Target } from './route.js';

export type SocialTarget = Extract<Target, { kind: 'social' }>;

export interface SocialBackend {
  name: string;
  /** The latest posts of an account, subreddit or user. */
  posts(target: SocialTarget, limit: number, log: ApiExchange[]): Promise<SocialPost[]>;
  /** Posts about topics (hashtags, words). */
  search(topics: string[], limit: number, log: ApiExchange[]): Promise<SocialPost[]>;
}

/** Posts asked for when a call names no limit: Reddit 25, the others 20. */
export const DEFAULT_SOCIAL_LIMIT: Record<SocialPlatform, number> = { reddit: 25, mastodon: 20, bluesky: 20, x: 20, instagram: 20, tiktok: 20 };

type Env = Record<string, string | undefined>;
type Json = Record<string, unknown>;
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const URLS = /https?:\/\/[^\s<>"')\]]+/g;

function counts(pairs: Record<string, unknown>): Record<string, number> {
  return Object.fromEntries(Object.entries(pairs).flatMap(([k, v]) => (num(v) === undefined ? [] : [[k, num(v)!]])));
}

function unescapeHtml(s: string): string {
  return s
    .replace(/&amp;/g, '&')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'");
}

/** Reddit's listings: /r/{name}/new.json and /user/{name}/submitted.json, `after` cursors, raw_json=1. */
export function reddit(client: ApiClient, base = 'https://www.reddit.com'): SocialBackend {
  const listing = async (path: string, params: Record<string, string>, limit: number, log: ApiExchange[]) => {
    const posts: SocialPost[] = [];
    let after: string | undefined;
    for (let page = 0; page < 10 && posts.length < limit; page++) {
      const url = new URL(path, base);
      url.search = new URLSearchParams({
        ...params,
        limit: String(Math.min(100, limit - posts.length)),
        raw_json: '1',
        ...(after ? { after } : {}),
      }).toString();
      const body = (await client.json({ url: url.href }, log)) as { data?: { after?: string | null; children?: Array<{ kind: string; data: Json }> } };
      const children = body.data?.children ?? [];
      for (const c of children) if (c.kind === 't3') posts.push(redditPost(c.data, base));
      after = body.data?.after ?? undefined;
      if (!after || !children.length) break;
    }
    return posts.slice(0, limit);
  };
  return {
    name: 'reddit',
    posts: (t, limit, log) => listing(t.scope === 'subreddit' ? `/r/${t.name}/new.json` : `/user/${t.name}/submitted.json`, {}, limit, log),
    search: (topics, limit, log) => listing('/search.json', { q: topics.join(' '), sort: 'new' }, limit, log),
  };
}

function redditPost(d: Json, base: string): SocialPost {
  const selftext = str(d.selftext);
  const links = new Set<string>();
  if (d.is_self === false && /^https?:/.test(str(d.url))) links.add(str(d.url));
  for (const u of selftext.match(URLS) ?? []) links.add(u);
  const images = ((d.preview as { images?: Array<{ source?: { url?: string } }> } | undefined)?.images ?? [])
    .map((i) => unescapeHtml(str(i.source?.url)))
    .filter(Boolean);
  return {
    text: selftext ? `${str(d.title)}\n\n${selftext}` : str(d.title),
    author: str(d.author),
    url: new URL(str(d.permalink), base).href,
    time: num(d.created_utc) !== undefined ? new Date(num(d.created_utc)! * 1000).toISOString() : undefined,
    engagement: counts({ score: d.score, comments: d.num_comments }),
    media: images,
    links: [...links],
  };
}

/** Mastodon: /api/v1/accounts/lookup, then the account's statuses (max_id pages); tags from /api/v1/timelines/tag. */
export function mastodon(client: ApiClient, defaultInstance = 'https://mastodon.social'): SocialBackend {
  const statuses = async (instance: string, path: string, params: Record<string, string>, limit: number, log: ApiExchange[]) => {
    const posts: SocialPost[] = [];
    let maxId: string | undefined;
    for (let page = 0; page < 10 && posts.length < limit; page++) {
      const url = new URL(path, instance);
      url.search = new URLSearchParams({ ...params, limit: String(Math.min(40, limit - posts.length)), ...(maxId ? { max_id: maxId } : {}) }).toString();
      const body = (await client.json({ url: url.href }, log)) as Json[];
      if (!Array.isArray(body) || !body.length) break;
      posts.push(...body.map(mastodonPost));
      maxId = str(body.at(-1)!.id);
    }
    return posts.slice(0, limit);
  };
  return {
    name: 'mastodon',
    async posts(t, limit, log) {
      const instance = t.instance ?? defaultInstance;
      const url = new URL('/api/v1/accounts/lookup', instance);
      url.search = new URLSearchParams({ acct: t.name }).toString();
      const account = (await client.json({ url: url.href }, log)) as Json;
      return statuses(instance, `/api/v1/accounts/${encodeURIComponent(str(account.id))}/statuses`, { exclude_replies: 'true' }, limit, log);
    },
    search: (topics, limit, log) =>
      statuses(
        defaultInstance,
        `/api/v1/timelines/tag/${encodeURIComponent(topics[0]!.replace(/^#/, ''))}`,
        { ...Object.fromEntries(topics.slice(1).map((t, i) => [`any[${i}]`, t.replace(/^#/, '')])) },
        limit,
        log,
      ),
  };
}

function mastodonPost(s: Json): SocialPost {
  const doc = parseDocument(str(s.content));
  const links = selectEvery(doc, 'a[href]')
    .filter((a) => !/\b(mention|hashtag)\b/.test(attr(a, 'class') ?? ''))
    .map((a) => attr(a, 'href')!)
    .filter((h) => /^https?:/.test(h));
  const account = (s.account ?? {}) as Json;
  return {
    text: textOf(doc).trim(),
    author: str(account.acct),
    url: str(s.url) || str(s.uri),
    time: str(s.created_at) || undefined,
    engagement: counts({ replies: s.replies_count, reblogs: s.reblogs_count, favourites: s.favourites_count }),
    media: ((s.media_attachments ?? []) as Json[]).map((m) => str(m.url)).filter(Boolean),
    links: [...new Set(links)],
  };
}

/** The Bluesky AppView: app.bsky.feed.getAuthorFeed and app.bsky.feed.searchPosts, `cursor` pages. */
export function bluesky(client: ApiClient, base = 'https://public.api.bsky.app'): SocialBackend {
  const feed = async (method: string, params: Record<string, string>, limit: number, log: ApiExchange[]) => {
    const posts: SocialPost[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 10 && posts.length < limit; page++) {
      const url = new URL(`/xrpc/${method}`, base);
      url.search = new URLSearchParams({ ...params, limit: String(Math.min(100, limit - posts.length)), ...(cursor ? { cursor } : {}) }).toString();
      const body = (await client.json({ url: url.href }, log)) as { feed?: Array<{ post: Json }>; posts?: Json[]; cursor?: string };
      const items = body.feed?.map((f) => f.post) ?? body.posts ?? [];
      posts.push(...items.map(blueskyPost));
      cursor = body.cursor;
      if (!cursor || !items.length) break;
    }
    return posts.slice(0, limit);
  };
  return {
    name: 'bluesky',
    posts: (t, limit, log) => feed('app.bsky.feed.getAuthorFeed', { actor: t.name, filter: 'posts_no_replies' }, limit, log),
    search: (topics, limit, log) => feed('app.bsky.feed.searchPosts', { q: topics.join(' '), sort: 'latest' }, limit, log),
  };
}

function blueskyPost(p: Json): SocialPost {
  const author = (p.author ?? {}) as Json;
  const record = (p.record ?? {}) as Json;
  const embed = (p.embed ?? {}) as Json;
  const links = new Set<string>();
  for (const f of (record.facets ?? []) as Json[])
    for (const feat of (f.features ?? []) as Json[]) if (feat.$type === 'app.bsky.richtext.facet#link' && str(feat.uri)) links.add(str(feat.uri));
  const external = (embed.external ?? {}) as Json;
  if (str(external.uri)) links.add(str(external.uri));
  const rkey = str(p.uri).split('/').pop() ?? '';
  return {
    text: str(record.text),
    author: str(author.handle),
    url: `https://bsky.app/profile/${str(author.handle)}/post/${rkey}`,
    time: str(record.createdAt) || undefined,
    engagement: counts({ likes: p.likeCount, reposts: p.repostCount, replies: p.replyCount, quotes: p.quoteCount }),
    media: ((embed.images ?? []) as Json[]).map((i) => str(i.fullsize)).filter(Boolean),
    links: [...links],
  };
}

/** The Apify actors trawl calls for platforms without an open API (run-sync-get-dataset-items); override with TRAWL_APIFY_ACTOR_<PLATFORM>. */
export const APIFY_ACTORS: Record<'x' | 'instagram' | 'tiktok', string> = {
  x: 'apidojo~tweet-scraper',
  instagram: 'apify~instagram-scraper',
  tiktok: 'clockworks~tiktok-scraper',
};

/** An Apify actor run synchronously; its dataset items mapped by the common field names of these actors. */
export function apify(platform: 'x' | 'instagram' | 'tiktok', token: string, client: ApiClient, env: Env, base = 'https://api.apify.com'): SocialBackend {
  const actor = env[`TRAWL_APIFY_ACTOR_${platform.toUpperCase()}`] ?? APIFY_ACTORS[platform];
  const run = async (input: Json, limit: number, log: ApiExchange[]) => {
    const url = new URL(`/v2/acts/${actor}/run-sync-get-dataset-items`, base);
    const items = (await client.json(
      { method: 'POST', url: url.href, headers: { Authorization: `Bearer ${token}` }, body: { ...input, maxItems: limit, resultsLimit: limit } },
      log,
    )) as Json[];
    return (Array.isArray(items) ? items : []).slice(0, limit).map(apifyPost);
  };
  const profileUrl = (name: string) =>
    platform === 'x' ? `https://x.com/${name}` : platform === 'instagram' ? `https://www.instagram.com/${name}/` : `https://www.tiktok.com/@${name}`;
  return {
    name: `apify:${actor}`,
    posts: (t, limit, log) =>
      run(
        platform === 'x' ? { twitterHandles: [t.name] } : platform === 'instagram' ? { directUrls: [profileUrl(t.name)] } : { profiles: [t.name] },
        limit,
        log,
      ),
    search: (topics, limit, log) => run(platform === 'x' ? { searchTerms: topics } : { hashtags: topics.map((t) => t.replace(/^#/, '')) }, limit, log),
  };
}

function apifyPost(i: Json): SocialPost {
  const author = (i.author ?? i.authorMeta ?? {}) as Json;
  const text = str(i.text) || str(i.fullText) || str(i.full_text) || str(i.caption);
  const time = str(i.createdAt) || str(i.timestamp) || str(i.createTimeISO);
  return {
    text,
    author: str(author.userName) || str(author.name) || str(i.ownerUsername),
    url: str(i.url) || str(i.postUrl) || str(i.webVideoUrl),
    time: time && !Number.isNaN(Date.parse(time)) ? new Date(Date.parse(time)).toISOString() : undefined,
    engagement: counts({
      likes: i.likeCount ?? i.likesCount ?? i.diggCount,
      replies: i.replyCount ?? i.commentsCount ?? i.commentCount,
      reposts: i.retweetCount ?? i.shareCount,
      views: i.viewCount ?? i.playCount,
    }),
    media: [str(i.displayUrl), ...((i.images ?? []) as unknown[]).map(str)].filter(Boolean),
    links: [...new Set(text.match(URLS) ?? [])],
  };
}

/** The backend of a platform, configured from the environment (`TRAWL_REDDIT_URL`, `TRAWL_BSKY_URL`, `TRAWL_MASTODON_URL`, `APIFY_TOKEN`). */
export function socialBackend(platform: SocialPlatform, env: Env, client: ApiClient): SocialBackend {
  if (platform === 'reddit') return reddit(client, env.TRAWL_REDDIT_URL);
  if (platform === 'bluesky') return bluesky(client, env.TRAWL_BSKY_URL);
  if (platform === 'mastodon') return mastodon(client, env.TRAWL_MASTODON_URL);
  return apify(platform, apifyToken(platform, env), client, env, env.TRAWL_APIFY_URL);
}

/** Throws the error `socialBackend` would for a platform that is not configured (checked before a crawl starts). */
export function checkSocialBackend(platform: SocialPlatform, env: Env): void {
  if (platform === 'x' || platform === 'instagram' || platform === 'tiktok') apifyToken(platform, env);
}

function apifyToken(platform: 'x' | 'instagram' | 'tiktok', env: Env): string {
  const token = env.APIFY_TOKEN ?? env.TRAWL_APIFY_TOKEN;
  if (!token)
    throw new UsageError(
      `${platform} has no open API: set APIFY_TOKEN to fetch it through an Apify actor (${APIFY_ACTORS[platform]}; TRAWL_APIFY_ACTOR_${platform.toUpperCase()} picks another)`,
    );
  return token;
}
