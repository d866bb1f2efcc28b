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
/** Every marker in one regular expression: a single pass over the markup. */
const MARKERS = new RegExp(FRAMEWORK_MARKERS.map(([, re]) => `(${re.source})`).join('|'));

function isEmpty(el: Element): boolean {
  return el.children.every((c) => (isText(c) && !/\S/.test(c.data)) || (isTag(c) && (c.name === 'script' || c.name === 'noscript' || isEmpty(c))));
}

/** What one walk of the tree collects. */
interface Walk {
  text: string[];
  hrefs: Set<string>;
  scripts: number;
  noscripts: string[];
  /** Application roots by their selector (`#root`, `app-root`). */
  roots: Array<[string, Element]>;
}

/** Text counts where `counted` (inside a visible part of the body); links, scripts and roots count anywhere. */
function walk(node: AnyNode, counted: boolean, hasBody: boolean, out: Walk): void {
  if (isText(node)) {
    if (counted) out.text.push(node.data);
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

/** The first empty application root, in the order of the common ids (`#root` before `#app`), then by element name. */
function emptyRootOf(roots: Walk['roots']): string | undefined {
  const empty = new Set(roots.filter(([, el]) => isEmpty(el)).map(([key]) => key));
  return [...ROOT_IDS.map((id) => `#${id}`), ...ROOT_ELEMENTS].find((key) => empty.has(key));
}

/** The signals of one parsed page, in one walk of the tree; `html` is the markup as served (its markers and size). */
export function shellSignals(doc: Doc, html: string): ShellSignals {
  const out: Walk = { text: [], hrefs: new Set(), scripts: 0, noscripts: [], roots: [] };
  const hasBody = selectFirst(doc, 'body') !== null;
  walk(doc, !hasBody, hasBody, out);
  const text = out.text.join(' ').replace(/\s+/g, ' ').trim();
  const marker = MARKERS.exec(html);
  return {
    htmlBytes: html.length,
    textChars: text.length,
    links: out.hrefs.size,
    scripts: out.scripts,
    emptyRoot: emptyRootOf(out.roots),
    framework: marker ? FRAMEWORK_MARKERS[marker.slice(1).findIndex((m) => m !== undefined)]![0] : undefined,
    loading: text.length < 60 && LOADING.test(text),
    noscriptWarning: out.noscripts.some((t) => NOSCRIPT_WARNING.test(t)),
  };
}
