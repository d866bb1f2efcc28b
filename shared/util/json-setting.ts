// A setting whose value is JSON: the object itself (library, API), its JSON text, or a file that
// holds it (CLI, environment).
import { readFileSync } from 'node:fs';
import type { z } from 'zod';
import { errorMessage, UsageError } from '../errors.js';

/** A JSON setting's value: the object itself, its JSON text, or a file that holds it. */
export function jsonSettingValue(what: string, given: unknown): unknown {
  if (typeof given !== 'string') return given;
  const text = given.trim();
  if (!text) return undefined;
  let json = text;
  if (!/^[[{]/.test(text)) {
    try {
      json = readFileSync(text, 'utf8');
    } catch (err) {
      throw new UsageError(`the ${what} file ${text} cannot be read (${errorMessage(err)})`);
    }
  }
  try {
    return JSON.parse(json) as unknown;
  } catch (err) {
    throw new UsageError(`the ${what}${text === json ? '' : ` in ${text}`} is not JSON (${errorMessage(err)})`);
  }
}

/** The value checked against its schema: a UsageError naming the first problem otherwise. */
export function checkedSetting<T>(what: string, schema: z.ZodType<T>, value: unknown): T {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new UsageError(`the ${what} are not valid at ${issue?.path.join('.') || '(top)'}: ${issue?.message ?? 'unexpected value'}`);
}
