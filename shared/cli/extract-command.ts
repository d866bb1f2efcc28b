import { existsSync, readFileSync } from 'node:fs';
import type { CrawlSettings } from '../config/settings.js';
import { UsageError } from '../errors.js';
import { decodeBody, sniffCharset } from '../fetch/charset.js';
import type { PageExtraction } from '../extract/extract-page.js';
import { extract } from '../library/maintenance.js';
import { canonicalize } from '../url/canonical.js';
import { jsonLine } from './render.js';

function describe(x: PageExtraction): string {
  const m = x.metadata;
  const meta = ['title', 'description', 'author', 'published', 'modified', 'language', 'canonicalUrl', 'siteName', 'contentType'] as const;
  return [
    ...meta.filter((k) => m[k]).map((k) => `${k}: ${m[k]} (${m.sources[k]})`),
    `words: ${m.wordCount}, reading time: ${m.readingTimeMinutes} min, extracted with ${x.method}, simhash ${x.simhash}`,
    `robots: ${x.noindex ? 'noindex' : 'index'}, ${x.nofollow ? 'nofollow' : 'follow'}`,
    '',
    x.markdown,
    '',
    `links (${x.links.length}):`,
    ...x.links.map((l) => `  ${l.section.padEnd(7)} ${l.internal ? 'int' : 'ext'} ${l.url}  "${l.anchorText}"${l.rel.length ? ` [${l.rel.join(' ')}]` : ''}`),
    `chunks (${x.chunks.length}):`,
    ...x.chunks.map((c) => `  ${c.id}  ${c.tokens} tokens  at ${c.position}`),
  ].join('\n');
}

/** `trawl extract <url>` or `trawl extract --file page.html --url URL`: the whole extraction of one page. */
export async function extractCommand(
  args: string[],
  flags: { file?: string; url?: string },
  settings: CrawlSettings,
  json: boolean,
  out: (line: string) => void,
): Promise<PageExtraction> {
  let url: string | undefined;
  let html: string | undefined;
  if (flags.file) {
    if (!existsSync(flags.file)) throw new UsageError(`no such file ${flags.file}: give the path of an HTML file`);
    url = flags.url ?? args[0] ?? 'http://localhost/';
    const bytes = readFileSync(flags.file);
    html = decodeBody(bytes, sniffCharset(bytes, undefined, true));
    if (!canonicalize(url)) throw new UsageError(`invalid --url ${JSON.stringify(url)}: give the absolute http(s) URL the file came from`);
  } else {
    url = args[0] ?? flags.url;
    if (!url || !canonicalize(url)) throw new UsageError('trawl extract needs an http(s) URL, or --file page.html --url URL');
  }
  const x = await extract(url, { ...settings, env: {}, html } as Parameters<typeof extract>[1]);
  out(json ? jsonLine({ type: 'extraction', ...x }) : describe(x));
  return x;
}
