import { createHash } from 'node:crypto';
import { simhash } from '../dedupe/simhash.js';
import { extractLinks, type ContextLink } from '../links/link-context.js';
import { chunkText, type Chunk, DEFAULT_CHUNKING } from './chunks.js';
import { attr, parseDocument, textOf, type Doc } from './dom.js';
import { boundHtml, type BoundCut, type PageBounds } from './bounds.js';
import { robotsDirectives } from './robots-meta.js';
import { absolutizeUrls, extractMainContent } from './main-content.js';
import { extractMetadata, type PageMetadata } from './metadata.js';

/** The whole extraction of one HTML page. */
export interface PageExtraction {
  url: string;
  title?: string;
  metadata: PageMetadata;
  markdown: string;
  text: string;
  method: 'readability' | 'fallback';
  links: ContextLink[];
  /** `<link rel="canonical">`, absolute: what the crawler records as an alias. */
  linkCanonical?: string;
  feeds: string[];
  noindex: boolean;
  nofollow: boolean;
  /** SimHash of the main text (16 hex digits). */
  simhash: string;
  /** SHA-256 of the normalised main text: exact duplicates whatever the markup. */
  textHash: string;
  chunks: Chunk[];
  /** Bounds the page went over before it was parsed, and what was cut (absent when none). */
  cuts?: BoundCut[];
}

export interface ExtractOptions {
  canonicalize: (href: string) => string | null;
  robotsToken: string;
  xRobotsTag?: string;
  /** Work limits applied before parsing (default: `DEFAULT_PAGE_BOUNDS`). */
  bounds?: PageBounds;
}

/** What a links-only extraction keeps: enough to crawl on and build the graph with context. */
export type LinkExtraction = Pick<PageExtraction, 'url' | 'title' | 'links' | 'linkCanonical' | 'feeds' | 'noindex' | 'nofollow' | 'cuts'>;

/** Parses a page within its bounds. */
function boundedDocument(html: string, options: ExtractOptions): { doc: Doc; cuts?: BoundCut[] } {
  const bounded = boundHtml(html, options.bounds);
  return { doc: parseDocument(bounded.html), cuts: bounded.cuts.length ? bounded.cuts : undefined };
}

function linkParts(doc: Doc, url: string, options: ExtractOptions): LinkExtraction {
  const canonicalHref = attr(doc.querySelector('link[rel~="canonical"][href]'), 'href');
  let linkCanonical: string | undefined;
  try {
    linkCanonical = canonicalHref ? (options.canonicalize(new URL(canonicalHref, url).href) ?? undefined) : undefined;
  } catch {
    linkCanonical = undefined;
  }
  return {
    url,
    title: textOf(doc.querySelector('title')) || undefined,
    links: extractLinks(doc, url, { canonicalize: options.canonicalize }),
    linkCanonical,
    feeds: feedsOf(doc, url),
    ...robotsMeta(doc, options.robotsToken, options.xRobotsTag),
  };
}

/** Links with context, canonical, feeds and robots directives only: for discovery crawls (`--extract links`). */
export function extractLinksOnly(html: string, url: string, options: ExtractOptions): LinkExtraction {
  const { doc, cuts } = boundedDocument(html, options);
  return { ...linkParts(doc, url, options), cuts };
}

const FEED_TYPES = new Set(['application/rss+xml', 'application/atom+xml', 'application/feed+json']);

/** Lower-cased, whitespace-collapsed text: what "the same text" means for exact duplicates. */
export function normalizedTextHash(text: string): string {
  return createHash('sha256').update(text.toLowerCase().replace(/\s+/g, ' ').trim()).digest('hex');
}

function robotsMeta(doc: Doc, token: string, header?: string): { noindex: boolean; nofollow: boolean } {
  const out = robotsDirectives(header, token);
  for (const meta of doc.querySelectorAll('meta[name]')) {
    const name = (meta.getAttribute('name') ?? '').toLowerCase();
    if (name !== 'robots' && name !== token) continue;
    const d = robotsDirectives(attr(meta, 'content'), token);
    out.noindex ||= d.noindex;
    out.nofollow ||= d.nofollow;
  }
  return out;
}

function feedsOf(doc: Doc, pageUrl: string): string[] {
  const feeds: string[] = [];
  for (const link of doc.querySelectorAll('link[rel~="alternate"][href]')) {
    if (!FEED_TYPES.has((link.getAttribute('type') ?? '').toLowerCase())) continue;
    try {
      feeds.push(new URL(link.getAttribute('href')!, pageUrl).href);
    } catch {
      // ignore a feed link that is not a URL
    }
  }
  return feeds;
}

/**
 * Title, metadata, readable markdown, links with context, SimHash, text hash and chunks of a page.
 *
 * @example extractPage(html, 'https://a.test/post', { canonicalize, robotsToken: 'trawl' }).markdown
 */
export function extractPage(html: string, url: string, options: ExtractOptions): PageExtraction {
  const { doc, cuts } = boundedDocument(html, options);
  const parts = linkParts(doc, url, options);
  absolutizeUrls(doc, url);
  const main = extractMainContent(doc);
  const metadata = extractMetadata(doc, url, main.text, { title: main.title, byline: main.byline });
  return {
    ...parts,
    title: metadata.title,
    metadata,
    markdown: main.markdown,
    text: main.text,
    method: main.method,
    simhash: simhash(main.text),
    textHash: normalizedTextHash(main.text),
    chunks: chunkText(main.markdown, DEFAULT_CHUNKING),
    cuts,
  };
}
