// Fields extracted with CSS selectors (cheerio): what a profile or `--field name=selector` asks of
// the pages it matches. Text, an attribute (`a.pdf@href`), a list (`[]`), an optional URL pattern,
// a type (string, number, date, url) and an optional regular expression that keeps part of a value.
// A selector that matches nothing yields an absent field; an invalid one fails at start-up.
import type { CheerioAPI } from 'cheerio';
import { createRequire } from 'node:module';
import type { AnyNode } from 'domhandler';
import { z } from 'zod';
import { CrawlConfigError } from '../errors.js';
import { parseDocument } from './dom.js';

export type FieldType = 'string' | 'number' | 'date' | 'url';
export type FieldValue = string | number | string[] | number[];

/** One field as written in a profile: the short form (`"a.pdf@href[]"`) or the object form. */
const FieldObject = z
  .object({
    /** CSS selector, optionally ending in `@attribute` and/or `[]` (every match, as a list). */
    selector: z.string().min(1),
    /** Read this attribute instead of the text (same as `@attr` in the selector). */
    attr: z
      .string()
      .regex(/^[a-zA-Z_:][-a-zA-Z0-9_:.]*$/, 'an attribute name such as href or content')
      .optional(),
    /** Every match as a list (same as `[]` after the selector). */
    list: z.boolean().optional(),
    /** Only on pages whose path matches this glob (`/contact*`, `/about*`). */
    pages: z.string().regex(/^[/*]/, 'a path pattern starts with / or *').optional(),
    type: z.enum(['string', 'number', 'date', 'url']).default('string'),
    /** Keeps the first match of this regular expression (its first group when it has one); with a list, every match. */
    match: z.string().min(1).optional(),
  })
  .strict();
export const FieldSpecSchema = z.union([z.string().min(1), FieldObject]);
export type FieldSpecInput = z.input<typeof FieldSpecSchema>;

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

const NAME = /^[a-zA-Z][a-zA-Z0-9_-]{0,63}$/;

/** `a.pdf@href[]` → selector `a.pdf`, attribute `href`, list: the `@` is the last one outside brackets and quotes. */
function splitShort(raw: string): { selector: string; attr?: string; list: boolean } {
  let s = raw.trim();
  const list = s.endsWith('[]');
  if (list) s = s.slice(0, -2).trimEnd();
  let depth = 0;
  let quote = '';
  let at = -1;
  for (let i = 0; i < s.length; i++) {
    const ch = s[i]!;
    if (quote) {
      if (ch === quote) quote = '';
    } else if (ch === '"' || ch === "'") quote = ch;
    else if (ch === '[' || ch === '(') depth++;
    else if (ch === ']' || ch === ')') depth--;
    else if (ch === '@' && depth === 0) at = i;
  }
  if (at < 0) return { selector: s, list };
  return { selector: s.slice(0, at).trim(), attr: s.slice(at + 1).trim(), list };
}

type Cheerio = typeof import('cheerio');
let cheerio: Cheerio | undefined;
let probeDoc: CheerioAPI | undefined;

/**
 * cheerio, loaded on first use: it costs a thread ~14 MB (measured RSS), and only crawls with
 * fields (and `onPage`'s `$`) use it. Node runs this module as ESM, where `require` is not
 * defined; a bundler sees the plain `require('cheerio')` call and bundles cheerio, to be evaluated
 * on that first call (a Lambda stage ships no `node_modules` for it: through `createRequire`
 * alone, a bundle asked for cheerio at run time and failed).
 */
function cheerioModule(): Cheerio {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- the bundler's cue, explained above
  cheerio ??= (typeof require === 'function' ? require('cheerio') : createRequire(import.meta.url)('cheerio')) as Cheerio;
  return cheerio;
}

function probe(selector: string): unknown {
  probeDoc ??= cheerioModule().load('<p></p>');
  return probeDoc(selector);
}

/** The selector's problem, with the character where it starts (after the longest prefix that is a valid selector). */
function selectorProblem(selector: string): string | undefined {
  try {
    probe(selector);
    return undefined;
  } catch (err) {
    let valid = 0;
    for (let i = selector.length - 1; i > 0; i--) {
      try {
        probe(selector.slice(0, i));
        valid = i;
        break;
      } catch {
        // a shorter prefix next
      }
    }
    return `${(err as Error).message} (at character ${valid + 1})`;
  }
}

/**
 * Checks and normalises one field; `where` says where it was written (`profile x.json, fields.phone`
 * or `--field #2`). Throws a CrawlConfigError naming the field, where it came from and what to write.
 */
export function fieldSpec(name: string, input: FieldSpecInput, where: string): FieldSpec {
  const fail = (problem: string) => new CrawlConfigError(`field "${name}" (${where}): ${problem}`);
  if (!NAME.test(name)) throw fail('a field name starts with a letter and holds letters, digits, - or _ (at most 64)');
  // Checked against the form it was written in, so the message names the key at fault.
  const parsed = (typeof input === 'object' && input !== null ? FieldObject : z.string().min(1)).safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw fail(`${issue.path.join('.') || 'value'}: ${issue.message}; write a selector string or { "selector": "…", "type": "number" }`);
  }
  const value = parsed.data;
  const obj = typeof value === 'string' ? { selector: value, type: 'string' as const } : value;
  const short = splitShort(obj.selector);
  const attr = obj.attr ?? short.attr;
  if (short.attr !== undefined && !/^[a-zA-Z_:][-a-zA-Z0-9_:.]*$/.test(short.attr)) throw fail(`"@${short.attr}" is not an attribute name (write a.pdf@href)`);
  if (!short.selector) throw fail('the selector is empty: write a CSS selector such as "address" or "a[href^=tel:]@href"');
  const problem = selectorProblem(short.selector);
  if (problem) throw fail(`invalid CSS selector ${JSON.stringify(short.selector)}: ${problem}`);
  if (obj.match) {
    try {
      new RegExp(obj.match, 'u');
    } catch (err) {
      throw fail(`match is not a regular expression: ${(err as Error).message}`);
    }
  }
  return {
    name,
    selector: short.selector,
    ...(attr ? { attr } : {}),
    list: obj.list ?? short.list,
    ...(obj.pages ? { pages: obj.pages } : {}),
    type: obj.type ?? 'string',
    ...(obj.match ? { match: obj.match } : {}),
  };
}

/** `--field name=selector` or `--field name:type=selector` (the short form: `@attr`, `[]`). */
export function fieldFromFlag(raw: string, index: number): FieldSpec {
  const where = `--field #${index + 1}`;
  const eq = raw.indexOf('=');
  if (eq <= 0)
    throw new CrawlConfigError(`${where} ${JSON.stringify(raw)}: write name=selector or name:type=selector, e.g. --field 'phone=a[href^="tel:"]@href'`);
  const [name, type] = raw.slice(0, eq).trim().split(':') as [string, string | undefined];
  if (type !== undefined && !['string', 'number', 'date', 'url'].includes(type))
    throw new CrawlConfigError(`${where}: unknown type "${type}" for field "${name}": use string, number, date or url`);
  return fieldSpec(name, { selector: raw.slice(eq + 1), type: (type ?? 'string') as FieldType }, where);
}

/** The fields of a profile (by name) and of the command line; a later field of the same name replaces an earlier one. */
export function fieldSpecs(profileFields: Record<string, FieldSpecInput>, profileSource: string, flags: string[]): FieldSpec[] {
  const specs = new Map<string, FieldSpec>();
  for (const [name, input] of Object.entries(profileFields)) specs.set(name, fieldSpec(name, input, `${profileSource}, fields.${name}`));
  flags.forEach((raw, i) => {
    const spec = fieldFromFlag(raw, i);
    specs.set(spec.name, spec);
  });
  return [...specs.values()];
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
function rawValues($: CheerioAPI, spec: FieldSpec): string[] {
  const els = $(spec.selector).toArray();
  const values: string[] = [];
  for (const el of spec.list ? els : els.slice(0, 1)) {
    const v = spec.attr ? $(el).attr(spec.attr) : readableText(el).join('');
    if (v !== undefined) values.push(v);
  }
  if (!spec.match) return values;
  const out: string[] = [];
  for (const v of values) {
    const re = new RegExp(spec.match, spec.list ? 'gu' : 'u');
    for (const m of spec.list ? v.matchAll(re) : [re.exec(v)]) if (m) out.push(m[1] ?? m[0]);
    if (!spec.list && out.length) break;
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
