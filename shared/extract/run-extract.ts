// One extraction request, on whichever thread runs it: the page's extraction, then the fields its
// profile or the command line asks for (only on the pages they apply to).
import { errorMessage } from '../errors.js';
import { canonicalize, type CanonicalOptions } from '../url/canonical.js';
import { boundHtml } from './bounds.js';
import { extractLinksOnly, extractPage, normalizedTextHash, type LinkExtraction, type PageExtraction } from './extract-page.js';
import { chunkText, type Chunk } from './chunks.js';
import { simhash } from '../dedupe/simhash.js';
import { decodeText, sniffCharset } from '../fetch/charset.js';
import { StageClock, type StageTimes } from '../log/stage-clock.js';
import { extractFields, fieldsApply, type FieldSpec } from './fields.js';
import type { MainContentScope } from './main-content.js';

export interface ExtractRequest {
  /** The page as text, or (`bytes`) as served: decoded where it is extracted, so the crawl thread never holds a page twice. */
  html?: string;
  bytes?: Uint8Array;
  /** The Content-Type header's charset, for `bytes`. */
  charset?: string;
  url: string;
  mode: 'full' | 'links';
  /** The page's article (default) or all of its readable content. */
  mainContent?: MainContentScope;
  robotsToken: string;
  xRobotsTag?: string;
  /** CSS-selector fields to extract (plain data: it crosses to worker threads). */
  fields?: FieldSpec[];
  /** Time the parts (`--stage-times`): the extraction carries `timings`. */
  timed?: boolean;
}

/** What a plain text (a PDF's) needs beside itself: its SimHash, text hash and chunks. */
export interface TextParts {
  simhash: string;
  textHash: string;
  chunks: Chunk[];
  timings?: StageTimes;
}

export function runTextParts(text: string, timed = false): TextParts {
  const clock = new StageClock(timed);
  const chunks = clock.time('chunks', () => chunkText(text));
  const parts: TextParts = { simhash: clock.time('simhash', () => simhash(text)), textHash: normalizedTextHash(text), chunks };
  if (timed) parts.timings = clock.ms;
  return parts;
}

/** What decoding the served bytes found: the charset used, and the declared one when the bytes said otherwise. */
export interface Decoded {
  charset: string;
  guessed?: { declared: string; invalidRatio: number };
}

/**
 * Extracts a page (decoding it first when it comes as served bytes). The fields run on the page
 * within the same bounds as the extraction; a field that fails is a problem of the extraction,
 * never a failed page.
 */
export function runExtract(request: ExtractRequest, canonical: CanonicalOptions): (PageExtraction | LinkExtraction) & { decoded?: Decoded } {
  const clock = new StageClock(request.timed ?? false);
  let html = request.html ?? '';
  let decoded: Decoded | undefined;
  if (request.bytes) {
    const body = Buffer.from(request.bytes.buffer, request.bytes.byteOffset, request.bytes.byteLength);
    const text = clock.time('decode', () => decodeText(body, sniffCharset(body, request.charset, true)));
    html = text.text;
    decoded = { charset: text.charset, ...(text.guessed ? { guessed: text.guessed } : {}) };
  }
  const options = {
    canonicalize: (h: string) => canonicalize(h, undefined, canonical),
    robotsToken: request.robotsToken,
    xRobotsTag: request.xRobotsTag,
    mainContent: request.mainContent,
    clock,
  };
  const x: PageExtraction | LinkExtraction = request.mode === 'full' ? extractPage(html, request.url, options) : extractLinksOnly(html, request.url, options);
  const specs = request.fields;
  if (specs?.length && fieldsApply(specs, request.url)) {
    try {
      const fields = clock.time('fields', () => extractFields(boundHtml(html).html, request.url, specs));
      if (Object.keys(fields).length) x.fields = fields;
    } catch (err) {
      // A links-only extraction keeps no problems list (nor fields): there is nothing to store them with.
      if (request.mode === 'full') {
        const full = x as PageExtraction;
        full.problems = [...(full.problems ?? []), { part: 'fields', error: errorMessage(err) }];
      }
    }
  }
  if (clock.enabled) x.timings = clock.ms;
  return decoded ? Object.assign(x, { decoded }) : x;
}
