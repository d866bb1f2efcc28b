import { realCalendarDate } from '../util/calendar-date.js';
import { z } from '@hono/zod-openapi';
import { HIT_FIELDS, type HitField } from '../ports/page-fields.js';

/** Longest query a search takes (characters). */
export const MAX_QUERY_CHARS = 500;
/** Most hits a search page returns. */
export const MAX_SEARCH_LIMIT = 50;
/** How deep a cursor may page into one search's results. */
export const MAX_SEARCH_WINDOW = 200;
/** Links listed per direction on a page view. */
export const MAX_PAGE_LINKS = 200;
/** Fetches listed in a page's history. */
export const MAX_HISTORY = 100;
/** Characters of a page's markdown in its view. */
export const MAX_MARKDOWN_CHARS = 64 * 1024;

export const ErrorBody = z.object({ error: z.string().openapi({ example: 'invalid query parameter "limit": expected a number at most 50' }) }).openapi('Error');

export const pageId = z
  .string()
  .regex(/^[0-9a-f]{32}$/, 'expected a page id: 32 hexadecimal characters, as in a search hit or /graph/top')
  .openapi({ param: { name: 'id', in: 'path' }, example: '0f1e2d3c4b5a69788796a5b4c3d2e1f0' });

export const PageParams = z.object({ id: pageId });
export const RunParams = z.object({
  id: z.coerce
    .number()
    .int()
    .min(1)
    .openapi({ param: { name: 'id', in: 'path' }, example: 1 }),
});

const isoDate = z
  .string()
  .regex(/^\d{4}(-\d{2}(-\d{2})?)?$/, 'expected a date: YYYY, YYYY-MM or YYYY-MM-DD')
  .refine(realCalendarDate, 'expected a date of the calendar (no 2026-02-31): YYYY, YYYY-MM or YYYY-MM-DD');

export const SearchQuery = z.object({
  q: z.string().trim().min(1, 'expected a query: q=words').max(MAX_QUERY_CHARS).openapi({ example: 'sourdough starter' }),
  tags: z
    .string()
    .regex(/^#?[a-z0-9-]+(,#?[a-z0-9-]+)*$/, 'expected tags separated by commas: #kebab-case,#other')
    .optional()
    .openapi({ description: 'Every tag must be on the page; comma-separated, `#` optional.', example: '#baking' }),
  domain: z
    .string()
    .regex(/^[a-z0-9.-]+(:\d+)?$/i, 'expected a host name: example.com')
    .max(253)
    .optional(),
  lang: z
    .string()
    .regex(/^[a-z]{2,3}(-[a-z0-9]+)*$/i, 'expected a language code: en or en-GB')
    .optional(),
  since: isoDate.optional(),
  until: isoDate.optional(),
  mode: z.enum(['hybrid', 'text', 'vector']).default('hybrid'),
  limit: z.coerce.number().int().min(1).max(MAX_SEARCH_LIMIT).default(10),
  cursor: z.string().max(200).optional().openapi({ description: "The previous page's `next`." }),
});

const MatchReason = z.object({
  terms: z.array(z.string()),
  textRank: z.number().optional(),
  bm25: z.number().optional(),
  vectorRank: z.number().optional(),
  similarity: z.number().optional(),
  fused: z.number(),
  listing: z
    .number()
    .optional()
    .openapi({ description: 'How much the page reads as a listing (0–1), when that lowered its score: listings rank below content.' }),
});

/** A page's values for the crawl's extract schema. */
export const Extracted = z
  .object({
    data: z.unknown().optional().openapi({ description: "The values, valid against the crawl's extract schema." }),
    sources: z
      .record(z.string(), z.array(z.string()))
      .optional()
      .openapi({ description: 'For each value (by JSON Pointer, such as /price), the ids of the page chunks it came from.' }),
    error: z.string().optional().openapi({ description: 'Why there are no values: the provider failed, or its answer did not match the schema twice.' }),
  })
  .openapi('Extracted');

/** The fields a hit shows from its page's extraction (`HIT_FIELDS`), each optional text. */
function hitFieldSchemas(): Record<HitField, z.ZodOptional<z.ZodString>> {
  const entries = Object.entries(HIT_FIELDS).map(([field, description]) => [field, z.string().optional().openapi({ description })]);
  return Object.fromEntries(entries) as Record<HitField, z.ZodOptional<z.ZodString>>;
}

export const SearchHit = z
  .object({
    rank: z.number(),
    urlId: z.string(),
    url: z.string(),
    host: z.string(),
    title: z.string(),
    summary: z.string(),
    tags: z.array(z.string()),
    ...hitFieldSchemas(),
    inlinks: z.array(z.object({ anchor: z.string(), count: z.number() })),
    extracted: Extracted.optional(),
    why: MatchReason,
  })
  .openapi('SearchHit');

export const SearchBody = z
  .object({
    query: z.string(),
    mode: z.enum(['hybrid', 'text', 'vector']),
    hits: z.array(SearchHit),
    textMatches: z.number(),
    vectorMatches: z.number(),
    tookMs: z.number(),
    next: z.string().optional().openapi({ description: 'Pass as `cursor` for the next page; absent on the last one.' }),
  })
  .openapi('SearchResult');

const Link = z
  .object({
    fromId: z.string(),
    fromUrl: z.string(),
    toId: z.string(),
    toUrl: z.string(),
    toPageId: z.string().optional(),
    anchor: z.string(),
    context: z.string(),
    section: z.enum(['nav', 'header', 'footer', 'sidebar', 'body']),
    rel: z.string(),
    internal: z.boolean(),
    nofollow: z.boolean(),
  })
  .openapi('Link');

export const PageBody = z
  .object({
    id: z.string(),
    url: z.string(),
    host: z.string(),
    status: z.number(),
    mime: z.string(),
    fetchedAt: z.number(),
    bytes: z.number(),
    title: z.string().optional(),
    canonicalUrl: z.string().optional(),
    duplicateOf: z.string().optional(),
    fetcher: z.enum(['http', 'browser']).optional(),
    extraction: z
      .object({
        language: z.string().optional(),
        published: z.string().optional(),
        description: z.string().optional(),
        wordCount: z.number(),
        readingMinutes: z.number(),
        method: z.string(),
        nearDuplicateOf: z.string().optional(),
        textDuplicateOf: z.string().optional(),
        metadata: z.record(z.string(), z.unknown()),
        markdown: z.string(),
        markdownTruncated: z.boolean(),
      })
      .optional(),
    enrichment: z
      .object({ summary: z.string(), tags: z.array(z.string()), model: z.string(), updatedAt: z.number(), extracted: Extracted.optional() })
      .optional(),
    inlinks: z.array(Link),
    inlinksTotal: z.number(),
    outlinks: z.array(Link),
    outlinksTotal: z.number(),
    history: z.array(
      z.object({
        runId: z.number(),
        fetchedAt: z.number(),
        status: z.number().optional(),
        contentHash: z.string().optional(),
        error: z.string().optional(),
        changed: z.boolean(),
      }),
    ),
  })
  .openapi('Page');

export const TopQuery = z.object({ limit: z.coerce.number().int().min(1).max(200).default(20) });
export const TopBody = z
  .object({
    pages: z.array(
      z.object({ urlId: z.string(), url: z.string(), title: z.string().optional(), inlinks: z.number(), hosts: z.number(), pagerank: z.number() }),
    ),
  })
  .openapi('TopPages');

export const NeighbourhoodQuery = z.object({
  depth: z
    .enum(['1', '2'])
    .default('1')
    .transform((d) => Number(d) as 1 | 2),
});
export const NeighbourhoodBody = z
  .object({
    centre: z.string(),
    nodes: z.array(z.object({ id: z.string(), url: z.string(), depth: z.number(), title: z.string().optional(), fetched: z.boolean() })),
    edges: z.array(z.object({ from: z.string(), to: z.string(), anchor: z.string(), section: z.string() })),
    truncated: z.boolean(),
  })
  .openapi('Neighbourhood');

const RunBrief = z.object({
  id: z.number(),
  status: z.string(),
  startedAt: z.number(),
  finishedAt: z.number().optional(),
  seeds: z.array(z.string()),
});
export const RunsBody = z
  .object({
    runs: z.array(RunBrief),
    next: z.number().optional().openapi({ description: 'Where the next page of older runs starts: pass it as `before`.' }),
  })
  .openapi('Runs');
export const RunsQuery = z.object({
  limit: z.coerce.number().int().min(1).max(1000).default(100),
  before: z.coerce.number().int().min(1).optional().openapi({ description: 'Only runs numbered below this (the `next` of the page before).' }),
});
export const RunBody = z
  .object({
    id: z.number(),
    status: z.string(),
    startedAt: z.number(),
    finishedAt: z.number().optional(),
    seeds: z.array(z.string()),
    requests: z.number(),
    pagesStored: z.number(),
    unchanged: z.number(),
    duplicates: z.number(),
    bytes: z.number(),
    urlsByState: z.record(z.string(), z.number()),
    fetchesByStatus: z.record(z.string(), z.number()),
    skipsByReason: z.record(z.string(), z.number()),
    hostsParked: z.array(z.object({ host: z.string(), reason: z.string() })),
    bucketMs: z.number(),
    series: z.array(z.object({ at: z.number(), requests: z.number(), ok: z.number(), unchanged: z.number(), pagesPerSecond: z.number() })),
  })
  .openapi('Run');

export const HealthBody = z.object({ ok: z.boolean(), runs: z.number() }).openapi('Health');
