// The fields a profile or `--field` asks for, checked and normalised into FieldSpecs (fields.ts
// runs them). Apart from fields.ts because it needs zod, which the extraction worker then does not
// load: ~3.4 MB of live heap and ~6 MiB of RSS in every isolate that imports it.
import { linearRegex } from '../util/linear-regex.js';
import type { CheerioAPI } from 'cheerio';
import { z } from 'zod';
import { CrawlConfigError } from '../errors.js';
import { cheerioModule, type FieldSpec, type FieldType } from './fields.js';

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

let probeDoc: CheerioAPI | undefined;

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
      linearRegex(obj.match);
    } catch (err) {
      throw fail(`match is not a regular expression trawl can match: ${(err as Error).message}`);
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
