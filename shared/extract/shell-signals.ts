import type { AnyNode, Element } from 'domhandler';
import { isTag, isText, selectFirst, textOf, type Doc } from './dom.js';

/**
 * What the served HTML says about whether its content needs JavaScript: measured on the raw
 * markup, before anything is pruned, and read by the render decision (`shared/render/decision.ts`).
 */
export interface ShellSignals {
  /** Characters of markup served. */
  htmlBytes: number;
  /** Visible characters of the body (scripts, styles, templates and noscript left out, whitespace collapsed). */
  textChars: number;
  /** Distinct link targets (`a[href]`, as written). */
  links: number;
  scripts: number;
  /** An application root left empty for a script to fill: `#root`, `#app`, `app-root`, … */
  emptyRoot?: string;
  /** A framework's marker (`__NEXT_DATA__`, `ng-version`, …): meaningful only with little text. */
  framework?: string;
  /** The visible text is a loading message ("Loading…", "Please wait"). */
  loading: boolean;
  /** A `<noscript>` asks the reader to turn JavaScript on. */
  noscriptWarning: boolean;
}

/** Ids of the elements single-page-app frameworks mount into. */
const ROOT_IDS = ['root', 'app', '__next', '__nuxt', 'svelte', 'main-app', 'react-root', 'ember-app'];
/** Elements that are application roots by name (Angular's convention). */
const ROOT_ELEMENTS = ['app-root'];
/** Markers in attributes or script contents, checked on the markup. */
const FRAMEWORK_MARKERS: Array<[string, RegExp]> = [
  ['__NEXT_DATA__', /\b__NEXT_DATA__\b/],
  ['__NUXT__', /\b__NUXT__\b/],
  ['ng-version', /\sng-version=/],
  ['data-reactroot', /\sdata-reactroot\b/],
  ['data-server-rendered', /\sdata-server-rendered\b/],
  ['ember', /\bEmberENV\b/],
  ['gatsby', /\bid="___gatsby"/],
];
const LOADING = /^(loading|please wait|chargement|cargando|wird geladen|laden|caricamento|carregando)\b[\s.…!]*$/i;
const NOSCRIPT_WARNING = /\b(enable|turn on|activate|requires?|need)\b.{0,40}\bjavascript\b|\bjavascript\b.{0,40}\b(required|disabled|enabled|needed)\b/i;
const INVISIBLE = new Set(['script', 'style', 'noscript', 'template', 'head', 'svg']);
const ROOT_ID_SET = new Set(ROOT_IDS);

/** Every marker in one regular expression: a single pass over the markup (measured faster than a search per marker). */
const MARKERS = new RegExp(FRAMEWORK_MARKERS.map(([, re]) => `(${re.source})`).join('|'));

function isEmpty(el: Element): boolean {
  return el.children.every((c) => (isText(c) && !/\S/.test(c.data)) || (isTag(c) && (c.name === 'script' || c.name === 'noscript' || isEmpty(c))));
}

/** What one walk of the tree collects. */
interface Walk {
  /** Visible characters, whitespace runs counted as one. */
  chars: number;
  /** The visible text's start (what a loading message is judged on). */
  head: string;
  /** The last character counted was whitespace (a run continues across text nodes). */
  space: boolean;
  hrefs: Set<string>;
  scripts: number;
  noscripts: string[];
  /** Application roots by their selector (`#root`, `app-root`). */
  roots: Array<[string, Element]>;
}

/** Text counts where `counted` (inside a visible part of the body); links, scripts and roots count anywhere. */
function walk(node: AnyNode, counted: boolean, hasBody: boolean, out: Walk): void {
  if (isText(node)) {
    if (counted) addText(out, node.data);
    return;
  }
  if (!isTag(node)) {
    for (const child of (node as { children?: AnyNode[] }).children ?? []) walk(child, counted, hasBody, out);
    return;
  }
  const { name, attribs } = node;
  if (name === 'script') out.scripts++;
  else if (name === 'noscript') out.noscripts.push(textOf(node));
  else if (name === 'a' && attribs.href?.trim()) out.hrefs.add(attribs.href.trim());
  if (attribs.id && ROOT_ID_SET.has(attribs.id)) out.roots.push([`#${attribs.id}`, node]);
  else if (ROOT_ELEMENTS.includes(name)) out.roots.push([name, node]);
  const inside = (counted || (hasBody && name === 'body')) && !INVISIBLE.has(name) && attribs.hidden === undefined;
  for (const child of node.children) walk(child, inside, hasBody, out);
}

const WHITESPACE = /\s+/g;

/** Counts a text's characters as `join(' ').replace(/\s+/g, ' ')` would, without building the text. */
function addText(out: Walk, data: string): void {
  // Text nodes are joined with a space.
  if (out.chars > 0 && !out.space) {
    out.chars++;
    out.space = true;
  }
  if (!data) return;
  let count = data.length;
  let leading = false;
  let trailing = false;
  WHITESPACE.lastIndex = 0;
  for (let m = WHITESPACE.exec(data); m; m = WHITESPACE.exec(data)) {
    count -= m[0].length - 1;
    if (m.index === 0) leading = true;
    if (m.index + m[0].length === data.length) trailing = true;
  }
  // A leading run joins the space before it (or is nothing at the very start).
  if (leading && (out.space || out.chars === 0)) count--;
  if (count > 0) out.space = trailing;
  out.chars += count;
  if (out.head.length < 120) out.head += ` ${data}`;
}

/** The first framework marker in the markup. */
function frameworkOf(html: string): string | undefined {
  const marker = MARKERS.exec(html);
  return marker ? FRAMEWORK_MARKERS[marker.slice(1).findIndex((m) => m !== undefined)]![0] : undefined;
}

/** The first empty application root, in the order of the common ids (`#root` before `#app`), then by element name. */
function emptyRootOf(roots: Walk['roots']): string | undefined {
  const empty = new Set(roots.filter(([, el]) => isEmpty(el)).map(([key]) => key));
  return [...ROOT_IDS.map((id) => `#${id}`), ...ROOT_ELEMENTS].find((key) => empty.has(key));
}

/** The signals of one parsed page, in one walk of the tree; `html` is the markup as served (its markers and size). */
export function shellSignals(doc: Doc, html: string): ShellSignals {
  const out: Walk = { chars: 0, head: '', space: false, hrefs: new Set(), scripts: 0, noscripts: [], roots: [] };
  const hasBody = selectFirst(doc, 'body') !== null;
  walk(doc, !hasBody, hasBody, out);
  // A trailing run of whitespace was counted as one character, which trim() would drop.
  const textChars = out.space ? out.chars - 1 : out.chars;
  return {
    htmlBytes: html.length,
    textChars,
    links: out.hrefs.size,
    scripts: out.scripts,
    emptyRoot: emptyRootOf(out.roots),
    framework: frameworkOf(html),
    loading: textChars < 60 && LOADING.test(out.head.replace(/\s+/g, ' ').trim()),
    noscriptWarning: out.noscripts.some((t) => NOSCRIPT_WARNING.test(t)),
  };
}
