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
const CP1252_HIGH =
  '\u20ac\u0081\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\u008d\u017d\u008f\u0090\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\u009d\u017e\u0178';

function decodeWindows1252(body: Buffer): string {
  return body.toString('latin1').replace(/[\u0080-\u009f]/g, (c) => CP1252_HIGH[c.charCodeAt(0) - 0x80]!);
}

/** Above this share of invalid sequences among the non-ASCII characters, UTF-8 was the wrong guess. */
const MOSTLY_INVALID = 0.5;

export interface DecodedText {
  text: string;
  /** The charset the text was decoded with. */
  charset: string;
  /** Set when the bytes were mostly invalid for the declared (or assumed) charset and another was used. */
  guessed?: { declared: string; invalidRatio: number };
}

/**
 * Decodes a body with its charset. A body declared (or assumed) UTF-8 whose non-ASCII bytes are
 * mostly invalid UTF-8 is decoded as windows-1252, the web's de-facto legacy default; a few stray
 * bytes in a valid UTF-8 page (a ratio, not a count) keep the declared charset.
 */
export function decodeText(body: Buffer, charset: string): DecodedText {
  if (charset === 'windows-1252') return { text: decodeWindows1252(body), charset };
  const text = new TextDecoder(charset).decode(body);
  if (charset !== 'utf-8') return { text, charset };
  let bad = 0;
  let nonAscii = 0;
  // A body cut at the cap may end inside a character: the last few code units are not counted.
  const end = Math.max(0, text.length - 3);
  for (let i = 0; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) continue;
    nonAscii++;
    if (c === 0xfffd) bad++;
  }
  const ratio = nonAscii ? bad / nonAscii : 0;
  if (bad === 0 || ratio <= MOSTLY_INVALID) return { text, charset };
  return { text: decodeWindows1252(body), charset: 'windows-1252', guessed: { declared: charset, invalidRatio: Math.round(ratio * 1000) / 1000 } };
}

/** The decoded text of a body (see `decodeText`). */
export function decodeBody(body: Buffer, charset: string): string {
  return decodeText(body, charset).text;
}
