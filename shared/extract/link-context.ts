import { getDomain } from 'tldts';
import { urlId } from '../url/canonical.js';
import { attr, HEADING_TAGS, parentElement, selectEvery, selectFirst, textOf, type Doc, type El } from './dom.js';

export type LinkSection = 'nav' | 'header' | 'footer' | 'sidebar' | 'body';

/** An outbound link with what surrounds it: the unit of the link graph. */
export interface ContextLink {
  url: string;
  /** The absolute href as written, before canonicalisation. */
  href: string;
  urlId: string;
  anchorText: string;
  /** Up to ~200 characters around the link (the whole block when shorter). */
  context: string;
  section: LinkSection;
  rel: string[];
  internal: boolean;
}

export interface LinkOptions {
  canonicalize: (href: string) => string | null;
  maxLinks?: number;
  contextChars?: number;
}

/** At most this many links per page after de-duplication (link farms and mega-menus). */
export const MAX_LINKS = 500;
const CONTEXT_CHARS = 200;
const SKIP_SCHEME = /^\s*(#|javascript:|mailto:|tel:|data:|sms:|about:)/i;
const BLOCKS = new Set([
  'p',
  'li',
  'td',
  'th',
  'dd',
  'dt',
  'blockquote',
  'figcaption',
  ...HEADING_TAGS,
  'div',
  'section',
  'article',
  'main',
  'nav',
  'header',
  'footer',
  'aside',
  'body',
  'table',
  'ul',
  'ol',
  'form',
]);
const SECTION_BY_TAG: Record<string, LinkSection> = { nav: 'nav', header: 'header', footer: 'footer', aside: 'sidebar' };
const SECTION_BY_ROLE: Record<string, LinkSection> = { navigation: 'nav', banner: 'header', contentinfo: 'footer', complementary: 'sidebar' };

function sectionOf(el: El): LinkSection {
  for (let node = parentElement(el); node; node = parentElement(node)) {
    const byTag = SECTION_BY_TAG[node.name];
    if (byTag) return byTag;
    const role = SECTION_BY_ROLE[(node.attribs.role ?? '').toLowerCase()];
    if (role) return role;
  }
  return 'body';
}

function blockOf(el: El): El {
  let node = parentElement(el);
  while (node && !BLOCKS.has(node.name)) node = parentElement(node);
  return node ?? el;
}

/** A window of about `size` characters centred on the anchor text, cut at word boundaries. */
export function contextWindow(blockText: string, anchorText: string, size = CONTEXT_CHARS): string {
  if (blockText.length <= size) return blockText;
  const at = Math.max(0, anchorText ? blockText.indexOf(anchorText) : 0);
  const centre = at + Math.floor(anchorText.length / 2);
  let start = Math.max(0, Math.min(centre - Math.floor(size / 2), blockText.length - size));
  let end = Math.min(blockText.length, start + size);
  if (start > 0) start = blockText.indexOf(' ', start) + 1 || start;
  if (end < blockText.length) end = blockText.lastIndexOf(' ', end) > start ? blockText.lastIndexOf(' ', end) : end;
  return blockText.slice(start, end).trim();
}

function anchorTextOf(a: El): string {
  const text = textOf(a);
  if (text) return text;
  const alts = selectEvery(a, 'img[alt]')
    .map((img) => attr(img, 'alt'))
    .filter(Boolean)
    .join(' ');
  return alts || attr(a, 'alt') || attr(a, 'aria-label') || attr(a, 'title') || '';
}

function better(a: ContextLink, b: ContextLink): boolean {
  if ((a.section === 'body') !== (b.section === 'body')) return a.section === 'body';
  return a.context.length > b.context.length;
}

/**
 * Every outbound http(s) link of a page with anchor text, surrounding text, section and rel;
 * one per target (body context first, then the longer context), at most 500.
 */
export function extractLinks(doc: Doc, pageUrl: string, options: LinkOptions): ContextLink[] {
  const base = (() => {
    const href = attr(selectFirst(doc, 'base[href]'), 'href');
    try {
      return href ? new URL(href, pageUrl).href : pageUrl;
    } catch {
      return pageUrl;
    }
  })();
  const self = options.canonicalize(pageUrl);
  const selfId = self ? urlId(self) : null;
  const pageDomain = getDomain(new URL(pageUrl).hostname, { allowPrivateDomains: true }) ?? new URL(pageUrl).hostname;
  const blockText = new Map<El, string>();
  const byTarget = new Map<string, ContextLink>();
  const order: string[] = [];
  for (const a of selectEvery(doc, 'a[href], area[href]')) {
    const raw = a.attribs.href ?? '';
    if (!raw.trim() || SKIP_SCHEME.test(raw)) continue;
    let absolute: string;
    try {
      absolute = new URL(raw.trim(), base).href;
    } catch {
      continue;
    }
    const url = options.canonicalize(absolute);
    if (!url) continue;
    const id = urlId(url);
    // A link to the page itself, whatever its query's order.
    if (id === selfId) continue;
    const block = blockOf(a);
    let text = blockText.get(block);
    if (text === undefined) {
      text = textOf(block);
      blockText.set(block, text);
    }
    const anchorText = anchorTextOf(a);
    const hostname = new URL(url).hostname;
    const link: ContextLink = {
      url,
      href: absolute,
      urlId: id,
      anchorText,
      context: contextWindow(text, anchorText, options.contextChars ?? CONTEXT_CHARS),
      section: sectionOf(a),
      rel: (a.attribs.rel ?? '').toLowerCase().split(/\s+/).filter(Boolean),
      internal: (getDomain(hostname, { allowPrivateDomains: true }) ?? hostname) === pageDomain,
    };
    const existing = byTarget.get(link.urlId);
    if (!existing) order.push(link.urlId);
    if (!existing || better(link, existing)) byTarget.set(link.urlId, link);
  }
  return order.slice(0, options.maxLinks ?? MAX_LINKS).map((id) => byTarget.get(id)!);
}
