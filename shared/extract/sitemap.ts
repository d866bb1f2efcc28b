import { Parser } from 'htmlparser2';
import { createGunzip, gunzipSync } from 'node:zlib';

export interface SitemapEntry {
  loc: string;
  lastmod?: string;
}

export interface Sitemap {
  kind: 'index' | 'urlset' | 'unknown';
  entries: SitemapEntry[];
}

/** Sitemaps protocol limit: 50,000 URLs and 50 MB uncompressed per file. */
export const SITEMAP_MAX_ENTRIES = 50_000;

/** Unzips a `.xml.gz` sitemap (by its magic bytes) with an output cap against bombs. */
export function maybeGunzip(body: Buffer, maxBytes: number): Buffer {
  if (body[0] === 0x1f && body[1] === 0x8b) return gunzipSync(body, { maxOutputLength: maxBytes });
  return body;
}

/**
 * Unzips a `.xml.gz` sitemap up to `maxBytes` of output: a sitemap that inflates past the cap
 * yields what was read before it (its complete entries are still crawled) and says it was cut.
 */
export async function gunzipCapped(body: Buffer, maxBytes: number): Promise<{ data: Buffer; cut: boolean }> {
  if (!(body[0] === 0x1f && body[1] === 0x8b)) return { data: body, cut: false };
  const chunks: Buffer[] = [];
  let size = 0;
  let cut = false;
  await new Promise<void>((resolve, reject) => {
    const z = createGunzip();
    z.on('data', (chunk: Buffer) => {
      if (cut) return;
      const room = maxBytes - size;
      chunks.push(chunk.length > room ? chunk.subarray(0, room) : chunk);
      size += Math.min(chunk.length, room);
      if (size >= maxBytes) {
        cut = true;
        z.destroy();
        resolve();
      }
    });
    // A corrupt stream is an error of the sitemap stage (the crawl goes on), as before the cap was read up to.
    z.on('error', (err) => (cut ? resolve() : reject(err)));
    z.on('end', () => resolve());
    z.on('close', () => resolve());
    z.end(body);
  });
  return { data: Buffer.concat(chunks), cut };
}

/** Parses a sitemap index or urlset (sitemaps.org 0.9); also accepts a plain-text list of URLs. */
export function parseSitemap(xml: string): Sitemap {
  const result: Sitemap = { kind: 'unknown', entries: [] };
  let current: SitemapEntry | undefined;
  let field: 'loc' | 'lastmod' | undefined;
  let text = '';
  const parser = new Parser(
    {
      onopentag(raw) {
        const name = raw.replace(/^.*:/, '');
        if (result.kind === 'unknown' && (name === 'sitemapindex' || name === 'urlset')) result.kind = name === 'urlset' ? 'urlset' : 'index';
        if (name === 'url' || name === 'sitemap') current = { loc: '' };
        if (current && (name === 'loc' || name === 'lastmod')) {
          field = name;
          text = '';
        }
      },
      ontext(t) {
        if (field) text += t;
      },
      onclosetag(raw) {
        const name = raw.replace(/^.*:/, '');
        if (current && field === name) {
          current[field] = text.trim();
          field = undefined;
        }
        if ((name === 'url' || name === 'sitemap') && current) {
          if (current.loc && result.entries.length < SITEMAP_MAX_ENTRIES) result.entries.push(current);
          current = undefined;
        }
      },
    },
    { xmlMode: true, decodeEntities: true },
  );
  parser.write(xml);
  parser.end();
  if (result.kind === 'unknown' && !xml.trimStart().startsWith('<')) {
    result.kind = 'urlset';
    result.entries = xml
      .split(/\r?\n/)
      .map((l) => l.trim())
      .filter((l) => /^https?:\/\//.test(l))
      .slice(0, SITEMAP_MAX_ENTRIES)
      .map((loc) => ({ loc }));
  }
  return result;
}
