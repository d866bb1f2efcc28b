import { HEADING_TAGS } from './dom.js';

/**
 * Every threshold and word list of main-content extraction, in one place. The numbers were tuned on
 * the extraction corpus as a whole (see README, "Extraction quality"), never for single pages.
 */
export const CONTENT_RULES = {
  /** A block shorter than this (characters) does not vote for the container it sits in. */
  minVotingChars: 40,
  /** A `div` or `section` whose text is mostly loose (text between `<br>`s, inline elements) votes as a paragraph. */
  inlineParagraphShare: 0.5,
  /** Ancestors a paragraph's vote reaches (parent, grandparent, then divided by level × 3). */
  voteDepth: 5,
  /** Class/id weight of a content or boilerplate token on a container's score. */
  classWeight: 25,
  /** A sibling of the best container joins it when its score is at least this share of the best (and ≥ `siblingMinScore`). */
  siblingShare: 0.2,
  siblingMinScore: 10,
  /** A sibling paragraph joins when longer than this and its links are under `siblingLinkDensity` of its text. */
  siblingParagraphChars: 80,
  siblingLinkDensity: 0.25,
  /** Inside the content: a container goes when its link text is over this share (over `linkDensityHard` even with a content class). */
  linkDensity: 0.33,
  linkDensityHard: 0.5,
  /** ...unless it holds a paragraph of prose this long (few links): it is cleaned inside instead. */
  proseChars: 120,
  /** Cleaning that would keep less than this share of the content's text removes only its furniture. */
  cleanKeepShare: 0.2,
  /** Short lines under this length (characters) with any link text are navigation, not prose. */
  shortBlockChars: 70,
  /** A boilerplate class or tag does not remove an element holding more than this share of the page's text (it is a layout wrapper). */
  wrapperShare: 0.5,
  /** A boilerplate class does not remove an element whose text is mostly an article this long or longer. */
  markedArticleChars: 500,
  /** The container grows to an enclosing article (within this many levels) that adds at most this share of text: headline, lead, standfirst. */
  articleClimb: 4,
  articleExtraShare: 0.15,
  /** After the content's last good paragraph, blocks shorter than this (or link lists) are dropped. */
  tailBlockChars: 90,
  /** A link holding block elements and more text than this is an unclosed `<a>`, not a link. */
  unclosedLinkChars: 300,
  /** Paragraph classifier (jusText-style): good blocks are at least this long with link density under `classifierLinkDensity`. */
  goodBlockChars: 150,
  nearGoodBlockChars: 100,
  classifierLinkDensity: 0.25,
  /** The classifier's text replaces the container's when the container holds less than this share of it. */
  classifierOverride: 0.6,
  /** Below this many characters the container is not an article: the classifier decides. */
  minArticleChars: 200,
  /** Main text shorter than this (characters) is chosen again with nothing set aside as furniture... */
  retryChars: 1000,
  /** ...and the second choice is kept when its text is at least this many times longer. */
  retryGain: 5,
  /** In the tail, a paragraph this long stays unless over `linkDensityHard` links ("more on this at <a>…</a>"). */
  tailProseChars: 250,
  /** Good classifier blocks and lead-marked elements before the container join it when within this many levels of it. */
  precedingClimb: 4,
  /** A lead-marked element (`LEAD_TOKENS`) before the container joins it from this many characters, with links under `classifierLinkDensity`. */
  leadChars: 40,
  /** Between the headline and the content, paragraphs and subheadings (the standfirst) join it when at most this many elements apart. */
  standfirstSpan: 100,
  /** A line of at most this many characters that is a date with at most `datelineWords` other words is dropped. */
  datelineChars: 80,
  datelineWords: 3,
  /** An appeal to the reader (subscribe, support us, copyright) up to this long is dropped from the content. */
  appealChars: 200,
  /** An inline element of a paragraph with at least this much text beside it is part of the sentence, never furniture. */
  sentenceRestChars: 40,
  /** A "read also" line (a lead-in, then a link) up to this long is dropped from the content. */
  readAlsoChars: 150,
  /** A block of the content at least this long whose text came before is dropped (the article served twice). */
  repeatChars: 60,
  /** A `<noscript>` whose paragraphs sit deeper than its children is read as content from this many characters of text. */
  noscriptProseChars: 500,
} as const;

export type ContentRuleName = keyof typeof CONTENT_RULES;

/**
 * Runs `work` with some of the rules set otherwise, then puts them back: bench:extract chooses the
 * rules per fold of its cross-validation with it. Extraction is synchronous, so no other page sees
 * the change; the product never calls it.
 */
export function withContentRules<T>(changes: Partial<Record<ContentRuleName, number>>, work: () => T): T {
  const saved = { ...CONTENT_RULES };
  Object.assign(CONTENT_RULES, changes);
  try {
    return work();
  } finally {
    Object.assign(CONTENT_RULES, saved);
  }
}

/** Class and id tokens of a lead, standfirst or abstract: the article's first lines, often outside its body container. */
export const LEAD_TOKENS = new Set([
  'lead',
  'leadin',
  'intro',
  'introduction',
  'standfirst',
  'summary',
  'abstract',
  'chapo',
  'teaser',
  'subtitle',
  'subheadline',
  'excerpt',
  'dek',
  'deck',
  'subhead',
  'description',
  'strapline',
  'sapo',
]);

/** Tags whose content is never page text. */
export const NEVER_CONTENT = new Set([
  'script',
  'style',
  'noscript',
  'template',
  'svg',
  'math',
  'iframe',
  'object',
  'embed',
  'canvas',
  'button',
  'input',
  'select',
  'textarea',
  'option',
  'optgroup',
  'datalist',
  'label',
  'head',
  'link',
  'dialog',
  'audio',
  'video',
  'source',
  'track',
  'map',
  'area',
]);

/** Tags that hold page furniture rather than the article. */
export const BOILERPLATE_TAGS = new Set(['nav', 'aside', 'footer', 'menu', 'figcaption']);

/** ARIA roles of page furniture. */
export const BOILERPLATE_ROLES = new Set([
  'navigation',
  'banner',
  'contentinfo',
  'complementary',
  'search',
  'menu',
  'menubar',
  'dialog',
  'alertdialog',
  'toolbar',
  'tablist',
]);

/**
 * Class and id tokens (split on non-letters and camelCase, lower-cased) of boilerplate: comments,
 * sharing, related articles, cookie and consent notes, newsletters, navigation, advertising.
 */
export const BOILERPLATE_TOKENS = new Set([
  'comment',
  'comments',
  'commentlist',
  'commentform',
  'disqus',
  'respond',
  'replies',
  'reply',
  'share',
  'shares',
  'sharing',
  'sharebar',
  'shariff',
  'sharethis',
  'addthis',
  'social',
  'socials',
  'sociallinks',
  'sociable',
  'related',
  'relatedposts',
  'recommended',
  'recommendations',
  'recommendation',
  'popular',
  'trending',
  'mostread',
  'mostpopular',
  'newsletter',
  'subscribe',
  'subscription',
  'signup',
  'cookie',
  'cookies',
  'consent',
  'gdpr',
  'breadcrumb',
  'breadcrumbs',
  'pagination',
  'pager',
  'sidebar',
  'advert',
  'advertisement',
  'adverts',
  'ads',
  'ad',
  'adsbygoogle',
  'sponsor',
  'sponsored',
  'promo',
  'promotion',
  'popup',
  'modal',
  'overlay',
  'nav',
  'navbar',
  'navigation',
  'menu',
  'submenu',
  'footer',
  'masthead',
  'toolbar',
  'tagcloud',
  'taglist',
  'tags',
  'outbrain',
  'taboola',
  'plista',
  'skip',
  'sronly',
  'print',
  'rating',
  'login',
  'adv',
  'author',
  'authors',
  'bio',
  'donation',
  'donate',
  'cta',
  'copyright',
  'credits',
  'nextstory',
  'nextpost',
  'postnav',
  'postmetadata',
  'utility',
  'caption',
  'credit',
  'byline',
  'dateline',
  'posted',
  'published',
  'updated',
  'pubdate',
  'licence',
  'license',
  'legal',
  'disclaimer',
]);

/** Class and id words that begin like boilerplate ("sharedaddy", "commentlist", "socialmedia", "relatedarticles"). */
export const BOILERPLATE_STEMS = /^(share|social|comment|related|newsletter|cookie|breadcrumb|sidebar|advert|sponsor|subscri|consent)/;

/** Class and id tokens of article containers; the strong ones also outweigh a boilerplate word on the same element ("entry share"). */
export const CONTENT_TOKENS = new Set(['post', 'text', 'body', 'blog', 'hentry', 'prose', 'main']);
export const STRONG_CONTENT_TOKENS = new Set([
  'article',
  'articlebody',
  'content',
  'entry',
  'entrycontent',
  'maincontent',
  'postcontent',
  'postbody',
  'story',
  'storybody',
]);

/** Block-level tags: text on either side of one is never run together. */
export const BLOCK_TAGS = new Set([
  'address',
  'article',
  'aside',
  'blockquote',
  'body',
  'br',
  'caption',
  'center',
  'dd',
  'details',
  'dialog',
  'div',
  'dl',
  'dt',
  'fieldset',
  'figcaption',
  'figure',
  'footer',
  'form',
  ...HEADING_TAGS,
  'header',
  'hr',
  'html',
  'li',
  'main',
  'nav',
  'ol',
  'p',
  'pre',
  'section',
  'summary',
  'table',
  'tbody',
  'td',
  'tfoot',
  'th',
  'thead',
  'tr',
  'ul',
]);

/** Tags whose text votes for its container (and `div`s without block children). */
export const PARAGRAPH_TAGS = new Set(['p', 'pre', 'td', 'blockquote', 'dd', 'li', 'h2', 'h3', 'h4']);

/** Base score of a container by tag, before its paragraphs vote. */
export const TAG_BASE_SCORE: Record<string, number> = {
  div: 5,
  article: 10,
  main: 8,
  section: 3,
  pre: 3,
  td: 3,
  blockquote: 3,
  address: -3,
  ol: -3,
  ul: -3,
  dl: -3,
  dd: -3,
  dt: -3,
  li: -3,
  form: -3,
  h1: -5,
  h2: -5,
  h3: -5,
  h4: -5,
  h5: -5,
  h6: -5,
  th: -5,
};
