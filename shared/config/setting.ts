import { z } from 'zod';

/* The building blocks of the settings table: a setting's description and the common value kinds. */

export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;

/** A whole number in [min, max]; strings from flags and the environment are coerced. */
export function int(min: number, max: number) {
  return { schema: z.coerce.number().int().min(min).max(max), expects: `a whole number from ${min} to ${max}` };
}

/** A duration in milliseconds, in [min, max]. */
export function ms(min: number, max: number) {
  return { schema: z.coerce.number().int().min(min).max(max), expects: `a number of milliseconds from ${min} to ${max}` };
}

export const list = { schema: z.array(z.string().min(1)), expects: 'a list of non-empty values' };

export interface Setting<S extends z.ZodType> {
  schema: S;
  default: z.infer<S>;
  flag?: string;
  env: string;
  /** What the value means, for --help and error messages. */
  help: string;
  /** What a valid value looks like, for error messages ("a whole number from 1 to 100"). */
  expects: string;
  /** Boolean flags take no value; list flags repeat. */
  type: 'string' | 'boolean' | 'list';
}

export function setting<S extends z.ZodType>(s: Setting<S>): Setting<S> {
  return s;
}

export const bool = { schema: z.boolean(), expects: 'true or false' };
