// Fields extracted with CSS selectors (cheerio): what a profile or `--field name=selector` asks of
// the pages it matches. Text, an attribute (`a.pdf@href`), a list (`[]`), an optional URL pattern,
// a type (string, number, date, url) and an optional regular expression that keeps part of a value.
// A selector that matches nothing yields an absent field; an invalid one fails at start-up
// (field-specs.ts checks what a profile or a flag wrote: zod, kept out of the extraction worker).
import { linearRegex, type LinearRegex } from '../util/linear-regex.js';
import type { CheerioAPI } from 'cheerio';
import { createRequire } from 'node:module';
import type { AnyNode } from 'domhandler';
import { parseDocument } from './dom.js';

export type FieldType = 'string' | 'number' | 'date' | 'url';
export type FieldValue = string | number | string[] | number[];

/** A field ready to run: plain data, so it crosses to extraction worker threads. */
export interface FieldSpec {
  name: string;
  selector: string;
  attr?: string;
  list: boolean;
  pages?: string;
  type: FieldType;
  match?: string;
}

type Cheerio = typeof import('cheerio');
let cheerio: Cheerio | undefined;

/**
 * cheerio, loaded on first use: it costs a thread ~14 MB (measured RSS), and only crawls with
 * fields (and `onPage`'s `$`) use it. Node runs this module as ESM, where `require` is not
 * defined; a bundler sees the plain `require('cheerio')` call and bundles cheerio, to be evaluated
 * on that first call (a Lambda stage ships no `node_modules` for it: through `createRequire`
 * alone, a bundle asked for cheerio at run time and failed).
 */
export function cheerioModule(): Cheerio {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- the bundler's cue, explained above
  cheerio ??= (typeof require === 'function' ? require('cheerio') : createRequire(import.meta.url)('cheerio')) as Cheerio;
  return cheerio;
}

const globs = new Map<string, RegExp>();
function pageMatches(spec: FieldSpec, url: string): boolean {
  if (!spec.pages) return true;
  let re = globs.get(spec.pages);
  if (!re) {
    re = new RegExp(`^${spec.pages.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`, 'i');
    globs.set(spec.pages, re);
  }
  try {
    return re.test(new URL(url).pathname);
  } catch {
    return false;
  }
}

/** Whether any field runs on this page (the page is parsed for fields only then). */
export function fieldsApply(specs: FieldSpec[], url: string): boolean {
  return specs.some((s) => pageMatches(s, url));
}

function typed(raw: string, type: FieldType, base: string): string | number | undefined {
  const text = raw.replace(/\s+/g, ' ').trim();
  if (!text) return undefined;
  switch (type) {
    case 'string':
      return text;
    case 'number': {
      const m = /[-−]?\d[\d,]*(?:\.\d+)?|[-−]?\.\d+/.exec(text);
      const n = m ? Number(m[0].replace(/,/g, '').replace('−', '-')) : NaN;
      return Number.isFinite(n) ? n : undefined;
    }
    case 'date': {
      const t = Date.parse(text);
      return Number.isNaN(t) ? undefined : new Date(t).toISOString();
    }
    case 'url':
      try {
        const u = new URL(text, base);
        return /^https?:$/.test(u.protocol) ? u.href : undefined;
      } catch {
        return undefined;
      }
  }
}

const SKIP = new Set(['script', 'style', 'noscript', 'template']);
const INLINE = new Set([
  'a',
  'abbr',
  'b',
  'bdi',
  'bdo',
  'cite',
  'code',
  'data',
  'dfn',
  'em',
  'i',
  'kbd',
  'mark',
  'q',
  's',
  'samp',
  'small',
  'span',
  'strong',
  'sub',
  'sup',
  'time',
  'u',
  'var',
  'wbr',
]);

/** An element's text as a reader sees it: blocks (and `<br>`) apart, scripts and styles left out. */
function readableText(node: AnyNode, out: string[] = []): string[] {
  if (node.type === 'text') out.push(node.data);
  else if ('children' in node) {
    const name = 'name' in node ? node.name : '';
    if (SKIP.has(name)) return out;
    const block = name !== '' && !INLINE.has(name);
    if (block) out.push(' ');
    for (const child of node.children) readableText(child, out);
    if (block) out.push(' ');
  }
  return out;
}

/** The values of one field's matches, in document order (before typing). */
/** Compiled `match` patterns: a profile's few patterns, compiled once for every page. */
const matchers = new Map<string, LinearRegex>();
function matcherOf(pattern: string): LinearRegex {
  let re = matchers.get(pattern);
  if (!re) matchers.set(pattern, (re = linearRegex(pattern)));
  return re;
}

function rawValues($: CheerioAPI, spec: FieldSpec): string[] {
  const els = $(spec.selector).toArray();
  const values: string[] = [];
  for (const el of spec.list ? els : els.slice(0, 1)) {
    const v = spec.attr ? $(el).attr(spec.attr) : readableText(el).join('');
    if (v !== undefined) values.push(v);
  }
  if (!spec.match) return values;
  const re = matcherOf(spec.match);
  const out: string[] = [];
  for (const v of values) {
    if (spec.list) out.push(...re.all(v));
    else {
      const m = re.first(v);
      if (m !== undefined) return [m];
    }
  }
  return out;
}

/**
 * Runs the fields that apply to the page. A list keeps its distinct values in order; a field whose
 * selector matches nothing (or whose value does not read as its type) is absent.
 *
 * @example extractFields('<a href="tel:+15550100">Call</a>', 'https://a.test/', [fieldFromFlag('phone=a[href^="tel:"]@href', 0)]) // { phone: 'tel:+15550100' }
 */
export function extractFields(html: string | CheerioAPI, url: string, specs: FieldSpec[]): Record<string, FieldValue> {
  const active = specs.filter((s) => pageMatches(s, url));
  const out: Record<string, FieldValue> = {};
  if (!active.length) return out;
  const $ = typeof html === 'string' ? cheerioOf(html) : html;
  for (const spec of active) {
    const values = [
      ...new Set(
        rawValues($, spec)
          .map((v) => typed(v, spec.type, url))
          .filter((v) => v !== undefined),
      ),
    ];
    if (!values.length) continue;
    out[spec.name] = spec.list ? (values as string[] | number[]) : values[0]!;
  }
  return out;
}

/** A page as cheerio's `$`, parsed with the extraction's own parser (the same DOM the rest of trawl sees). */
export function cheerioOf(html: string): CheerioAPI {
  return cheerioModule().load(parseDocument(html));
}
