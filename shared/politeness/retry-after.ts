/**
 * Parses Retry-After (RFC 9110 §10.2.3): delay-seconds or an HTTP-date. Returns the wait in ms
 * from `now`, never negative, or undefined when the header is absent or malformed.
 *
 * @example parseRetryAfter('120', now) // 120000
 */
export function parseRetryAfter(value: string | undefined, now: number): number | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  if (Number.isNaN(date) || !/[a-z]/i.test(trimmed)) return undefined;
  return Math.max(0, date - now);
}
