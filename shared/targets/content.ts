// The typed content `fetch(target)` returns, live or from the archive.
import type { SocialPlatform } from './route.js';

export interface WebSearchResult {
  url: string;
  title: string;
  snippet: string;
  /** 1 for the first result. */
  rank: number;
}

export interface SocialPost {
  text: string;
  author: string;
  url: string;
  /** ISO 8601. */
  time?: string;
  /** Engagement counts the platform gives (score, comments, likes, reposts, replies …). */
  engagement: Record<string, number>;
  media: string[];
  /** Links in the post (what a crawl seeded with the account follows). */
  links: string[];
}

export interface FeedEntry {
  url: string;
  title?: string;
  published?: string;
}

interface Common {
  /** The target as given. */
  target: string;
  /** The normalised target: the archive's lookup key. */
  key: string;
  /** SHA-256 of the content (the typed JSON for search and social; the body for a URL). */
  contentHash: string;
  fetchedAt: number;
  durationMs: number;
}

export type FetchedContent = Common &
  (
    | { type: 'page'; url: string; status: number; title?: string; html: string; markdown: string }
    | { type: 'feed'; url: string; status: number; title?: string; items: FeedEntry[] }
    | { type: 'pdf'; url: string; status: number; title?: string; text: string; pages: number }
    | { type: 'raw'; url: string; status: number; mime: string; bytes: number }
    | { type: 'search-results'; query: string; backend: string; results: WebSearchResult[] }
    | { type: 'social-posts'; platform: SocialPlatform; account: string; backend: string; posts: SocialPost[] }
  );

export type ContentType = FetchedContent['type'];
