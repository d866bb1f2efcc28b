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

/** Priority functions by profile name: the same choice in both runtimes (a scheduled crawl names its profile). */
const PROFILES: Record<string, PriorityFn> = { default: defaultPriority };

export function knownProfiles(): string[] {
  return Object.keys(PROFILES);
}

/** The frontier priority of a profile. */
export function priorityFor(profile: string): PriorityFn {
  const fn = PROFILES[profile];
  if (!fn) throw new Error(`unknown profile ${JSON.stringify(profile)}: use one of ${knownProfiles().join(', ')}`);
  return fn;
}
