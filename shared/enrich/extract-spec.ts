// What a crawl extracts each page to (`--extract-schema`, `--extract-prompt`), read and checked
// apart from the extraction itself: the API checks a job's spec with no tokenizer loaded.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Ajv, type AnySchema, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { errorMessage, UsageError } from '../errors.js';

/** What a crawl asks of each page: a JSON Schema, and what to look for beyond it. */
export interface ExtractSpec {
  schema: Record<string, unknown>;
  prompt?: string;
}

/**
 * The crawl's extract spec from its settings: the schema as an object, its JSON text, or a file
 * holding it; undefined when none is set. Bad input is a UsageError naming it.
 */
export function extractSpecOf(settings: { extractSchema?: string | Record<string, unknown>; extractPrompt?: string }): ExtractSpec | undefined {
  const { extractSchema: given = '', extractPrompt = '' } = settings;
  const prompt = extractPrompt.trim() || undefined;
  if (typeof given === 'object') {
    checkSchemaSize(given);
    return { schema: given, prompt };
  }
  const text = given.trim();
  if (!text) return undefined;
  let json = text;
  if (!text.startsWith('{')) {
    try {
      json = readFileSync(text, 'utf8');
    } catch (err) {
      throw new UsageError(`the extract schema file ${text} cannot be read (${errorMessage(err)}): give a JSON Schema file, or the schema's JSON itself`);
    }
  }
  let schema: unknown;
  try {
    schema = JSON.parse(json);
  } catch (err) {
    throw new UsageError(`the extract schema${text.startsWith('{') ? '' : ` in ${text}`} is not JSON (${errorMessage(err)}): give a JSON Schema object`);
  }
  if (!schema || typeof schema !== 'object' || Array.isArray(schema)) throw new UsageError('the extract schema must be a JSON object (a JSON Schema)');
  checkSchemaSize(schema);
  return { schema: schema as Record<string, unknown>, prompt };
}

/** The largest extract schema trawl takes: its JSON's characters, its nesting and its keys in all. */
export const SCHEMA_LIMITS = { chars: 64 * 1024, depth: 32, keys: 5000 } as const;

/**
 * Refuses a schema past SCHEMA_LIMITS before anything compiles it: a schema is compiled where a
 * request is answered, and one of a megabyte stalls a server for a minute.
 */
export function checkSchemaSize(schema: unknown): void {
  const chars = JSON.stringify(schema)?.length ?? 0;
  if (chars > SCHEMA_LIMITS.chars)
    throw new UsageError(
      `the extract schema is ${chars.toLocaleString('en')} characters of JSON, over the limit of ${SCHEMA_LIMITS.chars.toLocaleString('en')}: describe fewer fields, or extract in several crawls`,
    );
  let keys = 0;
  const stack: Array<[unknown, number]> = [[schema, 1]];
  while (stack.length) {
    const [node, depth] = stack.pop()!;
    if (!node || typeof node !== 'object') continue;
    if (depth > SCHEMA_LIMITS.depth) throw new UsageError(`the extract schema nests deeper than ${SCHEMA_LIMITS.depth} levels: flatten it`);
    const children = Array.isArray(node) ? node : Object.values(node);
    if (!Array.isArray(node)) keys += children.length;
    if (keys > SCHEMA_LIMITS.keys)
      throw new UsageError(`the extract schema has more than ${SCHEMA_LIMITS.keys.toLocaleString('en')} keys: describe fewer fields`);
    for (const child of children) stack.push([child, depth + 1]);
  }
}

/** A short hash of a spec: a page extracted to another schema or prompt is extracted again. */
export function specHash(spec: ExtractSpec): string {
  return createHash('sha256')
    .update(JSON.stringify([spec.schema, spec.prompt ?? '']))
    .digest('hex')
    .slice(0, 16);
}

/** A schema's validator: Ajv for its draft (2020-12 when it says so, else draft-07), formats checked. */
export function schemaValidator(schema: Record<string, unknown>): ValidateFunction {
  checkSchemaSize(schema);
  const draft2020 = typeof schema.$schema === 'string' && schema.$schema.includes('2020-12');
  const ajv = draft2020 ? new Ajv2020({ allErrors: true, strict: false }) : new Ajv({ allErrors: true, strict: false });
  addFormats.default(ajv);
  try {
    return ajv.compile(schema as AnySchema);
  } catch (err) {
    throw new UsageError(`the extract schema is not a valid JSON Schema: ${errorMessage(err)}`);
  }
}
