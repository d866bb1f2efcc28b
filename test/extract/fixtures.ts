import { readFileSync } from 'node:fs';
import { decodeBody, sniffCharset } from '../../shared/fetch/charset.js';
import { extractPage, type PageExtraction } from '../../shared/extract/extract-page.js';
import { canonicalize } from '../../shared/url/canonical.js';

export const FIXTURES = ['news-article', 'product-page', 'docs-page', 'windows-1252', 'malformed'] as const;
const dir = new URL('../fixtures/extract/', import.meta.url);

/** A fixture page decoded the way the crawler decodes bodies (charset from header, BOM or meta). */
export function fixtureHtml(name: string): string {
  const bytes = readFileSync(new URL(`${name}.html`, dir));
  return decodeBody(bytes, sniffCharset(bytes, undefined, true));
}

export function fixtureTruth(name: string): string {
  return readFileSync(new URL(`${name}.txt`, dir), 'utf8');
}

export function extractFixture(name: string, url = `https://site.example/${name}`): PageExtraction {
  return extractPage(fixtureHtml(name), url, { canonicalize: (h) => canonicalize(h), robotsToken: 'trawl' });
}
