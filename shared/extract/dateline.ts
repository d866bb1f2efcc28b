import { CONTENT_RULES as R } from './content-rules.js';
import { DATELINE_NAMES } from './dateline-names.js';

/*
 * Datelines: the "Published 4 May 2021, 17:13" and "Donnerstag, 31. Mai 2012" lines around an
 * article. Month and weekday names of 22 languages come from the runtime's own locale data
 * (Intl/CLDR), generated into dateline-names.ts by `npm run gen:datelines`, so no word lists are
 * ours and no thread loads ICU's data of 22 locales (~44 MB) to recognise a date.
 */

let pattern: RegExp | undefined;
function calendarWords(): RegExp {
  if (pattern) return pattern;
  const escaped = DATELINE_NAMES.map((n) => n.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
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
