// A link preview reads a page's <head> only: the fetcher it uses (a small cap, a short timeout) and
// what it keeps of the answer (title and meta description). The homepage pass and a focused
// crawl's --preview share both.
import { decodeBody, sniffCharset } from '../fetch/charset.js';
import { fetcherFor, type FetcherSettings, type FetchResponse, type HttpFetcher } from '../fetch/http-fetcher.js';
import type { Resolver } from '../fetch/address-guard.js';
import { parseDocument } from '../extract/dom.js';
import { metadataFields } from '../extract/metadata.js';

/** Per preview (the bound), and what is read at most before </head>. */
export const PREVIEW_TIMEOUT_MS = 5000;
export const PREVIEW_MAX_BYTES = 256 * 1024;

/** The fetcher of previews: the settings' fetcher with the preview's cap and timeout. */
export function previewFetcherFor(settings: FetcherSettings, options: { timeoutMs?: number; resolver?: Resolver } = {}): HttpFetcher {
  const timeout = options.timeoutMs ?? PREVIEW_TIMEOUT_MS;
  return fetcherFor(settings, {
    resolver: options.resolver,
    maxBodyBytes: PREVIEW_MAX_BYTES,
    connectTimeoutMs: Math.min(settings.connectTimeoutMs, timeout),
    totalTimeoutMs: timeout,
  });
}

/** The head title and description of a preview's answer; undefined unless it is a 200 with a body. */
export function headOf(res: FetchResponse, url: string): { title?: string; description?: string } | undefined {
  if (res.status !== 200 || !res.body) return undefined;
  const m = metadataFields(parseDocument(decodeBody(res.body, sniffCharset(res.body, res.charset, true))), url);
  return { title: m.title, description: m.description };
}
