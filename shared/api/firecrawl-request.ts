// The Firecrawl routes' requests: the bodies they take (zod), what a scrape asks for (its formats,
// actions, tags, json), a crawl's own receiver, the ids a crawl answers with, and the error shape.
import * as cheerio from 'cheerio';
import type { Context } from 'hono';
import { z } from 'zod';
import { errorMessage, JobQueueFullError, RequestRefusedError, UpstreamError, UsageError } from '../errors.js';
import type { JobOptions } from '../config/job-options.js';
import type { ExtractSpec } from '../enrich/extract-spec.js';
import { pageActionsOf } from '../render/action-rules.js';
import type { JsonAnswers } from './firecrawl-ports.js';
import { checkJobSeeds } from './job-seeds.js';
import { checkWebhookSettings } from './webhooks.js';

const FORMATS = new Set(['markdown', 'html', 'rawHtml', 'links']);
/** A crawl's formats, kept in the id it answers with (a letter each): its documents carry them in any process that reads the id. */
const FORMAT_LETTERS: Readonly<Record<string, string>> = { markdown: 'm', html: 'h', rawHtml: 'r', links: 'l' };

const HighlightsFormat = z.object({ type: z.literal('highlights'), query: z.string().trim().min(1).max(1000) });
const QuestionFormat = z.object({ type: z.literal('question'), question: z.string().trim().min(1).max(1000) });
const AttributesFormat = z.object({
  type: z.literal('attributes'),
  selectors: z
    .array(z.object({ selector: z.string().min(1).max(500), attribute: z.string().min(1).max(100) }))
    .min(1)
    .max(50),
});
const JsonFormat = z.object({ type: z.literal('json'), schema: z.record(z.string(), z.unknown()).optional(), prompt: z.string().optional() });
const ScreenshotFormat = z.object({ type: z.literal('screenshot'), fullPage: z.boolean().optional() }).passthrough();
const ScrapeOptions = z
  .object({
    formats: z.array(z.union([z.string(), JsonFormat, ScreenshotFormat, z.object({ type: z.string() }).passthrough()])).optional(),
    onlyMainContent: z.boolean().optional(),
    includeTags: z.array(z.string().min(1).max(500)).max(50).optional(),
    excludeTags: z.array(z.string().min(1).max(500)).max(50).optional(),
    actions: z.array(z.unknown()).optional(),
    maxAge: z.number().int().min(0).optional(),
    lockdown: z.boolean().optional(),
    timeout: z.number().int().positive().optional(),
    waitFor: z.number().int().min(0).optional(),
    mobile: z.boolean().optional(),
    location: z.unknown().optional(),
    jsonOptions: z.object({ schema: z.record(z.string(), z.unknown()).optional(), prompt: z.string().optional() }).optional(),
    extract: z.object({ schema: z.record(z.string(), z.unknown()).optional(), prompt: z.string().optional() }).optional(),
  })
  .passthrough();
export const ScrapeBody = ScrapeOptions.extend({ url: z.string().min(1) });
/** The largest file `POST /v2/parse` takes (Firecrawl's own cap is larger; a crawl's page body cap is 5 MiB). */
export const PARSE_MAX_BYTES = 10 * 1024 * 1024;
/** A parse's options: a scrape's without its URL. */
export const ScrapeOptionsBody = ScrapeOptions;
/** A crawl's own receiver: Firecrawl's `webhook`, a URL or its object form. */
const WebhookBody = z.union([
  z.string().min(1),
  z
    .object({
      url: z.string().min(1),
      headers: z.record(z.string(), z.string().max(1000)).optional(),
      metadata: z.record(z.string(), z.unknown()).optional(),
      events: z.array(z.enum(['started', 'page', 'completed', 'failed'])).optional(),
    })
    .passthrough(),
]);
export type WebhookConfig = { url: string; headers: Record<string, string>; metadata: Record<string, unknown>; events: Set<string> };
/** Headers a receiver's own may not set: the connection's, and the signature's. */
const SENDER_HEADERS = /^(host|connection|content-length|content-type|transfer-encoding|keep-alive|upgrade|te|trailer|webhook-.*)$/i;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const MAX_WEBHOOK_HEADERS = 20;

export const CrawlBody = z
  .object({
    url: z.string().min(1),
    limit: z.number().int().min(1).max(100_000).optional(),
    maxDepth: z.number().int().min(0).optional(),
    maxDiscoveryDepth: z.number().int().min(0).optional(),
    excludePaths: z.array(z.string()).optional(),
    includePaths: z.array(z.string()).optional(),
    allowExternalLinks: z.boolean().optional(),
    allowSubdomains: z.boolean().optional(),
    crawlEntireDomain: z.boolean().optional(),
    webhook: WebhookBody.optional(),
    scrapeOptions: ScrapeOptions.optional(),
  })
  .passthrough();
/** Firecrawl's batch scrape: URLs and one set of scrape options for them all. */
export const BatchScrapeBody = ScrapeOptions.extend({
  urls: z.array(z.string().min(1)).min(1).max(1000),
  ignoreInvalidURLs: z.boolean().optional(),
});
export const SearchBody = z
  .object({
    query: z.string().trim().min(1).max(1000),
    limit: z.number().int().min(1).max(100).optional(),
    highlights: z.boolean().optional(),
    sources: z.array(z.union([z.string(), z.object({ type: z.string() }).passthrough()])).optional(),
    includeDomains: z.array(z.string().min(1)).max(50).optional(),
    excludeDomains: z.array(z.string().min(1)).max(50).optional(),
    scrapeOptions: ScrapeOptions.optional(),
  })
  .passthrough();
export const MapBody = z
  .object({
    url: z.string().min(1),
    search: z.string().optional(),
    limit: z.number().int().min(1).max(100_000).optional(),
    includeSubdomains: z.boolean().optional(),
  })
  .passthrough();

/**
 * A Firecrawl `excludePaths` or `includePaths` entry, a regular expression over a URL's path, as a
 * trawl `deny` or `include` pattern over the whole URL: a `^` anchors it at the path's start (after
 * the scheme and host).
 */
export function pathPattern(pattern: string): string {
  const path = pattern.startsWith('^') ? `^[a-z][a-z0-9+.-]*://[^/?#]*(?:${pattern.slice(1)})` : pattern;
  return `/${path}/`;
}

/**
 * The crawl job a Firecrawl crawl request asks for, as the typed options every launcher takes, or a
 * refusal that says what trawl does instead. Pure: the route checks the seeds and the webhook.
 */
export function crawlJobOptions(req: z.infer<typeof CrawlBody>, wanted: Wanted): JobOptions {
  if (req.allowExternalLinks)
    throw new RequestRefusedError('allowExternalLinks is not supported: a crawl stays on its host (allowSubdomains: true takes its domain)');
  if (wanted.json) throw new RequestRefusedError('the json format of a crawl is the crawl\'s extract schema: start it with POST /crawls and "extractSchema"');
  if (wanted.actions) throw new RequestRefusedError('actions of a crawl go by URL pattern: start it with POST /crawls and "actions" rules');
  if (wanted.tags) throw new RequestRefusedError('includeTags and excludeTags are for a scrape: a crawl keeps each page by --main-content (onlyMainContent)');
  const depth = req.maxDiscoveryDepth ?? req.maxDepth;
  return {
    maxPages: req.limit ?? 10_000,
    ...(depth === undefined ? {} : { maxDepth: depth }),
    ...(req.excludePaths?.length ? { deny: req.excludePaths.map(pathPattern) } : {}),
    ...(req.includePaths?.length ? { include: req.includePaths.map(pathPattern) } : {}),
    ...(req.allowSubdomains || req.crawlEntireDomain ? { scope: 'domain' } : {}),
    mainContent: wanted.mainContent,
    enrich: false,
  };
}

export type Version = 'v1' | 'v2';
type Options = z.infer<typeof ScrapeOptions>;
export interface Wanted {
  formats: Set<string>;
  /** The page's actions (Firecrawl's names), run in the renderer before it is read; a screenshot format adds one. */
  actions?: unknown[];
  json?: ExtractSpec;
  /** The `screenshot` format: the page's picture after its actions. */
  screenshot?: boolean;
  /** Whether the caller's own actions take a screenshot (answered in `actions.screenshots`). */
  actionShots?: boolean;
  /** `includeTags` / `excludeTags`: the document is written from the page's HTML, only those elements / without these. */
  tags?: { include: string[]; exclude: string[] };
  /** The `highlights` format's query: the page's passages that answer it. */
  highlights?: string;
  /** The `question` format's question: an answer from the page's passages by the chat model. */
  question?: string;
  /** The `summary` format. */
  summary?: boolean;
  /** The `attributes` format: values by CSS selector and attribute. */
  attributes?: Array<{ selector: string; attribute: string }>;
  mainContent: 'article' | 'full';
}

/** Checks CSS selectors now: a bad one is this request's 400, naming it. */
function checkedSelectors(name: string, selectors: string[] | undefined): string[] {
  const $ = cheerio.load('<p></p>');
  for (const s of selectors ?? []) {
    try {
      $(s);
    } catch (err) {
      throw new RequestRefusedError(`${name}: ${JSON.stringify(s)} is not a CSS selector (${errorMessage(err)})`);
    }
  }
  return selectors ?? [];
}

/** What a scrape asks for, or why trawl refuses it. */
export function wantedOf(options: Options, version: Version, json: JsonAnswers | undefined, questions?: boolean): Wanted {
  if (options.mobile) throw new RequestRefusedError('mobile is not supported: trawl renders with a desktop viewport');
  if (options.location) throw new RequestRefusedError('location is not supported: trawl fetches from where the server is');
  const formats = new Set<string>();
  let spec: ExtractSpec | undefined;
  let screenshot: { fullPage: boolean } | undefined;
  const extra: Pick<Wanted, 'highlights' | 'question' | 'summary' | 'attributes'> = {};
  for (const f of options.formats ?? ['markdown']) {
    const name = typeof f === 'string' ? f : f.type;
    if (name === 'json' || name === 'extract') {
      const asked = typeof f === 'string' ? (version === 'v1' ? (name === 'json' ? options.jsonOptions : options.extract) : undefined) : JsonFormat.parse(f);
      if (!asked?.schema && !asked?.prompt) throw new RequestRefusedError(`the ${name} format needs a schema or a prompt`);
      spec = { schema: asked.schema ?? { type: 'object' }, ...(asked.prompt ? { prompt: asked.prompt } : {}) };
      continue;
    }
    if (name === 'screenshot' || name === 'screenshot@fullPage') {
      screenshot = { fullPage: name === 'screenshot@fullPage' || (typeof f === 'object' && ScreenshotFormat.parse(f).fullPage === true) };
      continue;
    }
    const more = formatOf(name, f);
    if (more) {
      Object.assign(extra, more);
      continue;
    }
    if (!FORMATS.has(name))
      throw new RequestRefusedError(
        `the ${name} format is not supported: trawl serves markdown, html, rawHtml, links, summary, highlights, question, attributes, screenshot and json`,
      );
    formats.add(name);
  }
  if (extra.question && !questions) throw new RequestRefusedError(QUESTION_REFUSAL);
  const include = checkedSelectors('includeTags', options.includeTags);
  const exclude = checkedSelectors('excludeTags', options.excludeTags);
  const own = options.actions ?? [];
  const actions = screenshot ? [...own, { type: 'screenshot', fullPage: screenshot.fullPage }] : own;
  // Checked now: a bad action is this request's 400, naming it.
  if (actions.length) pageActionsOf({ actions });
  if (spec) {
    const why = json ? json.refusal(spec) : 'the json format is not served here';
    if (why) throw new RequestRefusedError(why);
  }
  const actionShots = own.some((a) => (a as { type?: unknown } | null)?.type === 'screenshot');
  return {
    formats,
    ...(spec ? { json: spec } : {}),
    mainContent: options.onlyMainContent === false ? 'full' : 'article',
    ...(actions.length ? { actions } : {}),
    ...(screenshot ? { screenshot: true } : {}),
    ...(actionShots ? { actionShots } : {}),
    ...(include.length || exclude.length ? { tags: { include, exclude } } : {}),
    ...extra,
  };
}

/** Why the `question` format is refused without a chat model. */
export const QUESTION_REFUSAL =
  "the question format needs an LLM provider: start trawl serve with --provider openai (and --openai-base-url) or --provider bedrock (on AWS, a deployment with enrichment.provider bedrock answers it); the highlights format answers with the page's own passages offline";

/** The formats trawl answers from the page's stored text: `summary`, `highlights`, `question`, `attributes`; undefined for any other. */
function formatOf(name: string, f: unknown): Pick<Wanted, 'highlights' | 'question' | 'summary' | 'attributes'> | undefined {
  const parsed = <T>(schema: z.ZodType<T>): T => {
    const got = schema.safeParse(f);
    if (!got.success)
      throw new RequestRefusedError(`the ${name} format: ${got.error.issues.map((i) => `${i.path.join('.') || 'format'}: ${i.message}`).join('; ')}`);
    return got.data;
  };
  if (name === 'summary') return { summary: true };
  if (name === 'highlights') return { highlights: parsed(HighlightsFormat).query };
  if (name === 'question') return { question: parsed(QuestionFormat).question };
  if (name === 'attributes') {
    const { selectors } = parsed(AttributesFormat);
    checkedSelectors(
      'attributes',
      selectors.map((s) => s.selector),
    );
    return { attributes: selectors };
  }
  return undefined;
}

/** A crawl's receiver as given, checked: an http(s) URL the guard lets through, headers of its own, the events it wants. */
export async function webhookOf(given: z.infer<typeof WebhookBody>, allowPrivateNetwork: boolean): Promise<WebhookConfig> {
  const w = typeof given === 'string' ? { url: given } : given;
  try {
    checkWebhookSettings([w.url], undefined);
    await checkJobSeeds([w.url], allowPrivateNetwork);
  } catch (err) {
    throw new RequestRefusedError(`webhook: ${errorMessage(err)}`);
  }
  const headers = typeof given === 'string' ? {} : (given.headers ?? {});
  if (Object.keys(headers).length > MAX_WEBHOOK_HEADERS) throw new RequestRefusedError(`webhook.headers: at most ${MAX_WEBHOOK_HEADERS} headers`);
  for (const [name, value] of Object.entries(headers)) {
    if (!HEADER_NAME.test(name) || SENDER_HEADERS.test(name))
      throw new RequestRefusedError(`webhook.headers: ${JSON.stringify(name)} is not a header a receiver's request may set`);
    if (/[\r\n\0]/.test(value)) throw new RequestRefusedError(`webhook.headers: the value of ${name} holds a line break`);
  }
  const events = typeof given === 'string' ? undefined : given.events;
  return {
    url: w.url,
    headers,
    metadata: typeof given === 'string' ? {} : (given.metadata ?? {}),
    events: new Set(events?.length ? events : ['started', 'page', 'completed', 'failed']),
  };
}

/** A crawl's Firecrawl id: its job's id and the letters of its formats. */
export function crawlIdOf(jobId: string, formats: Set<string>): string {
  const letters = Object.entries(FORMAT_LETTERS)
    .filter(([f]) => formats.has(f))
    .map(([, l]) => l)
    .join('');
  return `${jobId}~${letters}`;
}

/** The job's id and the formats of a Firecrawl crawl id (a plain job id: markdown). */
export function parseCrawlId(id: string): { jobId: string; formats: Set<string> } {
  const [jobId = id, letters] = id.split('~', 2);
  if (letters === undefined) return { jobId, formats: new Set(['markdown']) };
  return { jobId, formats: new Set(Object.entries(FORMAT_LETTERS).flatMap(([f, l]) => (letters.includes(l) ? [f] : []))) };
}

export const failure = (c: Context, err: unknown) => {
  if (err instanceof RequestRefusedError) return c.json({ success: false, error: err.message }, err.status);
  if (err instanceof UpstreamError) return c.json({ success: false, error: err.message }, 502);
  if (err instanceof UsageError) return c.json({ success: false, error: err.message }, 400);
  if (err instanceof JobQueueFullError) return c.json({ success: false, error: err.message }, 429);
  throw err;
};

export async function body<T extends z.ZodTypeAny>(c: Context, schema: T): Promise<z.infer<T>> {
  // As every other route: a body not declared JSON is refused, not parsed as JSON anyway.
  const type = (c.req.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/json' && !type.endsWith('+json'))
    throw new RequestRefusedError(`the body is declared ${type || 'without a type'}: send one JSON object with Content-Type: application/json`, 415);
  let raw: unknown;
  try {
    raw = await c.req.json();
  } catch {
    throw new RequestRefusedError('the body is not JSON: send one JSON object with Content-Type: application/json');
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new RequestRefusedError(`invalid body field "${issue?.path.join('.') || '(all)'}": ${issue?.message ?? 'not valid'}`);
  }
  return parsed.data as z.infer<T>;
}
