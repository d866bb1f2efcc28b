/** Control characters a terminal acts on (C0 but tab and newline, DEL, C1, bidi overrides): never printed raw. */
// eslint-disable-next-line no-control-regex -- these are the characters matched
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/**
 * Text from crawled pages made safe to print to a terminal: each control character is written as
 * its escape (`\x1b`, `\u202e`), so a page's title cannot move the cursor, recolour the screen,
 * set the window title or hide text.
 *
 * @example printable('Title\x1b]0;pwned\x07') // 'Title\\x1b]0;pwned\\x07'
 */
export function printable(text: string): string {
  return text.replace(CONTROLS, (c) => {
    const code = c.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16)}`;
  });
}

/**
 * A JSON text with the same control characters written as `\uXXXX` escapes: the same value to any
 * JSON reader (they can only stand inside strings), and safe to print.
 */
export function printableJson(json: string): string {
  return json.replace(CONTROLS, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
