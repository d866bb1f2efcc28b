/** What a tag set may hold: 3–12 topic tags. */
export const TAG_LIMITS = { min: 3, max: 12 } as const;

/** Site furniture, not topics: never a tag, whoever proposes it. */
export const DENY_TAGS: ReadonlySet<string> = new Set(
  [
    'home',
    'homepage',
    'login',
    'log-in',
    'sign-in',
    'signin',
    'sign-up',
    'signup',
    'register',
    'logout',
    'menu',
    'navigation',
    'search',
    'privacy',
    'privacy-policy',
    'cookies',
    'cookie-policy',
    'terms',
    'terms-of-service',
    'contact',
    'contact-us',
    'subscribe',
    'newsletter',
    'share',
    'click-here',
    'read-more',
    'more',
    'page',
    'website',
    'blog',
    'article',
    'post',
    'news',
    'uncategorized',
    'untitled',
    'other',
    'misc',
    'general',
    'guide',
    'tips',
    'introduction',
    'overview',
    'summary',
    'untagged',
  ].map((t) => `#${t}`),
);

/** A tag in its one form: `#` then lower-case kebab-case words (letters and digits of any script). */
export function normalizeTag(raw: string): string | undefined {
  const body = raw
    .normalize('NFKC')
    .toLowerCase()
    .replace(/^[#\s"'`*\-•\d.)]+(?=\p{L})/u, '')
    .replace(/['’]/g, '')
    .replace(/[^\p{L}\p{N}]+/gu, '-')
    .replace(/^-+|-+$/g, '');
  if (!body || body.length > 40 || /^\p{N}+$/u.test(body) || body.split('-').length > 4) return undefined;
  const tag = `#${body}`;
  return DENY_TAGS.has(tag) ? undefined : tag;
}

/** Normalised, deduplicated (also singular/plural twins), deny-listed tags, at most {@link TAG_LIMITS}.max, in order. */
export function cleanTags(raw: Iterable<string>): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  for (const r of raw) {
    const tag = normalizeTag(r);
    if (!tag) continue;
    const key = tag.replace(/(?:es|s)$/, '');
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(tag);
    if (out.length === TAG_LIMITS.max) break;
  }
  return out;
}

/**
 * A model's tag answer read leniently: a JSON array (possibly inside a code fence or an object with
 * a `tags` field), else a comma-, newline- or space-separated `#tag` list. Returns the raw strings.
 */
export function readTagOutput(output: string): string[] {
  const text = output.replace(/```(?:json)?/gi, '').trim();
  const start = text.search(/[[{]/);
  if (start >= 0) {
    try {
      const parsed: unknown = JSON.parse(text.slice(start, Math.max(text.lastIndexOf(']'), text.lastIndexOf('}')) + 1));
      const list = Array.isArray(parsed) ? parsed : (parsed as { tags?: unknown }).tags;
      if (Array.isArray(list)) return list.filter((t): t is string => typeof t === 'string');
    } catch {
      // not JSON after all: read it as a list below
    }
  }
  const hashed = text.match(/#[\p{L}\p{N}][\p{L}\p{N}-]*/gu);
  if (hashed && hashed.length >= TAG_LIMITS.min) return hashed;
  return text
    .split(/[,\n;]+/)
    .map((t) => t.trim())
    .filter(Boolean);
}
