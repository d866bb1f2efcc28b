import { Parser } from 'htmlparser2';

export interface RawLink {
  /** The href resolved against the page (or its `<base>`), not yet canonical. */
  href: string;
  text: string;
  rel: string[];
}

/** What the crawler needs from a page to go on: links, canonical, feeds and robots directives. */
export interface HtmlSignals {
  title?: string;
  links: RawLink[];
  canonical?: string;
  feeds: string[];
  noindex: boolean;
  nofollow: boolean;
}

const FEED_TYPES = new Set(['application/rss+xml', 'application/atom+xml', 'application/feed+json', 'application/json']);

/** Parses `noindex`/`nofollow`/`none` from a robots directive list (meta robots or X-Robots-Tag). */
export function robotsDirectives(value: string | undefined, token: string): { noindex: boolean; nofollow: boolean } {
  const out = { noindex: false, nofollow: false };
  if (!value) return out;
  for (const part of value.toLowerCase().split(/,(?=\s*[a-z-]+\s*:)|;/)) {
    // X-Robots-Tag may scope directives to one agent: "otherbot: noindex".
    const scoped = /^\s*([a-z_-]+)\s*:\s*(.*)$/.exec(part);
    if (scoped && !['unavailable_after', 'max-snippet', 'max-image-preview', 'max-video-preview'].includes(scoped[1]!) && scoped[1] !== token) continue;
    const directives = (scoped ? scoped[2]! : part).split(/[\s,]+/);
    if (directives.includes('noindex') || directives.includes('none')) out.noindex = true;
    if (directives.includes('nofollow') || directives.includes('none')) out.nofollow = true;
  }
  return out;
}

function resolve(href: string, base: string): string | undefined {
  const trimmed = href.trim();
  if (!trimmed || trimmed.startsWith('#')) return undefined;
  try {
    return new URL(trimmed, base).href;
  } catch {
    return undefined;
  }
}

/**
 * Streams through HTML once (htmlparser2) and collects links with anchor text and rel,
 * `<base>`, `<link rel=canonical>`, feed alternates, `<meta name=robots>` and the title.
 */
export function extractHtmlSignals(html: string, pageUrl: string, robotsToken: string): HtmlSignals {
  let base = pageUrl;
  const signals: HtmlSignals = { links: [], feeds: [], noindex: false, nofollow: false };
  const hrefs: Array<{ href: string; rel: string[]; text: string[] }> = [];
  let openAnchor: { href: string; rel: string[]; text: string[] } | undefined;
  let inTitle = false;
  let title = '';
  const parser = new Parser(
    {
      onopentag(name, attrs) {
        if (name === 'base' && attrs.href && hrefs.length === 0) base = resolve(attrs.href, pageUrl) ?? base;
        else if (name === 'a' || name === 'area') {
          const anchor = { href: attrs.href ?? '', rel: (attrs.rel ?? '').toLowerCase().split(/\s+/).filter(Boolean), text: [] as string[] };
          if (anchor.href) hrefs.push(anchor);
          if (name === 'a') openAnchor = anchor;
          else if (attrs.alt) anchor.text.push(attrs.alt);
        } else if (name === 'img' && openAnchor && attrs.alt) openAnchor.text.push(attrs.alt);
        else if (name === 'link') onLink(attrs);
        else if (name === 'meta') onMeta(attrs);
        else if (name === 'title') inTitle = true;
      },
      ontext(text) {
        if (openAnchor) openAnchor.text.push(text);
        if (inTitle) title += text;
      },
      onclosetag(name) {
        if (name === 'a') openAnchor = undefined;
        if (name === 'title') inTitle = false;
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  function onLink(attrs: Record<string, string>) {
    const rel = (attrs.rel ?? '').toLowerCase().split(/\s+/);
    if (!attrs.href) return;
    if (rel.includes('canonical') && !signals.canonical) signals.canonical = resolve(attrs.href, base);
    if (rel.includes('alternate') && FEED_TYPES.has((attrs.type ?? '').toLowerCase())) {
      const feed = resolve(attrs.href, base);
      if (feed) signals.feeds.push(feed);
    }
  }
  function onMeta(attrs: Record<string, string>) {
    const name = (attrs.name ?? '').toLowerCase();
    if (name === 'robots' || name === robotsToken) {
      const d = robotsDirectives(attrs.content, robotsToken);
      signals.noindex ||= d.noindex;
      signals.nofollow ||= d.nofollow;
    }
    if ((attrs['http-equiv'] ?? '').toLowerCase() === 'refresh') {
      const m = /url\s*=\s*['"]?([^'"]+)/i.exec(attrs.content ?? '');
      if (m?.[1]) hrefs.push({ href: m[1], rel: [], text: [] });
    }
  }
  parser.write(html);
  parser.end();
  for (const h of hrefs) {
    const href = resolve(h.href, base);
    if (href) signals.links.push({ href, rel: h.rel, text: h.text.join(' ').replace(/\s+/g, ' ').trim() });
  }
  const cleanTitle = title.replace(/\s+/g, ' ').trim();
  if (cleanTitle) signals.title = cleanTitle;
  return signals;
}
