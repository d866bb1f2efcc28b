// What a crawl follows from a search or social target: each search result, and each link in a
// post, with the words that led to it (the result's title and snippet, the post's text), so the
// link graph records where a URL came from just as it records a page's links.
import { contextWindow } from '../extract/link-context.js';
import type { FetchedContent } from './content.js';

/** One URL a target points at, as an edge of the target's "page". */
export interface TargetLink {
  url: string;
  /** The result's title, or the post's first line. */
  anchor: string;
  /** The result's snippet, or about 200 characters of the post around its first line. */
  context: string;
}

/** Anchors are kept to a line's worth: a post's text can run to pages. */
const MAX_ANCHOR_CHARS = 200;

const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim();

function clip(s: string, max: number): string {
  if (s.length <= max) return s;
  const cut = s.slice(0, max);
  const space = cut.lastIndexOf(' ');
  return `${space > max / 2 ? cut.slice(0, space) : cut}…`;
}

/**
 * The links of a target's content, in the order the backend gave them, one per URL (the first
 * result or post that links to it wins). Pages, feeds and PDFs yield none: a URL target is a seed.
 */
export function targetLinks(content: FetchedContent): TargetLink[] {
  const out = new Map<string, TargetLink>();
  if (content.type === 'search-results') {
    for (const r of content.results) {
      if (!out.has(r.url)) out.set(r.url, { url: r.url, anchor: clip(oneLine(r.title), MAX_ANCHOR_CHARS), context: oneLine(r.snippet) });
    }
  }
  if (content.type === 'social-posts') {
    for (const post of content.posts) {
      const text = oneLine(post.text);
      const anchor = clip(oneLine(post.text.split('\n')[0] ?? ''), MAX_ANCHOR_CHARS);
      for (const url of post.links) {
        if (!/^https?:\/\//i.test(url) || out.has(url)) continue;
        out.set(url, { url, anchor, context: contextWindow(text, anchor) });
      }
    }
  }
  return [...out.values()];
}

/** The MIME type a target's stored "page" carries: its body is the typed content as JSON. */
export function targetMime(type: 'search-results' | 'social-posts'): string {
  return `application/vnd.trawl.${type}+json`;
}
