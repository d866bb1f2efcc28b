import { Tokenizer } from 'htmlparser2';
import { HEADING_TAGS, parseDocument, type Doc } from './dom.js';

/**
 * What one page may cost before it is parsed. Measured on 990 real pages (the extraction
 * corpus): nesting depth at most 42, at most 10,110 elements and 2,215 links; Readability's
 * time grows with the square of the depth (400 nested divs: 0.8 s, 1,000: 24 s) and linkedom's
 * parse superlinearly with elements, so pages beyond these bounds are cut before either runs.
 */
export interface PageBounds {
  /** Characters of HTML parsed; the rest is cut at a tag boundary. */
  maxChars: number;
  /** Elements parsed; the document is cut before the next one. */
  maxElements: number;
  /** Nesting depth; tags deeper than this are dropped and their text joins the element at the limit. */
  maxDepth: number;
  /** Links kept as links; further `<a>` tags are dropped (their text stays). */
  maxLinks: number;
}

export const DEFAULT_PAGE_BOUNDS: PageBounds = { maxChars: 3 * 1024 * 1024, maxElements: 60_000, maxDepth: 100, maxLinks: 5_000 };

/** One bound a page went over, and what was cut to stay within it. */
export interface BoundCut {
  bound: keyof PageBounds;
  limit: number;
  /** How much of it the page had (at least; counting stops at a cut). */
  found: number;
  cut: string;
}

class StopScan extends Error {}

interface Scan {
  ranges: Array<[number, number]>;
  cutAt?: number;
  elements: number;
  maxDepth: number;
  links: number;
}

// htmlparser2's tree rules (which linkedom parses with), so depths here are the parsed document's.
const P = ['p'];
const FORM = ['input', 'option', 'optgroup', 'select', 'button', 'datalist', 'textarea'];
const IMPLIES_CLOSE = new Map<string, Set<string>>(
  [
    ['tr', ['tr', 'th', 'td']],
    ['th', ['th']],
    ['td', ['thead', 'th', 'td']],
    ['body', ['head', 'link', 'script']],
    ['li', ['li']],
    ['select', FORM],
    ['input', FORM],
    ['output', FORM],
    ['button', FORM],
    ['datalist', FORM],
    ['textarea', FORM],
    ['option', ['option']],
    ['optgroup', ['optgroup', 'option']],
    ['dd', ['dd', 'dt']],
    ['dt', ['dd', 'dt']],
    ['rt', ['rt', 'rp']],
    ['rp', ['rt', 'rp']],
    ['tbody', ['thead', 'tbody']],
    ['tfoot', ['thead', 'tbody']],
    ...[
      'p',
      ...HEADING_TAGS,
      'address',
      'article',
      'aside',
      'blockquote',
      'details',
      'div',
      'dl',
      'fieldset',
      'figcaption',
      'figure',
      'footer',
      'form',
      'header',
      'hr',
      'main',
      'nav',
      'ol',
      'pre',
      'section',
      'table',
      'ul',
    ].map((t): [string, string[]] => [t, P]),
  ].map(([k, v]) => [k as string, new Set(v as string[])]),
);
const VOID = new Set([
  'area',
  'base',
  'basefont',
  'br',
  'col',
  'command',
  'embed',
  'frame',
  'hr',
  'img',
  'input',
  'isindex',
  'keygen',
  'link',
  'meta',
  'param',
  'source',
  'track',
  'wbr',
]);
const FOREIGN = new Set(['math', 'svg']);

interface Open {
  name: string;
  /** Its tags are dropped (too deep, or a link over the limit). */
  drop: boolean;
  foreign: boolean;
}

/**
 * The tree walk of htmlparser2's Parser (implied closes, void elements, self-closing tags in
 * SVG/MathML) on its Tokenizer, with the open elements on a stack whose top is its end: the
 * Parser keeps them with unshift/shift, which is quadratic in the depth (100,000 nested divs:
 * 13 s), this is linear.
 */
function scan(html: string, bounds: PageBounds): Scan {
  const out: Scan = { ranges: [], elements: 0, maxDepth: 0, links: 0 };
  const stack: Open[] = [];
  let tagStart = 0;
  let current: Open | undefined;
  const close = (open: Open, range?: [number, number]) => {
    if (open.drop && range) out.ranges.push(range);
  };
  const tokenizer = new Tokenizer(
    { decodeEntities: false },
    {
      onopentagname(start, end) {
        tagStart = start - 1;
        const name = html.slice(start, end).toLowerCase();
        const implied = IMPLIES_CLOSE.get(name);
        while (implied && stack.length > 0 && implied.has(stack.at(-1)!.name)) close(stack.pop()!);
        const depth = stack.length + 1;
        out.maxDepth = Math.max(out.maxDepth, depth);
        let drop = depth > bounds.maxDepth;
        if (name === 'a' && !drop && ++out.links > bounds.maxLinks) drop = true;
        // Only the elements that will exist in the parsed document count.
        if (!drop && ++out.elements > bounds.maxElements) {
          out.cutAt = tagStart;
          throw new StopScan();
        }
        current = { name, drop, foreign: FOREIGN.has(name) || (stack.at(-1)?.foreign ?? false) };
      },
      onopentagend(end) {
        if (!current) return;
        if (current.drop) out.ranges.push([tagStart, end + 1]);
        if (!VOID.has(current.name)) stack.push(current);
        current = undefined;
      },
      onselfclosingtag(end) {
        if (!current) return;
        if (current.drop) out.ranges.push([tagStart, end + 1]);
        // Self-closing syntax closes an element only in foreign content (htmlparser2's HTML mode).
        if (!VOID.has(current.name) && !current.foreign) stack.push(current);
        current = undefined;
      },
      onclosetag(start, end) {
        const name = html.slice(start, end).toLowerCase();
        if (VOID.has(name)) return;
        let i = stack.length - 1;
        while (i >= 0 && stack[i]!.name !== name) i--;
        if (i < 0) return;
        while (stack.length > i + 1) close(stack.pop()!);
        const gt = html.indexOf('>', end);
        close(stack.pop()!, [start - 2, (gt < 0 ? end : gt) + 1]);
      },
      onattribdata() {},
      onattribentity() {},
      onattribend() {},
      onattribname() {},
      oncdata() {},
      oncomment() {},
      ondeclaration() {},
      onend() {},
      onprocessinginstruction() {},
      ontext() {},
      ontextentity() {},
    },
  );
  try {
    tokenizer.write(html);
    tokenizer.end();
  } catch (err) {
    if (!(err instanceof StopScan)) throw err;
  }
  return out;
}

function cutAtTag(html: string, limit: number): string {
  const lt = html.lastIndexOf('<', limit);
  return html.slice(0, lt > limit / 2 ? lt : limit);
}

/**
 * Keeps a page within its bounds before it is parsed; returns it unchanged (the common case)
 * or cut, with a record of every bound it went over.
 *
 * @example boundHtml('<div>'.repeat(1e5), DEFAULT_PAGE_BOUNDS).cuts[0].bound // 'elements'
 */
export function boundHtml(html: string, bounds: PageBounds = DEFAULT_PAGE_BOUNDS): { html: string; cuts: BoundCut[] } {
  const cuts: BoundCut[] = [];
  let source = html;
  if (source.length > bounds.maxChars) {
    cuts.push({
      bound: 'maxChars',
      limit: bounds.maxChars,
      found: source.length,
      cut: `${source.length - bounds.maxChars} characters after the first ${bounds.maxChars}`,
    });
    source = cutAtTag(source, bounds.maxChars);
  }
  // Fewer tags than the depth bound: no bound can be exceeded, so no scan is needed.
  let tags = 0;
  for (let i = source.indexOf('<'); i >= 0 && tags <= bounds.maxDepth; i = source.indexOf('<', i + 1)) tags++;
  if (tags <= bounds.maxDepth) return { html: source, cuts };
  const s = scan(source, bounds);
  if (s.cutAt !== undefined) {
    cuts.push({ bound: 'maxElements', limit: bounds.maxElements, found: s.elements, cut: `everything from character ${s.cutAt} on` });
  }
  if (s.maxDepth > bounds.maxDepth) {
    cuts.push({ bound: 'maxDepth', limit: bounds.maxDepth, found: s.maxDepth, cut: 'tags nested deeper than the limit (their text kept)' });
  }
  if (s.links > bounds.maxLinks)
    cuts.push({ bound: 'maxLinks', limit: bounds.maxLinks, found: s.links, cut: `${s.links - bounds.maxLinks} links (their text kept)` });
  if (cuts.length === 0) return { html: source, cuts };
  const end = s.cutAt ?? source.length;
  const parts: string[] = [];
  let at = 0;
  for (const [from, to] of s.ranges.sort((a, b) => a[0] - b[0])) {
    if (from >= end) break;
    if (from > at) parts.push(source.slice(at, from));
    at = Math.max(at, to);
  }
  if (at < end) parts.push(source.slice(at, end));
  return { html: parts.join(''), cuts };
}

/**
 * A page parsed within its bounds. Most pages are far inside them: the page is parsed once, the
 * parse counting as it goes, and only a page that passes a bound is scanned, cut (`boundHtml`) and
 * parsed again.
 */
export function parseWithinBounds(html: string, bounds: PageBounds = DEFAULT_PAGE_BOUNDS): { doc: Doc; cuts: BoundCut[] } {
  const doc = html.length <= bounds.maxChars ? parseDocument(html, bounds) : undefined;
  if (doc) return { doc, cuts: [] };
  const bounded = boundHtml(html, bounds);
  return { doc: parseDocument(bounded.html), cuts: bounded.cuts };
}
