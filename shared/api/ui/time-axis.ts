// The run chart's time axis in the reader's own locale and time zone (uPlot's own formats are
// English month names and a 12-hour clock, whatever the locale).

/** Tick labels for times `splits` (epoch seconds) `incr` seconds apart: seconds shown when ticks are under a minute apart, the date when they are a day or more apart or the day changes. */
export function timeTicks(splits: readonly number[], incr: number, locale: string | undefined, timeZone?: string): string[] {
  const zone = timeZone ? { timeZone } : {};
  const time = new Intl.DateTimeFormat(locale, { hour: '2-digit', minute: '2-digit', ...(incr < 60 ? { second: '2-digit' } : {}), ...zone });
  const day = new Intl.DateTimeFormat(locale, { day: 'numeric', month: 'short', ...zone });
  let lastDay = '';
  return splits.map((s) => {
    const at = new Date(s * 1000);
    const d = day.format(at);
    const changed = d !== lastDay;
    lastDay = d;
    if (incr >= 86_400) return d;
    return changed ? `${time.format(at)}\n${d}` : time.format(at);
  });
}

/** A moment in full, for the chart's legend. */
export function timeLabel(seconds: number, locale: string | undefined, timeZone?: string): string {
  return new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'medium', ...(timeZone ? { timeZone } : {}) }).format(new Date(seconds * 1000));
}
