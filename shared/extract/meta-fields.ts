// The text fields of a page's metadata, apart from their extraction: the stores read them with no
// parser loaded.

/** The text fields of page metadata, each looked up in every source layer (JSON-LD first). */
export const META_FIELDS = ['title', 'description', 'author', 'published', 'modified', 'language', 'canonicalUrl', 'siteName', 'contentType'] as const;
export type MetaField = (typeof META_FIELDS)[number];

/** The text fields of page metadata; `contentType` is the Schema.org type (`Article`, `Product`, …) or og:type. */
export type MetadataFields = Partial<Record<MetaField, string>>;

/** The text fields of page metadata in `source` (a record, or stored metadata); anything else left out. */
export function metaFieldsOf(source: object | undefined): MetadataFields {
  const out: MetadataFields = {};
  for (const field of META_FIELDS) {
    const value = (source as Partial<Record<string, unknown>> | undefined)?.[field];
    if (typeof value === 'string') out[field] = value;
  }
  return out;
}
