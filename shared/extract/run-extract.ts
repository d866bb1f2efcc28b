// One extraction request, on whichever thread runs it: the page's extraction, then the fields its
// profile or the command line asks for (only on the pages they apply to).
import { errorMessage } from '../errors.js';
import { canonicalize, type CanonicalOptions } from '../url/canonical.js';
import { boundHtml } from './bounds.js';
import { extractLinksOnly, extractPage, normalizedTextHash, type LinkExtraction, type PageExtraction } from './extract-page.js';
import { chunkText, type Chunk } from './chunks.js';
import { simhash } from '../dedupe/simhash.js';
import { extractFields, fieldsApply, type FieldSpec } from './fields.js';

export interface ExtractRequest {
  html: string;
  url: string;
  mode: 'full' | 'links';
  robotsToken: string;
  xRobotsTag?: string;
  /** CSS-selector fields to extract (plain data: it crosses to worker threads). */
  fields?: FieldSpec[];
}

/** What a plain text (a PDF's) needs beside itself: its SimHash, text hash and chunks. */
export interface TextParts {
  simhash: string;
  textHash: string;
  chunks: Chunk[];
}

export function runTextParts(text: string): TextParts {
  return { simhash: simhash(text), textHash: normalizedTextHash(text), chunks: chunkText(text) };
}

/**
 * Extracts a page. The fields run on the page within the same bounds as the extraction; a field
 * that fails is a problem of the extraction, never a failed page.
 */
export function runExtract(request: ExtractRequest, canonical: CanonicalOptions): PageExtraction | LinkExtraction {
  const options = { canonicalize: (h: string) => canonicalize(h, undefined, canonical), robotsToken: request.robotsToken, xRobotsTag: request.xRobotsTag };
  const x: PageExtraction | LinkExtraction =
    request.mode === 'full' ? extractPage(request.html, request.url, options) : extractLinksOnly(request.html, request.url, options);
  const specs = request.fields;
  if (specs?.length && fieldsApply(specs, request.url)) {
    try {
      const fields = extractFields(boundHtml(request.html).html, request.url, specs);
      if (Object.keys(fields).length) x.fields = fields;
    } catch (err) {
      // A links-only extraction keeps no problems list (nor fields): there is nothing to store them with.
      if (request.mode === 'full') {
        const full = x as PageExtraction;
        full.problems = [...(full.problems ?? []), { part: 'fields', error: errorMessage(err) }];
      }
    }
  }
  return x;
}
