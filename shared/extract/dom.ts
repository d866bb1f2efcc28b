import { parseHTML } from 'linkedom';

/** The DOM types we use, from linkedom (Readability and our walkers accept it as a Document). */
export type Doc = Document;
export type El = Element;

/** Parses HTML into a linkedom document: measured ~6× faster than jsdom for the same Readability output. */
export function parseDocument(html: string): Doc {
  // linkedom needs a document element; a fragment gets wrapped.
  const source = /<html[\s>]/i.test(html) ? html : `<!doctype html><html><head></head><body>${html}</body></html>`;
  return parseHTML(source).document as unknown as Doc;
}

/** Whitespace-collapsed text of a node. */
export function textOf(node: { textContent: string | null } | null | undefined): string {
  return (node?.textContent ?? '').replace(/\s+/g, ' ').trim();
}

export function attr(el: Element | null | undefined, name: string): string | undefined {
  const v = el?.getAttribute(name);
  return v === null || v === undefined ? undefined : v.trim() || undefined;
}
