/**
 * How much a page reads as a listing (a home page, an archive, a tag or category page, a search
 * result page) rather than as content, from its markdown: the share of its blocks (headings,
 * list items, paragraphs) that begin with a link. A listing is made of items each led by the link
 * to what it lists ("## [Title](…)", "- [Title](…)", "[Read more](…)"); an article's blocks are
 * prose, headings and items that at most hold a link somewhere inside.
 */
const LINK_LED = /^(?:#{1,6}\s+|[-*+]\s+|\d+[.)]\s+|>\s*)*(?:\*\*|__|\*|_)?!?\[(?:[^\]]|\](?!\())*\]\([^)]*\)/;
const MARKUP = /!?\[((?:[^\]]|\](?!\())*)\]\([^)]*\)|[#>*_`|-]+/g;

export interface ListingFeatures {
  blocks: number;
  linkLed: number;
  /** Distinct link targets. */
  targets: number;
  words: number;
}

export function listingFeatures(markdown: string): ListingFeatures {
  let blocks = 0;
  let linkLed = 0;
  let words = 0;
  const targets = new Set<string>();
  for (const m of markdown.matchAll(/\]\(([^)\s]+)[^)]*\)/g)) targets.add(m[1]!);
  for (const raw of markdown.split('\n')) {
    const line = raw.trim();
    if (!line) continue;
    const text = line.replace(MARKUP, '$1').trim();
    if (!text) continue;
    blocks++;
    words += text.split(/\s+/).length;
    if (LINK_LED.test(line)) linkLed++;
  }
  return { blocks, linkLed, targets: targets.size, words };
}

/** Blocks that begin with a link, as a share of the page's blocks (0 for a page of fewer than `MIN_BLOCKS`). */
export function listingShare(markdown: string): number {
  const f = listingFeatures(markdown);
  return f.blocks < LISTING_RULES.minBlocks || f.linkLed < LISTING_RULES.minItems ? 0 : f.linkLed / f.blocks;
}

export const LISTING_RULES = {
  /** A page of fewer blocks is not judged. */
  minBlocks: 4,
  /** …nor one with fewer link-led blocks than this. */
  minItems: 2,
};
