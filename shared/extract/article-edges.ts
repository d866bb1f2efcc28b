import type { Element } from 'domhandler';
import { contains, parentElement, textOf } from './dom.js';
import { CONTENT_RULES as R, LEAD_TOKENS } from './content-rules.js';
import { isDateline } from './dateline.js';
import { classTokens, type PageModel } from './page-model.js';

/*
 * What belongs to an article but sits outside its body container: the lead or abstract just before
 * it, and the headline with its standfirst above it.
 */

function leadMarked(el: Element): boolean {
  return classTokens(el).some((t) => LEAD_TOKENS.has(t));
}

/**
 * The container with what precedes it inside the same part of the page (within `precedingClimb`
 * levels): the classifier's good blocks, and lead-marked elements with few links. In document order.
 */
export function withLead(model: PageModel, container: Element[], good: Element[]): Element[] {
  const start = model.indexOf(container[0]!);
  let scope: Element = container[0]!;
  for (let i = 0; i < R.precedingClimb; i++) {
    const p = parentElement(scope);
    if (!p || p === model.body) break;
    scope = p;
  }
  const taken = (el: Element, extra: Element[]) => container.some((c) => contains(c, el)) || extra.some((e) => contains(e, el) || contains(el, e));
  const usable = (el: Element) => model.indexOf(el) < start && contains(scope, el) && !model.inFurniture.has(el) && !model.furniture.has(el);
  const extra: Element[] = [];
  for (const el of good) if (usable(el) && !taken(el, extra)) extra.push(el);
  for (const el of model.elements) {
    if (model.indexOf(el) >= start) break;
    if (!usable(el) || !leadMarked(el) || taken(el, extra)) continue;
    if (model.statsOf(el).len >= R.leadChars && model.linkDensity(el) <= R.classifierLinkDensity) extra.push(el);
  }
  if (!extra.length) return container;
  return [...container, ...extra].sort((a, b) => model.indexOf(a) - model.indexOf(b));
}

/**
 * The page's headline when it sits before the content (outside it), and the standfirst between the
 * headline and the content (paragraphs, subheadings, lead-marked elements with few links, no
 * datelines): the article reads whole with them. A headline the content already starts with gets its standfirst too.
 */
export function withHeadline(model: PageModel, nodes: Element[]): Element[] {
  const h1 = model.elements.find((el) => el.name === 'h1' && !model.inFurniture.has(el) && !model.furniture.has(el));
  if (!h1 || model.statsOf(h1).len === 0 || model.linkDensity(h1) > 0.5) return nodes;
  const at = nodes.indexOf(h1);
  const next = at >= 0 ? nodes[at + 1] : nodes[0];
  if (!next) return nodes;
  if (at < 0 && (model.indexOf(h1) >= model.indexOf(next) || nodes.some((n) => contains(n, h1)))) return nodes;
  const from = model.indexOf(h1);
  const to = model.indexOf(next);
  const standfirst: Element[] = [];
  if (to - from <= R.standfirstSpan) {
    for (let i = from + 1; i < to; i++) {
      const el = model.elements[i]!;
      if (el.name !== 'p' && el.name !== 'h2' && !leadMarked(el)) continue;
      if (model.inFurniture.has(el) || standfirst.some((b) => contains(b, el))) continue;
      if (model.statsOf(el).len < R.leadChars || model.linkDensity(el) > R.classifierLinkDensity || isDateline(textOf(el))) continue;
      standfirst.push(el);
    }
  }
  return at >= 0 ? [...nodes.slice(0, at + 1), ...standfirst, ...nodes.slice(at + 1)] : [h1, ...standfirst, ...nodes];
}
