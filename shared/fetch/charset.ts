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

/**
 * Decodes a body with its charset. A body declared (or assumed) UTF-8 whose bytes are mostly
 * not UTF-8 is decoded as windows-1252, the web's de-facto legacy default.
 */
export function decodeBody(body: Buffer, charset: string): string {
  const text = new TextDecoder(charset).decode(body);
  if (charset !== 'utf-8') return text;
  let bad = 0;
  for (let i = text.indexOf('\uFFFD'); i >= 0; i = text.indexOf('\uFFFD', i + 1)) bad++;
  // A cut-off final character yields one replacement; more than that means another encoding.
  return bad > 1 ? new TextDecoder('windows-1252').decode(body) : text;
}
