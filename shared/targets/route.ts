// Routing: what a target string is, decided without any request. Social profile URLs and bare
// `r/…` are social accounts; `search:…` and any string that is not a URL are web search queries;
// other http(s) URLs are fetched over HTTP. Each target has a normalised key: the archive's lookup
// key, the same on the live side and in the replay.
import { parse as parseDomain } from 'tldts';
import { UsageError } from '../errors.js';
import { canonicalize, urlId } from '../url/canonical.js';

export type SocialPlatform = 'reddit' | 'mastodon' | 'bluesky' | 'x' | 'instagram' | 'tiktok';

export type Target =
  | { kind: 'url'; url: string; key: string }
  | { kind: 'search'; query: string; key: string }
  | {
      kind: 'social';
      platform: SocialPlatform;
      /** `subreddit` and `user` on Reddit; `account` elsewhere. */
      scope: 'subreddit' | 'user' | 'account';
      /** The subreddit, user name or handle (no `@`, no `r/`). */
      name: string;
      /** The Mastodon server (`https://mastodon.social`). */
      instance?: string;
      key: string;
    };

/** Longer targets are refused: no URL or query needs more. */
export const MAX_TARGET_CHARS = 2048;

const NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$/;
const SCHEME = /^([a-zA-Z][a-zA-Z0-9+.-]*):/;
const X_RESERVED = new Set(['home', 'search', 'explore', 'i', 'settings', 'notifications', 'messages', 'login', 'signup', 'intent', 'share', 'hashtag']);
const IG_RESERVED = new Set(['p', 'reel', 'reels', 'explore', 'accounts', 'stories', 'direct', 'tv']);

const social = (platform: SocialPlatform, scope: 'subreddit' | 'user' | 'account', name: string, instance?: string): Target => {
  const n = name.toLowerCase();
  const key =
    platform === 'reddit'
      ? `reddit:${scope === 'subreddit' ? 'r' : 'u'}/${n}`
      : platform === 'mastodon'
        ? `mastodon:${n}@${new URL(instance!).host}`
        : `${platform}:${n}`;
  return { kind: 'social', platform, scope, name, ...(instance ? { instance } : {}), key };
};

/** A search query's key: `search:` and its words, lower-cased, whitespace collapsed. */
export function searchKey(query: string): string {
  return `search:${query.replace(/\s+/g, ' ').trim().toLowerCase()}`;
}

/** Social profile URLs of the platforms trawl knows, by their shape alone. */
function socialUrl(u: URL): Target | undefined {
  const host = u.hostname.toLowerCase().replace(/^(www|old|new|m|mobile)\./, '');
  const segments = u.pathname.split('/').filter(Boolean);
  const [first, second] = segments;
  if (host === 'reddit.com' && segments.length === 2 && second && NAME.test(second)) {
    if (first === 'r') return social('reddit', 'subreddit', second);
    if (first === 'u' || first === 'user') return social('reddit', 'user', second);
  }
  if (host === 'bsky.app' && first === 'profile' && second && segments.length === 2) return social('bluesky', 'account', second);
  if ((host === 'x.com' || host === 'twitter.com') && segments.length === 1 && NAME.test(first!) && !X_RESERVED.has(first!.toLowerCase()))
    return social('x', 'account', first!);
  if (host === 'instagram.com' && segments.length === 1 && NAME.test(first!) && !IG_RESERVED.has(first!.toLowerCase()))
    return social('instagram', 'account', first!);
  if (host === 'tiktok.com' && segments.length === 1 && first!.startsWith('@') && NAME.test(first!.slice(1)))
    return social('tiktok', 'account', first!.slice(1));
  // Mastodon (and other ActivityPub servers): https://instance/@user, recognised by shape.
  if (segments.length === 1 && /^@[A-Za-z0-9_]{1,30}$/.test(first!) && host !== 'tiktok.com' && host !== 'medium.com')
    return social('mastodon', 'account', first!.slice(1), u.origin);
  return undefined;
}

/**
 * What a target is. Throws a UsageError naming the problem and what to write for an empty target,
 * one over 2,048 characters, and a URL whose scheme is not http or https.
 *
 * @example routeTarget('r/Minneapolis') // { kind: 'social', platform: 'reddit', scope: 'subreddit', name: 'Minneapolis', key: 'reddit:r/minneapolis' }
 * @example routeTarget('affordable housing Minneapolis') // { kind: 'search', query: 'affordable housing Minneapolis', key: 'search:affordable housing minneapolis' }
 */
export function routeTarget(input: string): Target {
  const text = typeof input === 'string' ? input.trim() : '';
  if (!text)
    throw new UsageError('empty target: give a URL (https://example.com/), a search query (search:fire sprinkler inspection) or an account (r/Minneapolis)');
  if (text.length > MAX_TARGET_CHARS)
    throw new UsageError(`the target is ${text.length} characters; a URL or a query is at most ${MAX_TARGET_CHARS}: shorten it`);
  if (/^search:/i.test(text)) {
    const query = text.slice('search:'.length).trim();
    if (!query) throw new UsageError('search: needs words after it: search:fire sprinkler inspection Minneapolis');
    return { kind: 'search', query, key: searchKey(query) };
  }
  const bare = /^\/?(r|u)\/([A-Za-z0-9_][A-Za-z0-9_-]{0,63})\/?$/.exec(text);
  if (bare) return social('reddit', bare[1] === 'r' ? 'subreddit' : 'user', bare[2]!);
  const scheme = SCHEME.exec(text)?.[1]?.toLowerCase();
  if (scheme && !/\s/.test(text) && !/^\d+$/.test(text.slice(scheme.length + 1).split('/')[0] ?? '')) {
    if (scheme !== 'http' && scheme !== 'https')
      throw new UsageError(`${scheme}: URLs are not fetched: give an http(s) URL, or write search:${text} to search for the words`);
    const url = canonicalize(text);
    if (!url) throw new UsageError(`invalid URL ${JSON.stringify(text)}: give an absolute http(s) URL`);
    return socialUrl(new URL(url)) ?? { kind: 'url', url, key: url };
  }
  // One word with a public suffix (example.com, example.com/page) is a site; anything else is a query.
  if (!/\s/.test(text)) {
    const d = parseDomain(text.split('/')[0]!);
    if (d.domain && d.isIcann && !d.isIp) {
      const url = canonicalize(`https://${text}`);
      if (url) return socialUrl(new URL(url)) ?? { kind: 'url', url, key: url };
    }
  }
  return { kind: 'search', query: text.replace(/\s+/g, ' '), key: searchKey(text) };
}

/**
 * The archive's id of anything a user may name: a URL (canonical), a search query or a social
 * account (its key); text that is none of them, as it is.
 */
export function targetId(input: string): string {
  try {
    const t = routeTarget(input);
    return urlId(t.kind === 'url' ? t.url : t.key);
  } catch {
    return urlId(canonicalize(input) ?? input);
  }
}
