import { META_FIELDS, type MetaField, type MetadataFields } from './meta-fields.js';
import { attr, documentElement, rawText, selectEvery, selectFirst, textOf, type Doc, type El } from './dom.js';

export interface PageMetadata extends MetadataFields {
  wordCount: number;
  readingTimeMinutes: number;
  /** Which source gave each field, for debugging conflicts. */
  sources: Partial<Record<MetaField, MetaSource>>;
}

export type MetaSource = 'json-ld' | 'opengraph' | 'twitter' | 'meta' | 'heuristic';
type Layer = Partial<Record<MetaField, string>>;

/** Reading speed behind reading time: 230 words a minute, the commonly cited adult average for screens. */
const WORDS_PER_MINUTE = 230;
const CONTENT_TYPES =
  /^(Article|NewsArticle|BlogPosting|Report|ScholarlyArticle|TechArticle|Product|Recipe|Event|Review|WebPage|AboutPage|FAQPage|QAPage|Course|Book|Movie|VideoObject|JobPosting|LocalBusiness|Organization|Person|HowTo|SoftwareApplication|DiscussionForumPosting|LiveBlogPosting)$/;

type JsonLd = Record<string, unknown>;

/** Where a metadata part that failed is recorded (the extraction's `problems`). */
export interface MetadataProblems {
  problems?: Array<{ part: 'json-ld' | 'date'; error: string }>;
}

function ldItems(doc: Doc, notes: MetadataProblems): JsonLd[] {
  const items: JsonLd[] = [];
  const visit = (v: unknown) => {
    if (Array.isArray(v)) v.forEach(visit);
    else if (v && typeof v === 'object') {
      const o = v as JsonLd;
      if (Array.isArray(o['@graph'])) visit(o['@graph']);
      if (o['@type']) items.push(o);
    }
  };
  for (const script of selectEvery(doc, 'script[type="application/ld+json" i]')) {
    const source = rawText(script).trim();
    if (!source) continue;
    try {
      visit(JSON.parse(source));
    } catch (err) {
      // Malformed JSON-LD is common in the wild: recorded, and the other layers still apply.
      notes.problems?.push({ part: 'json-ld', error: `a JSON-LD block is not JSON (${(err as Error).message.slice(0, 120)})` });
    }
  }
  return items;
}

function typeOf(item: JsonLd): string | undefined {
  const t = item['@type'];
  const types = (Array.isArray(t) ? t : [t]).filter((x): x is string => typeof x === 'string');
  return types.find((x) => CONTENT_TYPES.test(x)) ?? types[0];
}

function nameOf(v: unknown): string | undefined {
  if (typeof v === 'string') return v.trim() || undefined;
  if (Array.isArray(v)) return v.map(nameOf).filter(Boolean).join(', ') || undefined;
  if (v && typeof v === 'object') return nameOf((v as JsonLd).name);
  return undefined;
}

function jsonLdLayer(doc: Doc, notes: MetadataProblems): Layer {
  const items = ldItems(doc, notes);
  const main =
    items.find((i) => CONTENT_TYPES.test(typeOf(i) ?? '') && typeOf(i) !== 'WebPage' && typeOf(i) !== 'Organization' && typeOf(i) !== 'Person') ??
    items.find((i) => typeOf(i) === 'WebPage');
  if (!main) return {};
  const str = (v: unknown) => (typeof v === 'string' ? v.trim() || undefined : undefined);
  const mainEntity = main.mainEntityOfPage;
  return {
    title: str(main.headline) ?? str(main.name),
    description: str(main.description),
    author: nameOf(main.author) ?? nameOf(main.creator),
    published: str(main.datePublished) ?? str(main.uploadDate) ?? str(main.startDate),
    modified: str(main.dateModified),
    language: str(main.inLanguage),
    canonicalUrl: str(main.url) ?? (typeof mainEntity === 'string' ? mainEntity : str((mainEntity as JsonLd | undefined)?.['@id'])),
    siteName: nameOf(main.publisher) ?? nameOf(items.find((i) => typeOf(i) === 'WebSite')?.name),
    contentType: typeOf(main),
  };
}

/** A document's `<meta>` elements by lower-cased `property` and `name`, the first in document order for each: one pass, not one a key. */
const metasOf = new WeakMap<Doc, Map<string, El>>();

/** The content of the first `meta[property="key" i], meta[name="key" i]`. */
function metaContent(doc: Doc, key: string): string | undefined {
  let metas = metasOf.get(doc);
  if (!metas) {
    metas = new Map();
    for (const el of selectEvery(doc, 'meta'))
      for (const name of [el.attribs.property, el.attribs.name]) {
        const k = name?.toLowerCase();
        if (k !== undefined && !metas.has(k)) metas.set(k, el);
      }
    metasOf.set(doc, metas);
  }
  return attr(metas.get(key.toLowerCase()), 'content');
}

function openGraphLayer(doc: Doc): Layer {
  const m = (k: string) => metaContent(doc, k);
  const ogType = m('og:type');
  return {
    title: m('og:title'),
    description: m('og:description'),
    siteName: m('og:site_name'),
    canonicalUrl: m('og:url'),
    author: m('article:author'),
    published: m('article:published_time'),
    modified: m('article:modified_time') ?? m('og:updated_time'),
    language: m('og:locale')?.replace('_', '-'),
    contentType: ogType ? ogType.charAt(0).toUpperCase() + ogType.slice(1) : undefined,
  };
}

function twitterLayer(doc: Doc): Layer {
  return { title: metaContent(doc, 'twitter:title'), description: metaContent(doc, 'twitter:description'), author: metaContent(doc, 'twitter:creator') };
}

function metaLayer(doc: Doc): Layer {
  return {
    title: textOf(selectFirst(doc, 'title')) || undefined,
    description: metaContent(doc, 'description'),
    author: metaContent(doc, 'author'),
    published: metaContent(doc, 'date') ?? metaContent(doc, 'dc.date') ?? metaContent(doc, 'DC.date.issued') ?? metaContent(doc, 'pubdate'),
    modified: metaContent(doc, 'last-modified') ?? metaContent(doc, 'dcterms.modified'),
    language: attr(documentElement(doc), 'lang') ?? attr(selectFirst(doc, 'meta[http-equiv="content-language" i]'), 'content'),
    canonicalUrl: attr(selectFirst(doc, 'link[rel~="canonical"]'), 'href'),
  };
}

function heuristicLayer(doc: Doc): Layer {
  const time = selectFirst(doc, 'time[datetime]');
  const byline = selectFirst(doc, '[rel="author"], .byline, .author, [itemprop="author"]');
  return {
    title: textOf(selectFirst(doc, 'h1')) || undefined,
    author:
      textOf(byline)
        .replace(/^by\s+/i, '')
        .slice(0, 200) || undefined,
    published: attr(time, 'datetime'),
  };
}

/** What stands before a name in a byline, and words that are never a person's name on their own. */
const BYLINE_PREFIX =
  /^(?:(?:view|see|read)\s+(?:all\s+)?(?:posts|articles|stories)\s+by|(?:posted|written|published|words|photos?|text|story)\s+by|by|author|authors|von|par|por)\s*[:\-–—]?\s+/i;
const NOT_NAMES = new Set([
  'admin',
  'administrator',
  'webmaster',
  'root',
  'user',
  'anonymous',
  'unknown',
  'guest',
  'null',
  'undefined',
  'none',
  'n/a',
  'no author',
  'no name',
  'not available',
  'unknown author',
  'author',
]);

/**
 * An author field that is a name (or a short list of names) or nothing: a byline's lead-in ("View
 * all posts by", "By") is dropped; a URL, a handle (`@jane`), a sentence, a date or a placeholder
 * is no name. `undefined` lets the next metadata source answer.
 */
export function authorName(raw: string | undefined): string | undefined {
  let v = raw?.replace(/\s+/g, ' ').trim();
  // "Jane Doe | Staff Writer": the name, not the role.
  v = v?.split(/\s+[|–—]\s+/)[0];
  for (let i = 0; v && i < 2; i++) v = v.replace(BYLINE_PREFIX, '').trim();
  if (!v || v.length > 120) return undefined;
  if (/^(https?:|www\.)|\/\/|[@<>{}|]|\d{3,}/i.test(v)) return undefined;
  const names = v.split(/\s*(?:,|;|&|\band\b|\bund\b|\bet\b|\by\b)\s*/i).filter(Boolean);
  if (names.length === 0 || names.length > 6) return undefined;
  for (const name of names) {
    const words = name.split(' ');
    if (words.length > 5 || NOT_NAMES.has(name.toLowerCase())) return undefined;
    // A name's words start with a letter (a sentence's punctuation is no name).
    if (!words.every((w) => /^[\p{L}][\p{L}\p{M}.'’-]*$/u.test(w))) return undefined;
  }
  return v;
}

/**
 * A date as ISO 8601 (`2024-05-01T10:00:00.000Z`, or `2024-05-01` when only the day is given);
 * undefined when it does not parse.
 */
export function isoDate(value: string): string | undefined {
  const v = value.trim();
  if (/^\d{4}-\d{2}-\d{2}$/.test(v)) return Number.isNaN(Date.parse(v)) ? undefined : v;
  const t = Date.parse(v);
  if (Number.isNaN(t)) return undefined;
  const year = new Date(t).getUTCFullYear();
  return year >= 1900 && year <= 2200 ? new Date(t).toISOString() : undefined;
}

/** Minutes to read `words` words: at least one for any text at all. */
export function readingTimeMinutes(words: number): number {
  return Math.max(words > 0 ? 1 : 0, Math.round(words / WORDS_PER_MINUTE));
}

export function countWords(text: string): number {
  const m = text.match(/[\p{L}\p{N}][\p{L}\p{N}'’-]*/gu);
  return m ? m.length : 0;
}

/** The metadata fields of a page and where each came from, before the word count of its main text. */
export type MetadataFieldsWithSources = MetadataFields & { sources: PageMetadata['sources'] };

/**
 * Page metadata fields with the priority JSON-LD > OpenGraph > Twitter cards > `<meta>` > heuristics,
 * field by field. Relative canonical URLs are resolved against the page; dates become ISO 8601, and a
 * date that does not parse is dropped and recorded in `notes.problems`.
 */
export function metadataFields(doc: Doc, pageUrl: string, notes: MetadataProblems = {}): MetadataFieldsWithSources {
  const layers: Array<[MetaSource, Layer]> = [
    ['json-ld', jsonLdLayer(doc, notes)],
    ['opengraph', openGraphLayer(doc)],
    ['twitter', twitterLayer(doc)],
    ['meta', metaLayer(doc)],
    ['heuristic', heuristicLayer(doc)],
  ];
  const out: Partial<Record<MetaField, string>> = {};
  const sources: PageMetadata['sources'] = {};
  for (const field of META_FIELDS) {
    for (const [source, layer] of layers) {
      const value = field === 'author' ? authorName(layer[field]) : layer[field];
      if (value) {
        out[field] = value;
        sources[field] = source;
        break;
      }
    }
  }
  if (out.canonicalUrl) {
    try {
      out.canonicalUrl = new URL(out.canonicalUrl, pageUrl).href;
    } catch {
      delete out.canonicalUrl;
    }
  }
  for (const field of ['published', 'modified'] as const) {
    const raw = out[field];
    if (raw === undefined) continue;
    const iso = isoDate(raw);
    if (iso) out[field] = iso;
    else {
      notes.problems?.push({ part: 'date', error: `${field} "${raw.slice(0, 80)}" (from ${sources[field]}) is not a date` });
      delete out[field];
      delete sources[field];
    }
  }
  return { ...out, sources };
}

/** The metadata fields with the word count and reading time of the main text. */
export function withWordCount(fields: MetadataFieldsWithSources, mainText: string): PageMetadata {
  const wordCount = countWords(mainText);
  return { ...fields, wordCount, readingTimeMinutes: readingTimeMinutes(wordCount) };
}

/** Page metadata: {@link metadataFields} plus the word count and reading time of `mainText`. */
export function extractMetadata(doc: Doc, pageUrl: string, mainText: string, notes: MetadataProblems = {}): PageMetadata {
  return withWordCount(metadataFields(doc, pageUrl, notes), mainText);
}
