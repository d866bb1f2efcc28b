import { existsSync, readFileSync } from 'node:fs';
import type { CrawlSettings } from '../config/settings.js';
import { UsageError } from '../errors.js';
import { decodeBody, sniffCharset } from '../fetch/charset.js';
import { HttpFetcher } from '../fetch/http-fetcher.js';
import { extractPage, type PageExtraction } from '../extract/extract-page.js';
import { robotsAllows } from '../robots/robots-policy.js';
import { fetchRobotsTxt } from '../pipeline/robots-stage.js';
import { productToken } from '../robots/robots-txt.js';
import { canonicalize } from '../url/canonical.js';
import { jsonLine } from './render.js';

async function fetchPage(url: string, settings: CrawlSettings): Promise<{ html: string; xRobotsTag?: string }> {
  const fetcher = new HttpFetcher({ userAgent: settings.userAgent, allowPrivateNetwork: settings.allowPrivateNetwork, maxBodyBytes: settings.maxBodyBytes, connectTimeoutMs: settings.connectTimeoutMs, totalTimeoutMs: settings.timeoutMs });
  try {
    // Even one page is fetched politely: robots.txt first.
    const target = new URL(url);
    const { policy } = await fetchRobotsTxt(fetcher, target.origin, productToken(settings.userAgent));
    if (!robotsAllows(policy, target.pathname + target.search)) throw new UsageError(`robots.txt of ${target.host} does not allow ${url} for ${productToken(settings.userAgent)}: not fetched`);
    const res = await fetcher.fetch({ url, kind: 'page' });
    if (res.status !== 200 || !res.body) throw new UsageError(`${url} answered HTTP ${res.status}${res.skipped ? ` with ${res.mime}, which is not HTML` : ''}: nothing to extract`);
    return { html: decodeBody(res.body, sniffCharset(res.body, res.charset, true)), xRobotsTag: res.headers['x-robots-tag'] };
  } finally {
    await fetcher.close();
  }
}

function describe(x: PageExtraction): string {
  const m = x.metadata;
  const meta = ['title', 'description', 'author', 'published', 'modified', 'language', 'canonicalUrl', 'siteName', 'contentType'] as const;
  return [
    ...meta.filter((k) => m[k]).map((k) => `${k}: ${m[k]} (${m.sources[k]})`),
    `words: ${m.wordCount}, reading time: ${m.readingTimeMinutes} min, extracted with ${x.method}, simhash ${x.simhash}`,
    `robots: ${x.noindex ? 'noindex' : 'index'}, ${x.nofollow ? 'nofollow' : 'follow'}`,
    '', x.markdown, '',
    `links (${x.links.length}):`, ...x.links.map((l) => `  ${l.section.padEnd(7)} ${l.internal ? 'int' : 'ext'} ${l.url}  "${l.anchorText}"${l.rel.length ? ` [${l.rel.join(' ')}]` : ''}`),
    `chunks (${x.chunks.length}):`, ...x.chunks.map((c) => `  ${c.id}  ${c.tokens} tokens  at ${c.position}`),
  ].join('\n');
}

/** `trawl extract <url>` or `trawl extract --file page.html --url URL`: the whole extraction of one page. */
export async function extractCommand(args: string[], flags: { file?: string; url?: string }, settings: CrawlSettings, out: (line: string) => void): Promise<PageExtraction> {
  let html: string;
  let url: string | undefined;
  let xRobotsTag: string | undefined;
  if (flags.file) {
    if (!existsSync(flags.file)) throw new UsageError(`no such file ${flags.file}: give the path of an HTML file`);
    url = flags.url ?? args[0] ?? 'http://localhost/';
    const bytes = readFileSync(flags.file);
    html = decodeBody(bytes, sniffCharset(bytes, undefined, true));
  } else {
    url = args[0] ?? flags.url;
    if (!url || !canonicalize(url)) throw new UsageError('trawl extract needs an http(s) URL, or --file page.html --url URL');
    ({ html, xRobotsTag } = await fetchPage(url, settings));
  }
  if (!canonicalize(url)) throw new UsageError(`invalid --url ${JSON.stringify(url)}: give the absolute http(s) URL the file came from`);
  const canonical = { trackingParams: settings.trackingParams, sessionParams: settings.sessionParams };
  const x = extractPage(html, url, { canonicalize: (h) => canonicalize(h, undefined, canonical), robotsToken: productToken(settings.userAgent), xRobotsTag });
  out(settings.json ? jsonLine({ type: 'extraction', ...x }) : describe(x));
  return x;
}
