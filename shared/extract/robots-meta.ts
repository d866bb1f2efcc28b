/**
 * Parses `noindex`/`nofollow`/`none` from a robots directive list (`<meta name="robots">` or
 * X-Robots-Tag). X-Robots-Tag may scope directives to one agent ("otherbot: noindex"); those
 * for other agents are ignored.
 */
export function robotsDirectives(value: string | undefined, token: string): { noindex: boolean; nofollow: boolean } {
  const out = { noindex: false, nofollow: false };
  if (!value) return out;
  for (const part of value.toLowerCase().split(/,(?=\s*[a-z-]+\s*:)|;/)) {
    const scoped = /^\s*([a-z_-]+)\s*:\s*(.*)$/.exec(part);
    if (scoped && !['unavailable_after', 'max-snippet', 'max-image-preview', 'max-video-preview'].includes(scoped[1]!) && scoped[1] !== token) continue;
    const directives = (scoped ? scoped[2]! : part).split(/[\s,]+/);
    if (directives.includes('noindex') || directives.includes('none')) out.noindex = true;
    if (directives.includes('nofollow') || directives.includes('none')) out.nofollow = true;
  }
  return out;
}
