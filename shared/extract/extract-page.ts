import { hash } from 'node:crypto';
import { simhash } from '../dedupe/simhash.js';
import { extractLinks, type ContextLink } from './link-context.js';
import { chunkText, type Chunk, DEFAULT_CHUNKING } from './chunks.js';
import { attr, selectEvery, selectFirst, textOf, type Doc } from './dom.js';
import { parseWithinBounds, type BoundCut, type PageBounds } from './bounds.js';
import { robotsDirectives } from './robots-meta.js';
import { blockText, mainContentText, type ContentMethod, type MainContentScope } from './main-content.js';
import { toMarkdown } from './markdown.js';
import { metadataFields, withWordCount, type MetadataProblems, type PageMetadata } from './metadata.js';
import { errorMessage } from '../errors.js';
import { shellSignals, type ShellSignals } from './shell-signals.js';
import type { FieldValue } from './fields.js';
import { NO_CLOCK, type StageClock, type StageTimes } from '../log/stage-clock.js';

/** The whole extraction of one HTML page. */
export interface PageExtraction {
  url: string;
  title?: string;
  metadata: PageMetadata;
  markdown: string;
  text: string;
  /** How the main content was found: the best container, the paragraph classifier, a second look at a short first choice (`relaxed`), the body (no prose), the whole page (`--main-content full`), or none. */
  method: ContentMethod;
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
  /** Parts of the extraction that failed and were degraded (absent when none): the rest of the page stands. */
  problems?: ExtractionProblem[];
  /** What the served markup says about needing JavaScript: the render decision's input. */
  shell: ShellSignals;
  /** CSS-selector fields of the profile or the command line that matched (absent when none). */
  fields?: Record<string, FieldValue>;
  /** Milliseconds by part, when the extraction was timed (`--stage-times`). */
  timings?: StageTimes;
}

/** One part of an extraction that failed: which part, and why. */
export interface ExtractionProblem {
  part: 'links' | 'metadata' | 'json-ld' | 'date' | 'main-text' | 'markdown' | 'chunks' | 'fields';
  error: string;
}

export interface ExtractOptions {
  canonicalize: (href: string) => string | null;
  robotsToken: string;
  xRobotsTag?: string;
  /** The page's article (default) or all of its readable content (`--main-content full`). */
  mainContent?: MainContentScope;
  /** Work limits applied before parsing (default: `DEFAULT_PAGE_BOUNDS`). */
  bounds?: PageBounds;
  /** Times each part (`--stage-times`). */
  clock?: StageClock;
}

/** What a links-only extraction keeps: enough to crawl on and build the graph with context. */
export type LinkExtraction = Pick<
  PageExtraction,
  'url' | 'title' | 'links' | 'linkCanonical' | 'feeds' | 'noindex' | 'nofollow' | 'cuts' | 'shell' | 'fields' | 'timings'
>;

/** Parses a page within its bounds. */
function boundedDocument(html: string, options: ExtractOptions): { doc: Doc; cuts?: BoundCut[] } {
  const bounded = parseWithinBounds(html, options.bounds);
  return { doc: bounded.doc, cuts: bounded.cuts.length ? bounded.cuts : undefined };
}

function linkParts(doc: Doc, url: string, options: ExtractOptions): Omit<LinkExtraction, 'shell'> {
  const canonicalHref = attr(selectFirst(doc, 'link[rel~="canonical"][href]'), 'href');
  let linkCanonical: string | undefined;
  try {
    linkCanonical = canonicalHref ? (options.canonicalize(new URL(canonicalHref, url).href) ?? undefined) : undefined;
  } catch {
    linkCanonical = undefined;
  }
  return {
    url,
    title: textOf(selectFirst(doc, 'title')) || undefined,
    links: extractLinks(doc, url, { canonicalize: options.canonicalize }),
    linkCanonical,
    feeds: feedsOf(doc, url),
    ...robotsMeta(doc, options.robotsToken, options.xRobotsTag),
  };
}

/** Links with context, canonical, feeds and robots directives only: for discovery crawls (`--extract links`). */
export function extractLinksOnly(html: string, url: string, options: ExtractOptions): LinkExtraction {
  const clock = options.clock ?? NO_CLOCK;
  const { doc, cuts } = clock.time('parse', () => boundedDocument(html, options));
  const shell = clock.time('render signals', () => shellSignals(doc, html));
  return { ...clock.time('links', () => linkParts(doc, url, options)), cuts, shell };
}

const FEED_TYPES = new Set(['application/rss+xml', 'application/atom+xml', 'application/feed+json']);

/** Lower-cased, whitespace-collapsed text: what "the same text" means for exact duplicates. */
export function normalizedTextHash(text: string): string {
  return hash('sha256', text.toLowerCase().replace(/\s+/g, ' ').trim(), 'hex');
}

function robotsMeta(doc: Doc, token: string, header?: string): { noindex: boolean; nofollow: boolean } {
  const out = robotsDirectives(header, token);
  for (const meta of selectEvery(doc, 'meta[name]')) {
    const name = (meta.attribs.name ?? '').toLowerCase();
    if (name !== 'robots' && name !== token) continue;
    const d = robotsDirectives(attr(meta, 'content'), token);
    out.noindex ||= d.noindex;
    out.nofollow ||= d.nofollow;
  }
  return out;
}

function feedsOf(doc: Doc, pageUrl: string): string[] {
  const feeds: string[] = [];
  for (const link of selectEvery(doc, 'link[rel~="alternate"][href]')) {
    if (!FEED_TYPES.has((link.attribs.type ?? '').toLowerCase())) continue;
    try {
      feeds.push(new URL(link.attribs.href ?? '', pageUrl).href);
    } catch {
      // ignore a feed link that is not a URL
    }
  }
  return feeds;
}

/** Runs one part of an extraction; a failure is recorded and the part's fallback used instead. */
function part<T>(problems: ExtractionProblem[], name: ExtractionProblem['part'], run: () => T, fallback: () => T): T {
  try {
    return run();
  } catch (err) {
    problems.push({ part: name, error: errorMessage(err).slice(0, 300) });
    return fallback();
  }
}

/**
 * Title, metadata, readable markdown, links with context, SimHash, text hash and chunks of a page.
 * Each part stands alone: a part that fails (a table the markdown cannot write, JSON-LD that is not
 * JSON) is recorded in `problems` and degraded, and the page keeps everything else.
 *
 * @example extractPage(html, 'https://a.test/post', { canonicalize, robotsToken: 'trawl' }).markdown
 */
export function extractPage(html: string, url: string, options: ExtractOptions): PageExtraction {
  const clock = options.clock ?? NO_CLOCK;
  const { doc, cuts } = clock.time('parse', () => boundedDocument(html, options));
  // Measured before the content pass prunes the tree.
  const shell = clock.time('render signals', () => shellSignals(doc, html));
  const problems: ExtractionProblem[] = [];
  const parts = clock.time('links', () =>
    part(
      problems,
      'links',
      () => linkParts(doc, url, options),
      () => ({ url, links: [], feeds: [], noindex: false, nofollow: false }),
    ),
  );
  // Metadata reads the head and JSON-LD before the content pass prunes the tree.
  const meta = clock.time('metadata', () =>
    part(
      problems,
      'metadata',
      () => metadataFields(doc, url, { problems: problems as MetadataProblems['problems'] }),
      () => ({ sources: {} }),
    ),
  );
  const main = clock.time('main content', () =>
    part(
      problems,
      'main-text',
      () => mainContentText(doc, { scope: options.mainContent, reparse: () => boundedDocument(html, options).doc }),
      () => {
        const nodes = selectFirst(doc, 'body') ? [selectFirst(doc, 'body')!] : [];
        return {
          nodes,
          method: 'none' as const,
          text: part(
            problems,
            'main-text',
            () => blockText(nodes),
            () => '',
          ),
        };
      },
    ),
  );
  const text = main.text;
  const markdown = clock.time('markdown', () =>
    part(
      problems,
      'markdown',
      () => toMarkdown(main.nodes, url),
      () => text,
    ),
  );
  const metadata = withWordCount(meta, text);
  const chunks = clock.time('chunks', () =>
    part(
      problems,
      'chunks',
      () => chunkText(markdown, DEFAULT_CHUNKING),
      () => [],
    ),
  );
  return {
    ...parts,
    title: metadata.title ?? parts.title,
    metadata,
    markdown,
    text,
    method: main.method,
    simhash: clock.time('simhash', () => simhash(text)),
    textHash: clock.time('simhash', () => normalizedTextHash(text)),
    chunks,
    cuts,
    problems: problems.length ? problems : undefined,
    shell,
  };
}
