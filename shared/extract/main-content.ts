import { type AnyNode, type Element, isTag, isText } from 'domhandler';
import { contains, keepChildren, parentElement, selectFirst, textOf, type Doc } from './dom.js';
import { BLOCK_TAGS, CONTENT_RULES as R, NEVER_CONTENT, PARAGRAPH_TAGS, TAG_BASE_SCORE } from './content-rules.js';
import { articleMarked, classSign, PageModel, pruneNeverContent } from './page-model.js';
import { withHeadline, withLead } from './article-edges.js';
import { dropAppeals, dropDatelines, dropReadAlso, dropRepeats, HEADING, leafBlocks, outermost, PROSE_TAGS, trimTail } from './content-blocks.js';
import { applyBlockModel } from './block-model.js';
import { declaredType, type JudgedBlock, type PageType } from './block-features.js';
import { activeScopeModel, regionNodes, regionStats, regionWins, scopeFeatures, textStats } from './page-scope.js';

export { classTokens } from './page-model.js';

/**
 * How the main content was chosen: the best-scored container (paragraphs vote for their ancestors,
 * like Readability), the paragraph classifier (every block judged on its own length, link density and
 * furniture, then smoothed by its neighbours, like jusText) when the container misses most of the
 * good text, `relaxed` when a short first choice was made again with nothing set aside as furniture
 * (see `mainContentText`), `body` (the body without furniture) for a page without prose, `region`
 * when the learned scope model judged the page no article and took its whole main region (see
 * `page-scope.ts`), `none` for a page without a body.
 */
export type ContentMethod = 'container' | 'classifier' | 'relaxed' | 'body' | 'region' | 'full' | 'none';

/** What counts as the main content: the page's article, or all of its readable content (`--main-content`). */
export type MainContentScope = 'article' | 'full';

/** The content's blocks once the rules are done, as bench:extract's block-classifier experiment sees them. */
export interface ContentBlocks {
  model: PageModel;
  /** The content's roots. */
  nodes: Element[];
  /** Its leaf blocks in document order, headings included. */
  blocks: Element[];
}

export interface ContentOptions {
  scope?: MainContentScope;
  /** Sees the content's blocks once the rules are done (bench:extract's block-classifier experiment). */
  onBlocks?: (content: ContentBlocks) => void;
  /** Nothing is set aside as furniture (tags, roles, classes) before the content is chosen: the retry of `mainContentText`. */
  relaxed?: boolean;
  /** Sees every candidate block the learned model judges, with its features (`npm run train:extract`). */
  onJudged?: (blocks: JudgedBlock[]) => void;
  /** The page's declared type, when the caller has read it already (it is read before the tree is pruned). */
  pageType?: PageType;
  /** Sees the scope model's features of the page and the rules' text (`npm run train:extract`). */
  onScope?: (features: number[], rulesText: string) => void;
}

/** The main content of a page as nodes in document order (the tree is pruned in place). */
export interface MainNodes {
  nodes: AnyNode[];
  method: ContentMethod;
}

/** Paragraphs vote for their ancestors; the best container, its parent when that holds several strong candidates, and the siblings that belong with it. */
function bestContainer(model: PageModel): Element[] | undefined {
  const scores = new Map<Element, number>();
  const initial = (el: Element) => (TAG_BASE_SCORE[el.name] ?? 0) + classSign(el) * R.classWeight + (el.attribs.itemprop === 'articleBody' ? R.classWeight : 0);
  for (const el of model.elements) {
    if (model.inFurniture.has(el)) continue;
    const s = model.statsOf(el);
    const paragraph =
      PARAGRAPH_TAGS.has(el.name) || ((el.name === 'div' || el.name === 'section') && (!s.blocks || s.inline >= R.inlineParagraphShare * s.len));
    if (!paragraph || s.len < R.minVotingChars || s.links > 0.5 * s.len) continue;
    const vote = 1 + s.commas + Math.min(Math.floor(s.len / 100), 3);
    let level = 0;
    for (let a = parentElement(el); a && level < R.voteDepth; a = parentElement(a), level++) {
      if (a.name === 'html') break;
      if (!scores.has(a)) scores.set(a, initial(a));
      scores.set(a, scores.get(a)! + vote / (level === 0 ? 1 : level === 1 ? 2 : level * 3));
    }
  }
  const final = new Map<Element, number>();
  for (const [el, score] of scores) if (!model.inFurniture.has(el) && !model.furniture.has(el)) final.set(el, score * (1 - model.linkDensity(el)));
  const ranked = [...final].sort((a, b) => b[1] - a[1]);
  if (!ranked[0]) return undefined;
  let [top, topScore] = ranked[0];

  // Several strong candidates under one ancestor: the article is split across them.
  const strong = ranked.slice(1, 6).filter(([, s]) => s >= 0.75 * topScore);
  if (strong.length >= 2) {
    for (let a = parentElement(top); a && a !== model.body; a = parentElement(a)) {
      const holds = strong.filter(([el]) => contains(a, el)).length;
      if (holds >= 2) {
        top = a;
        topScore = final.get(a) ?? topScore;
        break;
      }
    }
  }
  // Climb while the parent scores better, or is only a wrapper around the candidate.
  let last = topScore;
  for (let p = parentElement(top); p && p !== model.body; p = parentElement(p)) {
    const ps = final.get(p);
    if (ps === undefined) {
      if (model.statsOf(p).len === model.statsOf(top).len) top = p;
      continue;
    }
    if (ps < topScore / 3) break;
    if (ps > last) {
      top = p;
      topScore = ps;
      break;
    }
    last = ps;
  }
  while (top.parent && top.parent !== model.body && isTag(top.parent) && model.statsOf(top.parent).len === model.statsOf(top).len) top = top.parent;
  // The body text's own article (with its headline, lead and standfirst) when it adds little else.
  let level = 0;
  for (let a = parentElement(top); a && a !== model.body && level < R.articleClimb; a = parentElement(a), level++) {
    if (model.furniture.has(a) || model.inFurniture.has(a)) break;
    if (!articleMarked(a)) continue;
    const extra = model.statsOf(a).len - model.statsOf(top).len;
    if (extra <= R.articleExtraShare * model.statsOf(top).len && model.linkDensity(a) < R.linkDensity) top = a;
    break;
  }

  const parent = parentElement(top);
  if (!parent) return [top];
  const threshold = Math.max(R.siblingMinScore, topScore * R.siblingShare);
  const picked: Element[] = [];
  for (const sib of parent.children) {
    if (!isTag(sib)) continue;
    if (sib === top) {
      picked.push(sib);
      continue;
    }
    if (model.furniture.has(sib)) continue;
    const score = final.get(sib) ?? 0;
    const bonus = sib.attribs.class && sib.attribs.class === top.attribs.class ? topScore * 0.2 : 0;
    const s = model.statsOf(sib);
    const ld = model.linkDensity(sib);
    if (score + bonus >= threshold) picked.push(sib);
    else if (sib.name === 'p' && s.len > R.siblingParagraphChars && ld < R.siblingLinkDensity) picked.push(sib);
    else if (sib.name === 'p' && s.len > 0 && ld === 0 && /[.!?。]\s*$/.test(textOf(sib))) picked.push(sib);
  }
  return picked;
}

/**
 * Removes furniture, link lists, empty containers and form remnants inside the chosen content. When
 * that would leave under `cleanKeepShare` of its text (the content is itself a link list, or short
 * prose among many links), only furniture goes.
 */
function cleanInside(model: PageModel, root: Element, scope: MainContentScope = 'article'): void {
  const strict = (el: Element): boolean => {
    const s = model.statsOf(el);
    const ld = s.len ? s.links / s.len : 0;
    if (HEADING.test(el.name)) return ld <= R.linkDensity;
    if (el.name === 'a' || el.name === 'img' || el.name === 'br' || el.name === 'hr') return true;
    if (s.len === 0) return el.name === 'figure' || el.name === 'picture' || el.name === 'p' || !!selectFirst(el, 'img');
    if (s.commas >= 10 || PROSE_TAGS.has(el.name)) return true;
    const sign = classSign(el);
    // The whole page keeps link-bearing blocks (cards, specs, tables of contents) that an article would shed.
    const linkHeavy = ld > R.linkDensityHard || (scope === 'article' && sign <= 0 && ld > R.linkDensity && s.len < 4 * R.goodBlockChars);
    if (linkHeavy && s.prose < R.proseChars) return false;
    if (s.inputs > 0 && s.inputs > s.paragraphs / 3) return false;
    if (s.len < R.shortBlockChars && ld > 0.5) return false;
    return true;
  };
  const plan = (keep: (el: Element) => boolean) => {
    const drop = new Set<Element>();
    let dropped = 0;
    const walk = (el: Element) => {
      for (const child of el.children) {
        if (!isTag(child)) continue;
        if (model.furniture.has(child) || !keep(child)) {
          drop.add(child);
          dropped += model.statsOf(child).len;
        } else walk(child);
      }
    };
    walk(root);
    return { drop, kept: model.statsOf(root).len - dropped };
  };
  const first = plan(strict);
  const drop = first.kept < R.cleanKeepShare * model.statsOf(root).len ? plan(() => true).drop : first.drop;
  const apply = (el: Element) => {
    const children: AnyNode[] = [];
    for (const child of el.children) {
      if (isTag(child)) {
        if (drop.has(child)) continue;
        apply(child);
      }
      children.push(child);
    }
    keepChildren(el, children);
  };
  apply(root);
}

type BlockClass = 'good' | 'near' | 'short' | 'bad';
interface Block {
  el: Element;
  cls: BlockClass;
  len: number;
  heading: boolean;
}

/** The paragraph classifier: leaf blocks judged on length, link density and furniture, then smoothed by their neighbours. */
function classifyBlocks(model: PageModel): Block[] {
  const blocks = leafBlocks(
    model,
    model.body.children.filter((c): c is Element => isTag(c)),
  ).map((el): Block => {
    const s = model.statsOf(el);
    let cls: BlockClass;
    if (model.inFurniture.has(el) || model.furniture.has(el) || s.links / s.len > R.classifierLinkDensity) cls = 'bad';
    else if (s.len >= R.goodBlockChars) cls = 'good';
    else if (s.len >= R.nearGoodBlockChars) cls = 'near';
    else cls = 'short';
    return { el, cls, len: s.len, heading: HEADING.test(el.name) };
  });
  // Context: a short or near-good block between good ones is good; next to bad ones, bad.
  const neighbour = (i: number, step: number): BlockClass => {
    for (let j = i + step; j >= 0 && j < blocks.length; j += step) {
      const cls = blocks[j]!.cls;
      if (cls === 'good' || cls === 'bad') return cls;
    }
    return 'bad';
  };
  const smoothed = blocks.map((b, i) => {
    if (b.cls !== 'short' && b.cls !== 'near') return b.cls;
    const before = neighbour(i, -1);
    const after = neighbour(i, 1);
    if (b.heading && after === 'good') return 'good';
    if (before === 'good' && after === 'good') return 'good';
    if (b.cls === 'near' && (before === 'good' || after === 'good')) return 'good';
    return 'bad';
  });
  return blocks.filter((_, i) => smoothed[i] === 'good');
}

/**
 * The main content of a parsed page: never-content and page furniture removed, then the best
 * container (with its siblings) or, when the container holds less than half of the text the
 * paragraph classifier finds good, the classifier's blocks. With `full` scope: the whole body, its
 * furniture removed. The tree is modified in place.
 */
export function mainContentNodes(doc: Doc, options: ContentOptions = {}): MainNodes {
  const body = selectFirst(doc, 'body') ?? selectFirst(doc, 'html');
  if (!body) return { nodes: [], method: 'none' };
  // The page's declared type, read before its scripts (JSON-LD) are pruned.
  const type = options.pageType ?? declaredType(doc);
  pruneNeverContent(body);
  const model = new PageModel(body, !options.relaxed);
  if (options.scope === 'full') {
    // All of the page's readable content: its furniture (navigation, headers, footers, asides,
    // boilerplate-marked blocks) and link lists removed, every section kept.
    cleanInside(model, body, 'full');
    return { nodes: [body], method: 'full' };
  }
  const first = chooseContent(model, type, options);
  if (first.method !== 'none') return options.relaxed ? { ...first, method: 'relaxed' } : first;
  // Everything looked like furniture (a page built from "widgets"): judge it again without furniture.
  const second = chooseContent(new PageModel(body, false), type, options);
  if (second.method !== 'none') return second;
  // No prose at all (a stub, a gallery, one line): the body without its furniture.
  cleanInside(model, body);
  return { nodes: [body], method: 'body' };
}

/** The main content with its text (`blockText`). */
export interface MainText extends MainNodes {
  text: string;
}

/**
 * The main content and its text, with a second look at a short first choice (under `retryChars` of
 * text, from a container or the classifier): the page, parsed again by `reparse`, is judged with
 * nothing set aside as furniture, and that choice wins when its text is `retryGain` times longer.
 * A class word or tag mistaken for furniture ("TestReport__Section--Ads" around a review, an
 * `<aside>` holding the live commentary) otherwise leaves a headline and a line. Readability retries
 * without its class flags the same way when its article is short; trafilatura falls back to a second
 * extractor when its first result looks wrong. Then the learned scope model (`page-scope.ts`), given
 * the page's region as measured before the pass and the rules' choice, may take the whole region
 * instead (method `region`). The tree of `doc` is pruned in place.
 */
export function mainContentText(doc: Doc, options: ContentOptions & { reparse?: () => Doc } = {}): MainText {
  const { onScope, ...others } = options;
  const scopeModel = activeScopeModel();
  const judging = options.reparse && options.scope !== 'full' && (scopeModel || onScope);
  // The page's region is measured before the content pass prunes the tree.
  const pageType = judging ? declaredType(doc) : undefined;
  const region = pageType ? regionStats(doc, pageType) : undefined;
  const chosen = rulesContentText(doc, { ...others, pageType });
  if (!region) return chosen;
  const features = scopeFeatures(region, chosen.method, textStats(chosen.nodes, false));
  onScope?.(features, chosen.text);
  if (!scopeModel || !regionWins(scopeModel, features)) return chosen;
  const nodes = regionNodes(options.reparse!());
  const text = blockText(nodes);
  return text.trim() ? { nodes, method: 'region', text } : chosen;
}

function rulesContentText(doc: Doc, options: ContentOptions & { reparse?: () => Doc }): MainText {
  const { reparse, onBlocks, onJudged, ...rest } = options;
  // Each pass's blocks are told once the pass whose text is kept is known.
  const seen = () => {
    const got: { blocks?: ContentBlocks; judged?: JudgedBlock[] } = {};
    const hooks = {
      onBlocks: onBlocks && ((c: ContentBlocks) => (got.blocks = c)),
      onJudged: onJudged && ((j: JudgedBlock[]) => (got.judged = j)),
    };
    const tell = () => {
      if (got.blocks) onBlocks?.(got.blocks);
      if (got.judged) onJudged?.(got.judged);
    };
    return { hooks, tell };
  };
  const one = seen();
  const first = mainContentNodes(doc, { ...rest, ...one.hooks });
  const text = blockText(first.nodes);
  const short = (first.method === 'container' || first.method === 'classifier') && text.length < R.retryChars;
  if (reparse && short) {
    const two = seen();
    const second = mainContentNodes(reparse(), { ...rest, relaxed: true, ...two.hooks });
    const secondText = blockText(second.nodes);
    if (second.method === 'relaxed' && secondText.length >= R.retryGain * text.length) {
      two.tell();
      return { ...second, text: secondText };
    }
  }
  one.tell();
  return { ...first, text };
}

function chooseContent(model: PageModel, type: PageType, options: ContentOptions): MainNodes {
  const container = bestContainer(model);
  const good = classifyBlocks(model);
  const goodLen = good.reduce((n, b) => n + b.len, 0);
  const containerLen = container?.reduce((n, el) => n + model.statsOf(el).len, 0) ?? 0;
  if (container && containerLen >= R.minArticleChars && containerLen >= R.classifierOverride * goodLen) {
    const nodes = withLead(
      model,
      container,
      good.map((b) => b.el),
    );
    for (const el of nodes) cleanInside(model, el);
    const blocks = leafBlocks(model, nodes);
    trimTail(model, blocks);
    dropDatelines(model, blocks);
    dropRepeats(model, dropAppeals(model, dropReadAlso(model, leafBlocks(model, nodes))));
    const judged = applyBlockModel(model, outermost(withHeadline(model, nodes)), type, options.onJudged);
    options.onBlocks?.({ model, nodes: judged, blocks: leafBlocks(model, judged) });
    return { nodes: judged, method: 'container' };
  }
  if (goodLen > 0) {
    for (const b of good) cleanInside(model, b.el);
    const kept = dropRepeats(
      model,
      good.map((b) => b.el),
    );
    return { nodes: applyBlockModel(model, kept, type, options.onJudged), method: 'classifier' };
  }
  if (container) {
    for (const el of container) cleanInside(model, el);
    return { nodes: container, method: 'container' };
  }
  return { nodes: [], method: 'none' };
}

/** Text like innerText: block elements and table cells are separated, so words never run together. */
export function blockText(nodes: AnyNode | AnyNode[]): string {
  const parts: string[] = [];
  const walk = (node: AnyNode) => {
    if (isText(node)) parts.push(node.data);
    else if (isTag(node)) {
      if (NEVER_CONTENT.has(node.name)) return;
      const block = BLOCK_TAGS.has(node.name);
      if (block) parts.push('\n');
      for (const c of node.children) walk(c);
      if (block) parts.push('\n');
    } else if ('children' in node) for (const c of node.children) walk(c);
  };
  for (const n of Array.isArray(nodes) ? nodes : [nodes]) walk(n);
  return parts
    .join('')
    .split('\n')
    .map((line) => line.replace(/\s+/g, ' ').trim())
    .filter(Boolean)
    .join('\n');
}
