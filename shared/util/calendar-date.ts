/**
 * Whether the date of an ISO date or time (`YYYY`, `YYYY-MM`, `YYYY-MM-DD`, or one with a time) is a
 * day of the calendar. `Date.parse` rolls 2026-02-31 over to March 3, so a filter given it would
 * quietly match from the wrong day.
 *
 * @example realCalendarDate('2024-02-29') // true
 * @example realCalendarDate('2026-02-31') // false
 */
export function realCalendarDate(value: string): boolean {
  const m = /^(\d{4})(?:-(\d{2})(?:-(\d{2}))?)?(?:$|T)/.exec(value);
  if (!m) return false;
  const month = m[2] === undefined ? 1 : Number(m[2]);
  const day = m[3] === undefined ? 1 : Number(m[3]);
  if (month < 1 || month > 12 || day < 1) return false;
  // Day 0 of the next month is the last day of this one.
  return day <= new Date(Date.UTC(Number(m[1]), month, 0)).getUTCDate();
}
