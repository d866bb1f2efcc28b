// The intrinsic score of a link (0–10, no model, no query): what the URL, the anchor and the link's
// place on the page say about the target before anything is fetched.

export interface LinkFacts {
  url: string;
  anchor: string;
  section: 'nav' | 'header' | 'footer' | 'sidebar' | 'body';
  /** The target is on the page's own host. */
  sameHost: boolean;
  /** The anchor is an image (its alt text, if any, is `anchor`). */
  imageOnly?: boolean;
}

/** Each penalty, for diagnostics: what took points off and how many. */
export interface IntrinsicScore {
  score: number;
  penalties: Array<{ rule: string; points: number }>;
}

const GENERIC_ANCHORS = new Set(['click here', 'here', 'read more', 'more', 'learn more', 'link', 'this', 'go', 'details', 'continue', 'see more', '»', '→']);
const SECTION_PENALTY: Record<LinkFacts['section'], number> = { body: 0, sidebar: 0.5, header: 1, nav: 1, footer: 2 };
const TRACKING = /^(utm_|fbclid$|gclid$|mc_|ref$|sessionid$|sid$|phpsessid$)/i;
const ID_SEGMENT = /^(\d{4,}|[0-9a-f]{16,}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i;
const BINARY = /\.(png|jpe?g|gif|webp|svg|ico|css|js|woff2?|ttf|mp[34]|mov|avi|zip|gz|tgz|rar|7z|exe|dmg|iso|bin)$/i;
const DOCUMENT = /\.(pdf|docx?|xlsx?|pptx?)$/i;

/**
 * 10 minus penalties: path depth (1 a segment past the first, at most 3), URL quality (length,
 * id-like segments, query parameters, tracking parameters, file types), anchor quality (empty,
 * generic such as "click here", image-only, overlong), the link's section (body 0 … footer 2) and
 * another host (2). Clamped to 0–10.
 *
 * @example intrinsicScore({ url: 'https://a.test/services', anchor: 'Services', section: 'nav', sameHost: true }).score // 9
 */
export function intrinsicScore(link: LinkFacts): IntrinsicScore {
  const penalties: IntrinsicScore['penalties'] = [];
  const off = (rule: string, points: number) => {
    if (points > 0) penalties.push({ rule, points });
  };
  let u: URL;
  try {
    u = new URL(link.url);
  } catch {
    return { score: 0, penalties: [{ rule: 'invalid-url', points: 10 }] };
  }
  const segments = u.pathname.split('/').filter(Boolean);
  off('path-depth', Math.min(3, Math.max(0, segments.length - 1)));
  off('long-url', u.href.length > 100 ? 1 : 0);
  off('id-segment', segments.some((s) => ID_SEGMENT.test(s)) ? 1 : 0);
  const params = [...u.searchParams.keys()];
  off('query-parameters', Math.min(2, params.length * 0.5));
  off('tracking-parameters', params.some((p) => TRACKING.test(p)) ? 1 : 0);
  const last = segments[segments.length - 1] ?? '';
  off('binary-file', BINARY.test(last) ? 5 : 0);
  off('document-file', DOCUMENT.test(last) ? 1 : 0);
  const anchor = link.anchor.replace(/\s+/g, ' ').trim().toLowerCase();
  if (link.imageOnly) off('image-only-anchor', anchor ? 1 : 2);
  else if (!anchor) off('empty-anchor', 2);
  else if (GENERIC_ANCHORS.has(anchor)) off('generic-anchor', 1.5);
  off('long-anchor', anchor.length > 100 ? 0.5 : 0);
  off(`section-${link.section}`, SECTION_PENALTY[link.section]);
  off('other-host', link.sameHost ? 0 : 2);
  const total = penalties.reduce((n, p) => n + p.points, 0);
  return { score: Math.round(Math.max(0, Math.min(10, 10 - total)) * 100) / 100, penalties };
}
