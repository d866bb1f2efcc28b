import type { Element } from 'domhandler';
import * as stopwords from 'stopword';
import { parentElement, selectEvery, textOf, type Doc } from './dom.js';
import { isDateline } from './dateline.js';
import { classSign, type PageModel } from './page-model.js';

/*
 * What the learned block model sees of each leaf block of a page once the rules have chosen the
 * content: its own shape (length, links, tag, punctuation, words), where it sits (inside the
 * rules' choice or not, its position, its neighbours), its containers' class words and furniture,
 * and the page's type from the signals the page gives (JSON-LD and Open Graph types, its share of
 * links and list items). Every feature has a name, so a model file says what it was fitted on.
 */

/** The page's type as its own markup declares it, and its shape: the same for every block of a page. */
export interface PageSignals {
  type: PageType;
  /** Share of the body's text inside links. */
  linkShare: number;
  /** Share of the body's leaf blocks that are list items. */
  listShare: number;
}

export type PageType = 'article' | 'product' | 'forum' | 'listing' | 'documentation' | 'other';

const TYPE_WORDS: Array<[PageType, RegExp]> = [
  ['product', /^(?:product|offer|aggregateoffer|productgroup|individualproduct|vehicle|book)$/],
  ['forum', /^(?:discussionforumposting|qapage|question|answer|socialmediaposting|comment)$/],
  ['listing', /^(?:itemlist|collectionpage|searchresultspage|offercatalog|productcollection)$/],
  ['documentation', /^(?:techarticle|apireference|howto|softwaresourcecode|softwareapplication)$/],
  [
    'article',
    /^(?:article|newsarticle|blogposting|reportagenewsarticle|analysisnewsarticle|opinionnewsarticle|scholarlyarticle|recipe|review|liveblogposting|report)$/,
  ],
];

/** The first type a page declares (JSON-LD `@type`s, then `og:type`) that names one of the page types. */
export function declaredType(doc: Doc): PageType {
  const words: string[] = [];
  for (const s of selectEvery(doc, 'script[type="application/ld+json"]')) {
    const text = textOf(s).slice(0, 50_000);
    for (const m of text.matchAll(/"@type"\s*:\s*(\[[^\]]*\]|"[^"]*")/g)) for (const w of m[1]!.matchAll(/"([^"]+)"/g)) words.push(w[1]!);
  }
  for (const m of selectEvery(doc, 'meta[property="og:type"]')) words.push(m.attribs.content ?? '');
  for (const w of words) {
    const word = w.toLowerCase().replace(/^.*[/:#]/, '');
    for (const [type, re] of TYPE_WORDS) if (re.test(word)) return type;
  }
  return 'other';
}

const SENTENCE_END = /[.!?。！？…]["”’»)]?$/;
const LABEL_END = /[:：»›>|]$/;
const CAPTION_TAGS = new Set(['figcaption', 'caption', 'figure', 'picture']);
const LIST_TAGS = new Set(['li', 'ul', 'ol', 'dl', 'dd', 'dt']);
const QUOTE_TAGS = new Set(['blockquote', 'q', 'cite']);
const EMPHASIS_TAGS = new Set(['strong', 'b', 'em', 'i', 'small']);
/** "Read more:", "Quelle:", "PUEDES VER:": a few words and a colon opening the block. */
const LABEL_PREFIX = /^[\p{L}\p{N} '’.-]{2,30}[:：]\s/u;
const CREDIT = /[©®℗]|\((?:foto|photo|bild|source|quelle|fuente|crédito)/iu;
const ADDRESS = /@[\w-]+\.|www\.|https?:\/\/|\+?\d[\d ()/-]{7,}\d/i;
const EXCLAIMS = /[!?¡¿]/;
const PIPES = /[|•·»›*]/;

let stopSet: Set<string> | undefined;
/** Stopwords of the languages most pages are in: a block of prose has many, a label or a byline few. */
function stopwordSet(): Set<string> {
  const lists = stopwords as unknown as Record<string, string[]>;
  stopSet ??= new Set(
    ['eng', 'deu', 'fra', 'spa', 'ita', 'por', 'nld', 'pol', 'ces', 'swe', 'dan', 'nob', 'fin', 'hun', 'ron', 'rus', 'ukr', 'tur'].flatMap(
      (l) => lists[l] ?? [],
    ),
  );
  return stopSet;
}

/** The feature names, in the order `blockFeatures` computes them. */
export const BLOCK_FEATURES = [
  'inside',
  'log-length',
  'words-under-6',
  'link-density',
  'tag-p',
  'tag-heading',
  'tag-list',
  'tag-cell',
  'tag-other',
  'in-caption',
  'in-quote',
  'all-emphasis',
  'class-boilerplate',
  'class-content',
  'furniture',
  'position',
  'first-inside',
  'last-inside',
  'distance-to-content',
  'levels-to-content',
  'before-content',
  'sentence-end',
  'label-end',
  'commas-per-100',
  'digit-share',
  'upper-share',
  'stopword-share',
  'dateline',
  'share-of-content',
  'prev-log-length',
  'next-log-length',
  'prev-link-density',
  'next-link-density',
  'label-prefix',
  'copyright-or-credit',
  'address-or-url',
  'exclaims-or-asks',
  'pipe-or-bullets',
  'page-article',
  'page-product',
  'page-forum',
  'page-listing',
  'page-documentation',
  'page-link-share',
  'page-list-share',
] as const;

const logLen = (n: number) => Math.log1p(n) / 8;

/** A leaf block as the model judges it. */
export interface JudgedBlock {
  el: Element;
  inside: boolean;
  features: number[];
}

/**
 * Features of each block (`blocks`, all the page's candidate leaf blocks in document order; `inside`,
 * those the rules chose); with `wanted`, of those blocks only (their neighbours still count).
 */
export function blockFeatures(
  model: PageModel,
  blocks: Element[],
  inside: ReadonlySet<Element>,
  page: PageSignals,
  wanted: (el: Element) => boolean = () => true,
): JudgedBlock[] {
  const stop = stopwordSet();
  const lens = blocks.map((b) => model.statsOf(b).len);
  let contentLen = 0;
  let firstIn = -1;
  let lastIn = -1;
  blocks.forEach((b, i) => {
    if (!inside.has(b)) return;
    contentLen += lens[i]!;
    if (firstIn < 0) firstIn = i;
    lastIn = i;
  });
  const lds = blocks.map((b) => model.linkDensity(b));
  // Distance in blocks to the nearest block of the content, either way.
  const distance = new Array<number>(blocks.length).fill(blocks.length);
  for (let i = 0, last = -Infinity; i < blocks.length; i++) {
    if (inside.has(blocks[i]!)) last = i;
    distance[i] = Math.min(distance[i]!, i - last);
  }
  for (let i = blocks.length - 1, next = Infinity; i >= 0; i--) {
    if (inside.has(blocks[i]!)) next = i;
    distance[i] = Math.min(distance[i]!, next - i);
  }
  // The content's roots and their ancestors: how many levels a block climbs to meet the content.
  const roots = new Set<Element>();
  for (const b of inside) for (let a: Element | null = b; a && a !== model.body && !roots.has(a); a = parentElement(a)) roots.add(a);
  const levels = (el: Element) => {
    let n = 0;
    for (let a: Element | null = el; a && a !== model.body && n < 12; a = parentElement(a), n++) if (roots.has(a)) return n;
    return 12;
  };
  const pageType = (['article', 'product', 'forum', 'listing', 'documentation'] as const).map((t) => (page.type === t ? 1 : 0));
  const judged: JudgedBlock[] = [];
  blocks.forEach((el, i) => {
    if (!wanted(el)) return;
    const text = textOf(el);
    const len = lens[i]!;
    const words = text.split(/\s+/).filter(Boolean);
    const letters = text.replace(/[^\p{L}]/gu, '');
    const upper = text.replace(/[^\p{Lu}]/gu, '').length;
    const digits = text.replace(/[^\d]/g, '').length;
    let caption = 0;
    let quote = 0;
    let bad = 0;
    let good = 0;
    for (let a: Element | null = el, depth = 0; a && a !== model.body && depth < 12; a = parentElement(a), depth++) {
      if (CAPTION_TAGS.has(a.name)) caption = 1;
      if (QUOTE_TAGS.has(a.name)) quote = 1;
      const sign = classSign(a);
      if (sign < 0) bad = 1;
      else if (sign > 0) good = 1;
    }
    const tagChildren = el.children.filter((c) => c.type === 'tag') as Element[];
    const emphasis = tagChildren.length === 1 && EMPHASIS_TAGS.has(tagChildren[0]!.name) && textOf(tagChildren[0]).length >= 0.9 * text.length ? 1 : 0;
    const heading = /^h[1-6]$/.test(el.name);
    const isIn = inside.has(el);
    const f = [
      isIn ? 1 : 0,
      logLen(len),
      words.length < 6 ? 1 : 0,
      lds[i]!,
      el.name === 'p' ? 1 : 0,
      heading ? 1 : 0,
      LIST_TAGS.has(el.name) ? 1 : 0,
      el.name === 'td' || el.name === 'th' ? 1 : 0,
      el.name !== 'p' && !heading && !LIST_TAGS.has(el.name) && el.name !== 'td' && el.name !== 'th' ? 1 : 0,
      caption,
      quote,
      emphasis,
      bad,
      good,
      model.inFurniture.has(el) || model.furniture.has(el) ? 1 : 0,
      blocks.length > 1 ? i / (blocks.length - 1) : 0,
      i === firstIn ? 1 : 0,
      lastIn >= 0 && isIn && i >= lastIn - 2 ? 1 : 0,
      Math.min(1, Math.log1p(distance[i]!) / 5),
      levels(el) / 12,
      firstIn >= 0 && i < firstIn ? 1 : 0,
      SENTENCE_END.test(text) ? 1 : 0,
      LABEL_END.test(text) ? 1 : 0,
      Math.min(5, (100 * model.statsOf(el).commas) / Math.max(1, len)),
      digits / Math.max(1, len),
      upper / Math.max(1, letters.length),
      words.length ? words.filter((w: string) => stop.has(w.toLowerCase().replace(/[^\p{L}]/gu, ''))).length / words.length : 0,
      len <= 120 && isDateline(text) ? 1 : 0,
      Math.min(2, len / Math.max(1, contentLen)),
      i > 0 ? logLen(lens[i - 1]!) : 0,
      i < blocks.length - 1 ? logLen(lens[i + 1]!) : 0,
      i > 0 ? lds[i - 1]! : 0,
      i < blocks.length - 1 ? lds[i + 1]! : 0,
      LABEL_PREFIX.test(text) ? 1 : 0,
      CREDIT.test(text) ? 1 : 0,
      ADDRESS.test(text) ? 1 : 0,
      EXCLAIMS.test(text) ? 1 : 0,
      PIPES.test(text) ? 1 : 0,
      ...pageType,
      page.linkShare,
      page.listShare,
    ];
    judged.push({ el, inside: isIn, features: f });
  });
  return judged;
}
