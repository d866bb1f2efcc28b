/** What the priority function sees about a URL; later link scoring adds fields here. */
export interface PriorityInput {
  url: string;
  depth: number;
  /** Distinct pages seen linking to the URL so far. */
  inlinks: number;
  /** Found in a feed, or a sitemap entry modified recently. */
  fresh: boolean;
  /** The seed, a redirect target or a sitemap: structural URLs go first. */
  structural?: boolean;
  /** For a link: its anchor text, the text around it, its section and whether it stays on the page's host (what focused crawling scores). */
  anchor?: string;
  context?: string;
  section?: 'nav' | 'header' | 'footer' | 'sidebar' | 'body';
  sameHost?: boolean;
  /** The target's head title and meta description, when a preview fetched them. */
  title?: string;
  description?: string;
}

/** The replaceable piece: higher comes first within a host. */
export type PriorityFn = (input: PriorityInput) => number;

const FRESH_PATH = /\/(news|blog|blogs|posts?|articles?|feed|press|updates?)(\/|$)|\/20\d\d\/\d\d\//i;
const BINARY_EXT = /\.(png|jpe?g|gif|webp|svg|ico|css|js|woff2?|ttf|mp[34]|mov|avi|zip|gz|tgz|rar|7z|exe|dmg|iso|bin)$/i;
const PDF_EXT = /\.pdf$/i;

/**
 * Depth −0.1 a hop, +0.2 an inlink, +0.3 for freshness hints (feeds, news/blog paths, dated
 * paths), −0.3 for PDFs and −1 for types we will most likely not keep.
 *
 * @example defaultPriority({ url: 'https://a.test/blog/x', depth: 2, inlinks: 1, fresh: false }) // 1.3
 */
export const defaultPriority: PriorityFn = ({ url, depth, inlinks, fresh, structural }) => {
  let score = 1 - 0.1 * depth + 0.2 * inlinks;
  const path = new URL(url).pathname;
  if (fresh || FRESH_PATH.test(path)) score += 0.3;
  if (PDF_EXT.test(path)) score -= 0.3;
  if (BINARY_EXT.test(path)) score -= 1;
  if (structural) score += 1;
  return Math.round(score * 1000) / 1000;
};
