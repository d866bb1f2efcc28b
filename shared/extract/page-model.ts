import { type AnyNode, type Element, isTag, isText } from 'domhandler';
import { keepChildren, rawText, selectFirst } from './dom.js';
import {
  BLOCK_TAGS,
  BOILERPLATE_ROLES,
  BOILERPLATE_TAGS,
  BOILERPLATE_STEMS,
  BOILERPLATE_TOKENS,
  CONTENT_RULES as R,
  CONTENT_TOKENS,
  STRONG_CONTENT_TOKENS,
  NEVER_CONTENT,
} from './content-rules.js';

/*
 * The page model behind main-content extraction: what is never text, which elements are page
 * furniture (by tag, role or class words), and the text, link text and commas of every element.
 */

/** What the model knows of each element, measured in one pass. */
export interface Stats {
  /** Whitespace-collapsed text length. */
  len: number;
  /** Text length inside links. */
  links: number;
  commas: number;
  paragraphs: number;
  inputs: number;
  /** Has a block-level child element. */
  blocks: boolean;
  /** Text length of the largest article-marked element inside (an `<article>`, `itemprop=articleBody`, a strong content class). */
  marked: number;
  /** Length of the longest paragraph inside with few links. */
  prose: number;
  /** Text length outside block-level children: loose text and inline elements (text between `<br>`s). */
  inline: number;
}

/** Inline elements a sentence may hold. */
const INLINE_TAGS = new Set(['span', 'strong', 'b', 'em', 'i', 'small', 'time', 'abbr', 'mark', 'u']);

const emptyStats = (): Stats => ({ len: 0, links: 0, commas: 0, paragraphs: 0, inputs: 0, blocks: false, marked: 0, prose: 0, inline: 0 });
const COMMAS = /[,，、،]/g;
const STATE_CLASS = /^(tag|category|categories|has|with|no|is|hide|show|js|lang|format|type|status|post-format|wp-block)[-_]/;

/**
 * Class words and signs by the id and class text they come from: a page repeats its class names
 * over many elements, and the model, the scorer and the edge rules ask for each element's many
 * times. Keyed by text, not element (a WeakMap of every element cost the garbage collector more
 * than it saved); emptied past a bound.
 */
const namesSeen = new Map<string, { tokens: readonly string[]; sign?: number }>();
const NAMES_KEPT = 5_000;

function namesOf(el: Element): { tokens: readonly string[]; sign?: number } {
  const raw = `${el.attribs.id ?? ''} ${el.attribs.class ?? ''}`.slice(0, 400);
  let names = namesSeen.get(raw);
  if (!names) {
    if (namesSeen.size >= NAMES_KEPT) namesSeen.clear();
    namesSeen.set(raw, (names = { tokens: tokensOf(raw) }));
  }
  return names;
}

/** Lower-cased class and id words, plus each class name glued together ("related-posts" → related, posts, relatedposts). */
export function classTokens(el: Element): readonly string[] {
  return namesOf(el).tokens;
}

function tokensOf(raw: string): string[] {
  if (raw.length < 3) return [];
  const out: string[] = [];
  for (const name of raw.split(/\s+/)) {
    if (!name || STATE_CLASS.test(name.toLowerCase())) continue;
    const words = name
      .replace(/([a-z])([A-Z])/g, '$1 $2')
      .toLowerCase()
      .split(/[^a-z0-9]+/)
      .filter(Boolean);
    out.push(...words);
    if (words.length > 1) out.push(words.join(''));
  }
  return out;
}

/**
 * +1 for a content class, −1 for a boilerplate class; 0 for neither, or for a boilerplate word beside a
 * strong content word ("comment-content", "entry share"): a weak one ("post-footer") does not outweigh it.
 */
export function classSign(el: Element): number {
  const names = namesOf(el);
  names.sign ??= signOf(names.tokens);
  return names.sign;
}

function signOf(tokens: readonly string[]): number {
  let bad = false;
  let good = false;
  let strong = false;
  for (const t of tokens) {
    if (BOILERPLATE_TOKENS.has(t) || BOILERPLATE_STEMS.test(t)) bad = true;
    else if (STRONG_CONTENT_TOKENS.has(t)) strong = good = true;
    else if (CONTENT_TOKENS.has(t)) good = true;
  }
  if (bad) return strong ? 0 : -1;
  return good ? 1 : 0;
}

/** An element that says it is the article: `<article>` without a boilerplate class, `itemprop=articleBody`, or a strong content class. */
export function articleMarked(el: Element): boolean {
  if (el.attribs.itemprop === 'articleBody') return true;
  const sign = classSign(el);
  if (el.name === 'article') return sign >= 0;
  return sign > 0 && classTokens(el).some((t) => STRONG_CONTENT_TOKENS.has(t));
}

function isHidden(el: Element): boolean {
  const a = el.attribs;
  if (a.hidden !== undefined || a['aria-hidden'] === 'true' || a.type === 'hidden') return true;
  const style = a.style;
  return style !== undefined && /(display\s*:\s*none|visibility\s*:\s*hidden)/i.test(style);
}

/** A `<noscript>` that holds the page's text: paragraphs of its own, or paragraphs and prose enough further down. */
function noscriptArticle(el: Element): boolean {
  if (el.children.some((c) => isTag(c) && c.name === 'p')) return true;
  return selectFirst(el, 'p') !== null && rawText(el).replace(/\s+/g, ' ').length >= R.noscriptProseChars;
}

/** Removes what is never text (scripts, styles, forms controls, hidden elements, comments) in place. */
export function pruneNeverContent(node: AnyNode & { children: AnyNode[] }): void {
  const kept: AnyNode[] = [];
  for (const child of node.children) {
    if (isText(child)) kept.push(child);
    else if (isTag(child)) {
      // Some publishers put the whole article inside <noscript> (the script-built copy is elsewhere),
      // and forums the whole thread (Discourse's view for readers without scripts).
      const article = child.name === 'noscript' && noscriptArticle(child);
      if ((NEVER_CONTENT.has(child.name) && !article) || isHidden(child)) continue;
      if (article) child.name = 'div';
      pruneNeverContent(child);
      kept.push(child);
    }
  }
  keepChildren(node, kept);
}

/**
 * An `<a>` that holds block elements and hundreds of characters is an unclosed link swallowing the
 * paragraphs after it (`<a href=x>link<p>…`), not a link: its text counts as text. Cards (a block
 * link around a teaser) are shorter and hold at most one paragraph.
 */
function unclosedLink(a: Element): boolean {
  const blocks = a.children.filter((c): c is Element => isTag(c) && BLOCK_TAGS.has(c.name));
  if (!blocks.length) return false;
  return blocks.filter((c) => c.name === 'p').length >= 2 || rawText(a).replace(/\s+/g, ' ').length > R.unclosedLinkChars;
}

/** A page's body measured once: text, link text and commas per element, and which elements are furniture. */
export class PageModel {
  readonly stats = new Map<Element, Stats>();
  readonly elements: Element[] = [];
  readonly furniture = new Set<Element>();
  readonly inFurniture = new Set<Element>();
  readonly bodyLen: number;
  private order?: Map<Element, number>;

  constructor(
    readonly body: Element,
    private readonly enabled = true,
  ) {
    this.bodyLen = this.measure(body, false).len;
    this.markFurniture(body, false);
  }

  private measure(el: Element, inLink: boolean): Stats {
    const s = emptyStats();
    const link = inLink || (el.name === 'a' && !unclosedLink(el));
    for (const child of el.children) {
      if (isText(child)) {
        const t = child.data;
        if (!/\S/.test(t)) continue;
        const n = t.replace(/\s+/g, ' ').length;
        s.len += n;
        s.inline += n;
        if (link) s.links += n;
        s.commas += t.match(COMMAS)?.length ?? 0;
      } else if (isTag(child)) {
        this.elements.push(child);
        const c = this.measure(child, link);
        s.len += c.len;
        s.links += c.links;
        s.commas += c.commas;
        s.paragraphs += c.paragraphs + (child.name === 'p' ? 1 : 0);
        s.inputs += c.inputs;
        s.marked = Math.max(s.marked, c.marked);
        s.prose = Math.max(s.prose, c.prose);
        if (BLOCK_TAGS.has(child.name) && child.name !== 'br' && child.name !== 'hr') s.blocks = true;
        else s.inline += c.len;
      }
    }
    if (articleMarked(el)) s.marked = s.len;
    if (el.name === 'p' && s.links < 0.2 * s.len) s.prose = Math.max(s.prose, s.len);
    this.stats.set(el, s);
    return s;
  }

  statsOf(el: Element): Stats {
    return this.stats.get(el) ?? emptyStats();
  }

  /** Document-order position of an element in the body (elements after the body's own are unknown: Infinity). */
  indexOf(el: Element): number {
    this.order ??= new Map(this.elements.map((e, i) => [e, i]));
    return this.order.get(el) ?? Infinity;
  }

  linkDensity(el: Element): number {
    const s = this.statsOf(el);
    return s.len ? s.links / s.len : 0;
  }

  /**
   * Page furniture by tag, role or class, unless it wraps most of the page (a layout wrapper) or, for
   * a class, most of its text is a marked article ("theiaStickySidebar" around the post).
   */
  /**
   * An inline element that a paragraph's sentence runs on from ("<span class=dateline>KOBE –</span>
   * The port city…"): the sentence's, whatever its class says.
   */
  private inSentence(parent: Element, child: Element): boolean {
    if (parent.name !== 'p' || !INLINE_TAGS.has(child.name)) return false;
    return this.statsOf(parent).len - this.statsOf(child).len >= R.sentenceRestChars;
  }

  private isFurniture(el: Element): boolean {
    if (!this.enabled) return false;
    const s = this.statsOf(el);
    if (s.len > R.wrapperShare * this.bodyLen) return false;
    const role = el.attribs.role?.toLowerCase();
    if (BOILERPLATE_TAGS.has(el.name) || (role !== undefined && BOILERPLATE_ROLES.has(role))) return true;
    if (el.name === 'header' && !selectFirst(el, 'h1')) return true;
    return classSign(el) < 0 && s.marked < Math.max(R.markedArticleChars, R.wrapperShare * s.len);
  }

  private markFurniture(el: Element, inside: boolean): void {
    for (const child of el.children) {
      if (!isTag(child)) continue;
      let within = inside;
      if (this.isFurniture(child) && !this.inSentence(el, child)) {
        this.furniture.add(child);
        within = true;
      }
      if (within) this.inFurniture.add(child);
      this.markFurniture(child, within);
    }
  }
}
