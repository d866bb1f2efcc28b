/** Picks the character encoding of a body: BOM, then the Content-Type header, then `<meta>` in the first 1 KiB. */
export function sniffCharset(body: Buffer, headerCharset: string | undefined, isHtml: boolean): string {
  if (body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf) return 'utf-8';
  if (body[0] === 0xfe && body[1] === 0xff) return 'utf-16be';
  if (body[0] === 0xff && body[1] === 0xfe) return 'utf-16le';
  if (headerCharset && isSupported(headerCharset)) return normalizeLabel(headerCharset);
  if (isHtml) {
    const head = body.subarray(0, 1024).toString('latin1');
    const m = /<meta[^>]+charset\s*=\s*["']?\s*([a-zA-Z0-9_:.-]+)/i.exec(head);
    if (m?.[1] && isSupported(m[1])) return normalizeLabel(m[1]);
  }
  return 'utf-8';
}

function normalizeLabel(label: string): string {
  return new TextDecoder(label).encoding;
}

function isSupported(label: string): boolean {
  try {
    new TextDecoder(label);
    return true;
  } catch {
    return false;
  }
}

// WHATWG windows-1252 for 0x80–0x9F (Node 20's TextDecoder decodes this label as ISO-8859-1).
const CP1252_HIGH = '\u20ac\u0081\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\u008d\u017d\u008f\u0090\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\u009d\u017e\u0178';

function decodeWindows1252(body: Buffer): string {
  return body.toString('latin1').replace(/[\u0080-\u009f]/g, (c) => CP1252_HIGH[c.charCodeAt(0) - 0x80]!);
}

/**
 * Decodes a body with its charset. A body declared (or assumed) UTF-8 whose bytes are mostly
 * not UTF-8 is decoded as windows-1252, the web's de-facto legacy default.
 */
export function decodeBody(body: Buffer, charset: string): string {
  if (charset === 'windows-1252') return decodeWindows1252(body);
  const text = new TextDecoder(charset).decode(body);
  if (charset !== 'utf-8') return text;
  let bad = 0;
  for (let i = text.indexOf('\uFFFD'); i >= 0; i = text.indexOf('\uFFFD', i + 1)) bad++;
  // A cut-off final character yields one replacement; more than that means another encoding.
  return bad > 1 ? decodeWindows1252(body) : text;
}
