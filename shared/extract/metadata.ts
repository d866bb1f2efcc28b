import { attr, textOf, type Doc } from './dom.js';

/** The text fields of page metadata; `contentType` is the Schema.org type (`Article`, `Product`, …) or og:type. */
export type MetadataFields = Partial<Record<MetaField, string>>;

export interface PageMetadata extends MetadataFields {
  wordCount: number;
  readingTimeMinutes: number;
  /** Which source gave each field, for debugging conflicts. */
  sources: Partial<Record<MetaField, MetaSource>>;
}

export type MetaField = 'title' | 'description' | 'author' | 'published' | 'modified' | 'language' | 'canonicalUrl' | 'siteName' | 'contentType';
export type MetaSource = 'json-ld' | 'opengraph' | 'twitter' | 'meta' | 'heuristic';
type Layer = Partial<Record<MetaField, string>>;

/** Reading speed behind reading time: 230 words a minute, the commonly cited adult average for screens. */
const WORDS_PER_MINUTE = 230;
const CONTENT_TYPES =
  /^(Article|NewsArticle|BlogPosting|Report|ScholarlyArticle|TechArticle|Product|Recipe|Event|Review|WebPage|AboutPage|FAQPage|QAPage|Course|Book|Movie|VideoObject|JobPosting|LocalBusiness|Organization|Person|HowTo|SoftwareApplication|DiscussionForumPosting|LiveBlogPosting)$/;

type JsonLd = Record<string, unknown>;

function ldItems(doc: Doc): JsonLd[] {
  const items: JsonLd[] = [];
  const visit = (v: unknown) => {
    if (Array.isArray(v)) v.forEach(visit);
    else if (v && typeof v === 'object') {
      const o = v as JsonLd;
      if (Array.isArray(o['@graph'])) visit(o['@graph']);
      if (o['@type']) items.push(o);
    }
  };
  for (const script of doc.querySelectorAll('script[type="application/ld+json"]')) {
    try {
      visit(JSON.parse(script.textContent ?? ''));
    } catch {
      // malformed JSON-LD is common in the wild; the other layers still apply
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

function jsonLdLayer(doc: Doc): Layer {
  const items = ldItems(doc);
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

function metaContent(doc: Doc, key: string): string | undefined {
  const el = doc.querySelector(`meta[property="${key}"], meta[name="${key}"]`);
  return attr(el, 'content');
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
    title: textOf(doc.querySelector('title')) || undefined,
    description: metaContent(doc, 'description'),
    author: metaContent(doc, 'author'),
    published: metaContent(doc, 'date') ?? metaContent(doc, 'dc.date') ?? metaContent(doc, 'DC.date.issued') ?? metaContent(doc, 'pubdate'),
    modified: metaContent(doc, 'last-modified') ?? metaContent(doc, 'dcterms.modified'),
    language: attr(doc.documentElement, 'lang') ?? attr(doc.querySelector('meta[http-equiv="content-language" i]'), 'content'),
    canonicalUrl: attr(doc.querySelector('link[rel~="canonical"]'), 'href'),
  };
}

function heuristicLayer(doc: Doc, fallback: { title?: string; byline?: string }): Layer {
  const time = doc.querySelector('time[datetime]');
  const byline = doc.querySelector('[rel="author"], .byline, .author, [itemprop="author"]');
  return {
    title: textOf(doc.querySelector('h1')) || fallback.title,
    author: fallback.byline ?? (textOf(byline).replace(/^by\s+/i, '') || undefined),
    published: attr(time, 'datetime'),
  };
}

/** Minutes to read `words` words: at least one for any text at all. */
export function readingTimeMinutes(words: number): number {
  return Math.max(words > 0 ? 1 : 0, Math.round(words / WORDS_PER_MINUTE));
}

export function countWords(text: string): number {
  const m = text.match(/[\p{L}\p{N}][\p{L}\p{N}'’-]*/gu);
  return m ? m.length : 0;
}

/**
 * Page metadata with the priority JSON-LD > OpenGraph > Twitter cards > `<meta>` > heuristics,
 * field by field. Relative canonical URLs are resolved against the page.
 */
export function extractMetadata(doc: Doc, pageUrl: string, mainText: string, fallback: { title?: string; byline?: string } = {}): PageMetadata {
  const layers: Array<[MetaSource, Layer]> = [
    ['json-ld', jsonLdLayer(doc)],
    ['opengraph', openGraphLayer(doc)],
    ['twitter', twitterLayer(doc)],
    ['meta', metaLayer(doc)],
    ['heuristic', heuristicLayer(doc, fallback)],
  ];
  const out: Partial<Record<MetaField, string>> = {};
  const sources: PageMetadata['sources'] = {};
  for (const field of ['title', 'description', 'author', 'published', 'modified', 'language', 'canonicalUrl', 'siteName', 'contentType'] as MetaField[]) {
    for (const [source, layer] of layers) {
      const value = layer[field];
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
  const wordCount = countWords(mainText);
  return { ...out, wordCount, readingTimeMinutes: readingTimeMinutes(wordCount), sources };
}
