// The chosen content's blocks, tidied: its leaf blocks, the tail an article ends with, date lines,
// paragraphs written twice, nodes another holds.
import { type Element, isTag } from 'domhandler';
import { removeElement } from 'domutils';
import { contains, parentElement, textOf } from './dom.js';
import { CONTENT_RULES as R } from './content-rules.js';
import { isDateline } from './dateline.js';
import type { PageModel } from './page-model.js';

export const HEADING = /^h[1-6]$/;
/** Prose is judged by its container, never removed for its own links. */
export const PROSE_TAGS = new Set(['p', 'pre', 'blockquote']);
/** Lines an article's tail keeps however short: list items, cells, code. */
const TAIL_KEEP = new Set(['li', 'td', 'th', 'pre', 'code', 'dd']);
/** A table's cells: never removed one by one (the row's columns would shift). */
export const CELLS = new Set(['td', 'th']);
/** Tables and code an article ends with: the subheading before them stays. */
const STRUCTURED = new Set(['td', 'th', 'pre', 'code']);

/** Leaf blocks (no block-level children) under the given nodes, in document order. */
export function leafBlocks(model: PageModel, nodes: Element[]): Element[] {
  const out: Element[] = [];
  const visit = (el: Element) => {
    const s = model.statsOf(el);
    if (s.len === 0) return;
    if (!s.blocks || el.name === 'p' || el.name === 'pre' || HEADING.test(el.name)) {
      out.push(el);
      return;
    }
    for (const c of el.children) if (isTag(c)) visit(c);
  };
  for (const n of nodes) visit(n);
  return out;
}

/** After the last long paragraph, an article ends: short lines and link lists there are its furniture ("Share", "Read more:", tags). */
export function trimTail(model: PageModel, blocks: Element[]): void {
  let last = -1;
  blocks.forEach((b, i) => {
    if (model.statsOf(b).len >= R.goodBlockChars && model.linkDensity(b) < R.classifierLinkDensity) last = i;
  });
  if (last < 0) return;
  // From the end, so a subheading stays when a table or code it introduces stays.
  let keptAfter = false;
  for (const b of blocks.slice(last + 1).reverse()) {
    const ld = model.linkDensity(b);
    const len = model.statsOf(b).len;
    let drop: boolean;
    if (ld > R.classifierLinkDensity) drop = !(PROSE_TAGS.has(b.name) && len >= R.tailProseChars && ld <= R.linkDensityHard);
    else if (HEADING.test(b.name)) drop = !keptAfter;
    else drop = len < R.tailBlockChars && !TAIL_KEEP.has(b.name) && !/[.!。]["”’)]?$/.test(textOf(b));
    if (drop) removeElement(b);
    else if (STRUCTURED.has(b.name)) keptAfter = true;
  }
}

/**
 * Blocks whose text the content holds twice: the same article served twice on one page (a copy in
 * `<noscript>`, a print or mobile copy), a teaser repeating the lead, a pull quote. Of each set of
 * copies the one in the most text stays (the article's own, not a teaser's); short lines (table
 * cells, "Yes", list items) may repeat. Returns the blocks that stay.
 */
export function dropRepeats(model: PageModel, blocks: Element[]): Element[] {
  const copies = new Map<string, Element[]>();
  for (const b of blocks) {
    if (model.statsOf(b).len < R.repeatChars) continue;
    const key = textOf(b).replace(/\s+/g, ' ').trim();
    copies.set(key, [...(copies.get(key) ?? []), b]);
  }
  const dropped = new Set<Element>();
  const around = (b: Element) => {
    const parent = parentElement(b);
    return parent ? model.statsOf(parent).len : 0;
  };
  for (const same of copies.values()) {
    if (same.length < 2) continue;
    const keep = same.reduce((best, b) => (around(b) > around(best) ? b : best));
    for (const b of same) if (b !== keep) dropped.add(b);
  }
  for (const b of dropped) removeElement(b);
  return blocks.filter((b) => !dropped.has(b));
}

/** Date lines ("Published 4 May 2021, 17:13") anywhere in the content. */
export function dropDatelines(model: PageModel, blocks: Element[]): void {
  // A table's cell is its data (a departure time, a date column), and removing one shifts its row.
  for (const b of blocks) if (!CELLS.has(b.name) && model.statsOf(b).len <= R.datelineChars && isDateline(textOf(b))) removeElement(b);
}

/**
 * The nodes without those another of them holds: a lead-marked box around the intro and the body
 * is taken whole, and what it holds is not written twice.
 */
export function outermost(nodes: Element[]): Element[] {
  return nodes.filter((n) => !nodes.some((other) => other !== n && contains(other, n)));
}

/** The lead-in of a "read also" line, in the languages trawl's corpora hold, before a colon or a link. */
const READ_ALSO =
  /^(?:read (?:more|also|next)|also read|see also|related(?: articles?| stories| posts?)?|more on this|lire aussi|à lire aussi|a lire aussi|voir aussi|lesen sie (?:auch|mehr)|mehr zum thema|auch interessant|das könnte sie auch interessieren|leer más|lee también|te puede interesar|leia também|leggi anche|czytaj (?:także|też|również)|přečtěte si také)\b\s*[:：»›>-]?/i;

/**
 * "Read also: <a link>" lines inside an article: a lead-in to another page, short, its rest a link.
 * Returns the blocks that stay.
 */
export function dropReadAlso(model: PageModel, blocks: Element[]): Element[] {
  return blocks.filter((b) => {
    const s = model.statsOf(b);
    if (s.len > R.readAlsoChars || s.links === 0) return true;
    const text = textOf(b).replace(/\s+/g, ' ').trim();
    const lead = READ_ALSO.exec(text);
    // The lead-in, then (mostly) link text: a line that goes on in prose is the article's, and a
    // bare "Read more" (a teaser's way on, as a listing has them) is no "read also" line.
    const rest = lead ? text.length - lead[0].length : 0;
    if (!lead || rest < 3 || s.links < 0.5 * rest) return true;
    removeElement(b);
    return false;
  });
}

/** What an appeal to the reader says: subscribe, support us, the newsletter, the copyright line. */
const APPEAL =
  /\b(?:subscribe (?:to|now|for|today)|please subscribe|already a subscriber|become a (?:member|subscriber|patron)|sign up (?:for|to) (?:our|the) newsletter|(?:receive|get|join) our (?:\w+ )?newsletter|copyrighted property|all rights reserved|permission must be obtained|we rely on (?:your|readers)|support (?:our|local|independent) (?:journalism|news|reporting)|hazte miembro|suscr[íi]bete|abonnez-vous|jetzt abonnieren|unterstützen sie (?:uns|unseren|unsere))/i;

/** A page's word that it needs scripts ("This site requires JavaScript", "Please enable JavaScript"): about the browser, never the article. */
const NEEDS_SCRIPT =
  /\b(?:(?:please )?(?:enable|turn on|activate|allow) (?:your )?javascript|javascript (?:is |must be |to be )?(?:disabled|required|enabled|turned off|switched off|not (?:enabled|supported))|requires? javascript|needs? javascript|without javascript|aktivieren sie javascript|javascript aktivieren|activez (?:le )?javascript|(?:habilita|activa) (?:el )?javascript)\b/i;

/** A line of share buttons run together ("ShareTweet", "Share Tweet Email"): only the buttons' words. */
const SHARE_BUTTONS =
  /^(?:share|tweet|post|email|e-mail|mail|print|pin|pin it|save|copy|copy link|link|facebook|twitter|x|linkedin|whatsapp|reddit|telegram|flipboard|threads|bluesky|messenger|sms)+$/i;

function isShareButtons(text: string): boolean {
  const letters = text.replace(/[\s|•·,/:]+/g, ' ').trim();
  if (!letters || letters.length > 80) return false;
  return letters.split(' ').every((w) => SHARE_BUTTONS.test(w));
}

/** A short line the rules never keep: a date line, an appeal, a word that the page needs scripts, share buttons' text. */
export function isFurnitureLine(text: string): boolean {
  if (text.length > R.appealChars) return false;
  return (text.length <= R.datelineChars && isDateline(text)) || APPEAL.test(text) || NEEDS_SCRIPT.test(text) || isShareButtons(text);
}

/**
 * Short appeals to the reader inside an article (subscribe, support us, copyright), a word that the
 * page needs scripts, and share buttons' text. Returns the blocks that stay.
 */
export function dropAppeals(model: PageModel, blocks: Element[]): Element[] {
  return blocks.filter((b) => {
    if (model.statsOf(b).len > R.appealChars || HEADING.test(b.name)) return true;
    const text = textOf(b);
    if (!APPEAL.test(text) && !NEEDS_SCRIPT.test(text) && !isShareButtons(text)) return true;
    removeElement(b);
    return false;
  });
}
