// The fields a page carries from its extraction to its search hits: the one list the enrichment
// candidates, the enrichment records of both stores, the hits and the API's hit schema are made
// from. A field named here is read from the page's stored metadata (every text field of
// `MetaField` is kept there), kept with its enrichment record, and shown on each hit, in both
// runtimes, `/search` and the MCP search tool, with the description below in the API's schema.
import type { MetaField } from '../extract/meta-fields.js';

export const HIT_FIELDS = {
  language: "The page's language (BCP 47), from its markup.",
  published: 'When the page says it was first published (ISO 8601).',
} as const satisfies Partial<Record<MetaField, string>>;

export type HitField = keyof typeof HIT_FIELDS;

/** A page's `HIT_FIELDS` that it has. */
export type PageFields = Partial<Record<HitField, string>>;

/** The `HIT_FIELDS` of `source` (an extraction's metadata, a candidate, a record) that hold text; nothing else. */
export function pageFieldsOf(source: object | undefined): PageFields {
  const out: PageFields = {};
  for (const field of Object.keys(HIT_FIELDS) as HitField[]) {
    const value = (source as Partial<Record<string, unknown>> | undefined)?.[field];
    if (typeof value === 'string') out[field] = value;
  }
  return out;
}
