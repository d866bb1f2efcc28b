import { Parser } from 'htmlparser2';
import { type AnyNode, type Document, DomHandler, Element, isTag, isText } from 'domhandler';
import { compile, selectAll, selectOne } from 'css-select';
import { appendChild, textContent } from 'domutils';

/**
 * The page tree: htmlparser2's domhandler nodes. Parsing is measured ~5× faster than linkedom on
 * real pages (3.4 vs 19 ms/page on the extraction corpus), and the tree rules are the ones
 * `bounds.ts` mirrors, so the depths it counts are the depths walked here.
 */
export type Doc = Document;

/** The six heading elements, for the tag sets of the extraction and the link context. */
export const HEADING_TAGS = ['h1', 'h2', 'h3', 'h4', 'h5', 'h6'] as const;
export type El = Element;
export type { AnyNode };

/** How large a tree a parse may build: elements, their nesting, links. */
export interface TreeLimits {
  maxElements: number;
  maxDepth: number;
  maxLinks: number;
}

class LimitPassed extends Error {}

/** domhandler's tree builder, stopping the parse at the first element past a limit (before the parser's stack grows deep). */
class LimitedHandler extends DomHandler {
  private elements = 0;
  private links = 0;

  constructor(private readonly limits: TreeLimits) {
    super();
  }

  override onopentag(name: string, attribs: Record<string, string>): void {
    // The stack holds the document and the open elements: its length is the new element's depth.
    const l = this.limits;
    if (++this.elements > l.maxElements || this.tagStack.length > l.maxDepth || (name === 'a' && ++this.links > l.maxLinks)) throw new LimitPassed();
    super.onopentag(name, attribs);
  }
}

/**
 * Parses HTML into a tree (lower-cased tag and attribute names, entities decoded), with body
 * content that strayed into `<head>` moved to the body. With `limits`, the parse stops at the first
 * element past one and the answer is undefined (the caller bounds the page first: bounds.ts).
 */
export function parseDocument(html: string): Doc;
export function parseDocument(html: string, limits: TreeLimits): Doc | undefined;
export function parseDocument(html: string, limits?: TreeLimits): Doc | undefined {
  const handler = limits ? new LimitedHandler(limits) : new DomHandler();
  try {
    new Parser(handler, { lowerCaseTags: true, lowerCaseAttributeNames: true, decodeEntities: true }).end(html);
  } catch (err) {
    if (err instanceof LimitPassed) return undefined;
    throw err;
  }
  const doc = handler.root;
  addSkeleton(doc);
  hoistBodyContent(doc);
  sinkTrailingContent(doc);
  return doc;
}

/** What may stay in `<head>`; anything else ends the head in a browser's parser. */
const HEAD_TAGS = new Set(['title', 'meta', 'link', 'script', 'style', 'base', 'noscript', 'template']);

/**
 * `<html>`, `<head>` and `<body>` are optional in HTML: a browser makes the ones a page leaves out,
 * htmlparser2 does not. Made here, so a page written without them has a body to read: a missing
 * `<html>` wraps the page; a missing `<body>` takes what follows the head's elements.
 */
function addSkeleton(doc: Doc): void {
  let html = documentElement(doc);
  if (!html) {
    const content = doc.children.filter((c) => c.type !== 'directive');
    html = new Element('html', {});
    adopt(html, content);
    keepChildren(doc, [...doc.children.filter((c) => c.type === 'directive'), html]);
    html.parent = doc;
  }
  if (html.children.some((c) => isTag(c) && c.name === 'body')) return;
  const headEl = html.children.find((c): c is Element => isTag(c) && c.name === 'head');
  const from = headEl
    ? html.children.indexOf(headEl) + 1
    : html.children.findIndex((c) => (isTag(c) && !HEAD_TAGS.has(c.name)) || (isText(c) && /\S/.test(c.data)));
  const rest = from < 0 ? [] : html.children.slice(from);
  const leading = from < 0 ? html.children : html.children.slice(0, from);
  const body = new Element('body', {});
  adopt(body, rest);
  if (headEl) keepChildren(html, [...leading, body]);
  else {
    const head = new Element('head', {});
    adopt(head, leading);
    html.children = [];
    adopt(html, [head, body]);
  }
}

/** Makes `nodes` the children of `parent`, in order, with their links. */
function adopt(parent: Element, nodes: AnyNode[]): void {
  for (const node of nodes) node.parent = parent;
  parent.children = nodes;
  nodes.forEach((node, i) => {
    node.prev = nodes[i - 1] ?? null;
    node.next = nodes[i + 1] ?? null;
  });
}

/**
 * A browser closes `<head>` at the first element or text that cannot be in it and puts the rest in
 * `<body>`; htmlparser2 keeps such content (a `<div>` before `<body>`) inside the head. Moved here.
 */
function hoistBodyContent(doc: Doc): void {
  const html = documentElement(doc);
  const head = html?.children.find((c): c is Element => isTag(c) && c.name === 'head');
  if (!html || !head) return;
  const at = head.children.findIndex((c) => (isTag(c) && !HEAD_TAGS.has(c.name)) || (isText(c) && /\S/.test(c.data)));
  if (at < 0) return;
  let body = html.children.find((c): c is Element => isTag(c) && c.name === 'body');
  if (!body) {
    body = new Element('body', {});
    appendChild(html, body);
  }
  const moved = head.children.slice(at);
  keepChildren(head, head.children.slice(0, at));
  for (const node of moved) node.parent = body;
  const children = [...moved, ...body.children];
  body.children = children;
  children.forEach((node, i) => {
    node.prev = children[i - 1] ?? null;
    node.next = children[i + 1] ?? null;
  });
}

/**
 * A browser puts what comes after `</body>` or `</html>` (a page whose template closes them early,
 * then goes on with the article) at the end of `<body>`; htmlparser2 leaves it beside them, where
 * nothing that reads the body sees it. Moved there.
 */
function sinkTrailingContent(doc: Doc): void {
  const html = documentElement(doc);
  const body = html?.children.find((c): c is Element => isTag(c) && c.name === 'body');
  if (!html || !body) return;
  const trailing = (nodes: AnyNode[], after: AnyNode) => nodes.slice(nodes.indexOf(after) + 1).filter((c) => isTag(c) || (isText(c) && /\S/.test(c.data)));
  const moved = [...trailing(html.children, body), ...trailing(doc.children, html)];
  if (!moved.length) return;
  keepChildren(
    html,
    html.children.filter((c) => !moved.includes(c)),
  );
  keepChildren(
    doc,
    doc.children.filter((c) => !moved.includes(c)),
  );
  for (const node of moved) node.parent = body;
  const children = [...body.children, ...moved];
  body.children = children;
  children.forEach((node, i) => {
    node.prev = children[i - 1] ?? null;
    node.next = children[i + 1] ?? null;
  });
}

const compiled = new Map<string, ReturnType<typeof compile<AnyNode, Element>>>();
function query(selector: string) {
  let fn = compiled.get(selector);
  if (!fn) {
    fn = compile<AnyNode, Element>(selector);
    compiled.set(selector, fn);
  }
  return fn;
}

/** Every element under `root` matching a CSS selector, in document order. */
export function selectEvery(root: AnyNode, selector: string): Element[] {
  return selectAll<AnyNode, Element>(query(selector), root);
}

/** The first element under `root` matching a CSS selector. */
export function selectFirst(root: AnyNode, selector: string): Element | null {
  return selectOne<AnyNode, Element>(query(selector), root);
}

/** The raw text of a node and its descendants (scripts and styles included, as `textContent`). */
export function rawText(node: AnyNode | null | undefined): string {
  return node ? textContent(node) : '';
}

/** Whitespace-collapsed text of a node. */
export function textOf(node: AnyNode | null | undefined): string {
  return rawText(node).replace(/\s+/g, ' ').trim();
}

/** A trimmed attribute value; undefined when absent or blank. */
export function attr(el: Element | null | undefined, name: string): string | undefined {
  const v = el?.attribs[name];
  return v === undefined ? undefined : v.trim() || undefined;
}

/** The nearest element ancestor. */
export function parentElement(node: AnyNode): Element | null {
  const p = node.parent;
  return p && isTag(p) ? p : null;
}

/** Whether `node` is `ancestor` or inside it. */
export function contains(ancestor: AnyNode, node: AnyNode): boolean {
  for (let n: AnyNode | null = node; n; n = n.parent) if (n === ancestor) return true;
  return false;
}

/** The `<html>` element, or null for a fragment without one. */
export function documentElement(doc: Doc): Element | null {
  return (doc.children.find((c) => isTag(c) && c.name === 'html') as Element | undefined) ?? null;
}

/** Replaces a parent's children with `kept` (a subset, in order), relinking siblings. */
export function keepChildren(parent: { children: AnyNode[] }, kept: AnyNode[]): void {
  if (kept.length === parent.children.length) return;
  kept.forEach((node, i) => {
    node.prev = kept[i - 1] ?? null;
    node.next = kept[i + 1] ?? null;
  });
  parent.children = kept as typeof parent.children;
}

export { isTag, isText };
