import { CONTENT_RULES as R } from './content-rules.js';

/*
 * Datelines: the "Published 4 May 2021, 17:13" and "Donnerstag, 31. Mai 2012" lines around an
 * article. Month and weekday names come from the runtime's own locale data (Intl), so the
 * languages below are recognised without word lists of our own.
 */

const LOCALES = ['en', 'de', 'fr', 'es', 'it', 'pt', 'nl', 'pl', 'cs', 'sk', 'sv', 'da', 'nb', 'fi', 'hu', 'ro', 'tr', 'ru', 'uk', 'el', 'hr', 'sl'];

function names(): string[] {
  const out = new Set<string>();
  const add = (s: string) => {
    const w = s.toLowerCase().replace(/[.,]/g, '').trim();
    if (w.length >= 3) out.add(w);
  };
  for (const locale of LOCALES) {
    for (let m = 0; m < 12; m++) {
      const date = new Date(Date.UTC(2021, m, 15));
      for (const month of ['long', 'short'] as const) {
        add(new Intl.DateTimeFormat(locale, { month, timeZone: 'UTC' }).format(date));
        // The form used inside a date ("4 maja", "4 мая"): genitive in Slavic languages.
        for (const part of new Intl.DateTimeFormat(locale, { day: 'numeric', month, timeZone: 'UTC' }).formatToParts(date))
          if (part.type === 'month') add(part.value);
      }
    }
    for (let d = 0; d < 7; d++) {
      const date = new Date(Date.UTC(2021, 0, 3 + d));
      for (const weekday of ['long', 'short'] as const) add(new Intl.DateTimeFormat(locale, { weekday, timeZone: 'UTC' }).format(date));
    }
  }
  return [...out].sort((a, b) => b.length - a.length);
}

let pattern: RegExp | undefined;
function calendarWords(): RegExp {
  if (pattern) return pattern;
  const escaped = names().map((n) => n.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  pattern = new RegExp(`(?<![\\p{L}])(${escaped.join('|')})(?![\\p{L}])`, 'giu');
  return pattern;
}

const NUMERIC_DATE = /\b\d{1,4}[./-]\d{1,2}[./-]\d{2,4}\b|\b\d{4}-\d{2}-\d{2}(T[\d:.+-Z]+)?\b/g;
const TIME = /\b\d{1,2}:\d{2}(:\d{2})?(\.\d+)?([+-]\d{2}:\d{2})?\s*(am|pm|uhr|h)?\b/gi;

/**
 * A short line (`datelineChars`) that is mostly a date: a numeric date or a day with a month name,
 * and at most `datelineWords` other words ("Published:", "by", "Updated", "Uhr").
 */
export function isDateline(text: string): boolean {
  if (text.length > R.datelineChars) return false;
  let rest = text.toLowerCase();
  let dated = false;
  const strip = (re: RegExp) => {
    rest = rest.replace(re, () => {
      dated = true;
      return ' ';
    });
  };
  strip(NUMERIC_DATE);
  strip(TIME);
  const before = rest;
  rest = rest.replace(calendarWords(), ' ');
  const monthNamed = rest !== before && /\d/.test(before);
  if (!dated && !monthNamed) return false;
  const words = rest
    .replace(/\d+(st|nd|rd|th|er|e|\.)?/g, ' ')
    .split(/[^\p{L}]+/u)
    .filter((w) => w.length > 1);
  return words.length <= R.datelineWords;
}
