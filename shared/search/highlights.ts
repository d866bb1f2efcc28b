import { contentStems, sentenceSegmenter } from '../enrich/text.js';

/*
 * Highlights: the passages of a page's markdown that answer a query, in the page's own words. The
 * markdown is cut into units a reader quotes — sentences of its paragraphs, list items, headings,
 * a code block whole, a table's rows — each scored by the query's terms it holds (by stem, rarer
 * terms on the page weigh more, a phrase of the query as written adds), and the best kept in the
 * page's order: consecutive sentences join again, code stays fenced, a table's rows come under its
 * header. Each passage keeps its span in the markdown, so a reader can find it in the archived page.
 */

/** A passage of the markdown: its text as the page wrote it, and its span (`start`, `end`) in the markdown. */
export interface Passage {
  text: string;
  start: number;
  end: number;
}

export interface Highlights {
  /** The passages joined as Firecrawl's `highlights` (blank lines between them). */
  text: string;
  passages: Passage[];
}

type UnitKind = 'sentence' | 'line' | 'code' | 'row';

interface Unit {
  kind: UnitKind;
  start: number;
  end: number;
  /** Units of one paragraph, code block or table share a group; sentences of a group are adjacent when their indexes are. */
  group: number;
  /** For a table row: its table's header and separator lines. */
  header?: string;
}

export interface HighlightOptions {
  /** At most this many units. @default 6 */
  maxUnits?: number;
  /** At most this many characters of passages. @default 1500 */
  maxChars?: number;
  language?: string;
}

const FENCE = /^(`{3,}|~{3,})/;
const TABLE_ROW = /^\s*\|.*\|\s*$/;
const TABLE_SEPARATOR = /^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$/;
const LIST_OR_HEADING = /^\s{0,3}(#{1,6}\s|[-*+]\s|\d+[.)]\s|>\s?)/;

/** The markdown's units, with their spans. */
function unitsOf(markdown: string, language?: string): Unit[] {
  const units: Unit[] = [];
  const lines: Array<{ text: string; start: number }> = [];
  for (let at = 0; at <= markdown.length;) {
    const nl = markdown.indexOf('\n', at);
    const end = nl < 0 ? markdown.length : nl;
    lines.push({ text: markdown.slice(at, end), start: at });
    if (nl < 0) break;
    at = nl + 1;
  }
  const segmenter = sentenceSegmenter(language);
  let group = 0;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const fence = FENCE.exec(line.text.trim());
    if (fence) {
      // A code block, whole: from its fence to the closing one (or the end).
      let j = i + 1;
      while (j < lines.length && !lines[j]!.text.trim().startsWith(fence[1]!)) j++;
      const last = lines[Math.min(j, lines.length - 1)]!;
      units.push({ kind: 'code', start: line.start, end: last.start + last.text.length, group: ++group });
      i = j;
      continue;
    }
    if (TABLE_ROW.test(line.text) && i + 1 < lines.length && TABLE_SEPARATOR.test(lines[i + 1]!.text)) {
      const header = `${line.text}\n${lines[i + 1]!.text}`;
      group++;
      let j = i + 2;
      for (; j < lines.length && TABLE_ROW.test(lines[j]!.text); j++) {
        const row = lines[j]!;
        units.push({ kind: 'row', start: row.start, end: row.start + row.text.length, group, header });
      }
      i = j - 1;
      continue;
    }
    if (!line.text.trim()) continue;
    if (LIST_OR_HEADING.test(line.text)) {
      units.push({ kind: 'line', start: line.start, end: line.start + line.text.length, group: ++group });
      continue;
    }
    // A paragraph's line: its sentences.
    group++;
    for (const s of segmenter.segment(line.text)) {
      const lead = s.segment.length - s.segment.trimStart().length;
      const text = s.segment.trim();
      if (!text) continue;
      const start = line.start + s.index + lead;
      units.push({ kind: 'sentence', start, end: start + text.length, group });
    }
  }
  return units;
}

/** The query's passages of a page's markdown; empty when no unit holds any of its terms. */
export function highlightsOf(markdown: string, query: string, options: HighlightOptions = {}): Highlights {
  const terms = [...new Set(contentStems(query, options.language))];
  if (terms.length === 0 || !markdown) return { text: '', passages: [] };
  const units = unitsOf(markdown, options.language);
  const stems = units.map((u) => new Set(contentStems(markdown.slice(u.start, u.end), options.language)));
  // A term that many units hold says less about any one of them.
  const weight = new Map(terms.map((t) => [t, Math.log(1 + units.length / (1 + stems.filter((s) => s.has(t)).length))]));
  const phrase = query.toLowerCase().replace(/\s+/g, ' ').trim();
  const scored = units.map((u, i) => {
    let score = 0;
    for (const t of terms) if (stems[i]!.has(t)) score += weight.get(t)!;
    if (score > 0 && phrase.includes(' ') && markdown.slice(u.start, u.end).toLowerCase().replace(/\s+/g, ' ').includes(phrase)) score *= 1.5;
    return { i, score };
  });
  const best = Math.max(0, ...scored.map((s) => s.score));
  if (best === 0) return { text: '', passages: [] };
  const maxUnits = options.maxUnits ?? 6;
  const maxChars = options.maxChars ?? 1500;
  const chosen: number[] = [];
  let chars = 0;
  for (const { i, score } of [...scored].sort((a, b) => b.score - a.score || a.i - b.i)) {
    if (score < 0.5 * best || chosen.length >= maxUnits) break;
    const length = units[i]!.end - units[i]!.start;
    if (chosen.length > 0 && chars + length > maxChars) continue;
    chosen.push(i);
    chars += length;
  }
  chosen.sort((a, b) => a - b);
  return joined(markdown, units, chosen);
}

/** The chosen units as passages: adjacent sentences of a paragraph as one, a table's rows under its header. */
function joined(markdown: string, units: Unit[], chosen: number[]): Highlights {
  const passages: Passage[] = [];
  const parts: string[] = [];
  let table: { group: number; rows: string[] } | undefined;
  const flushTable = () => {
    if (table) parts.push(`${units.find((u) => u.group === table!.group)!.header}\n${table.rows.join('\n')}`);
    table = undefined;
  };
  for (let k = 0; k < chosen.length; k++) {
    const i = chosen[k]!;
    const u = units[i]!;
    if (u.kind === 'row') {
      if (table?.group !== u.group) flushTable();
      table ??= { group: u.group, rows: [] };
      table.rows.push(markdown.slice(u.start, u.end));
      passages.push({ text: markdown.slice(u.start, u.end), start: u.start, end: u.end });
      continue;
    }
    flushTable();
    // Consecutive sentences of one paragraph read as the page wrote them.
    let last = i;
    while (k + 1 < chosen.length && chosen[k + 1] === last + 1 && units[last + 1]!.group === u.group && u.kind === 'sentence') last = chosen[++k]!;
    const end = units[last]!.end;
    const text = markdown.slice(u.start, end);
    passages.push({ text, start: u.start, end });
    parts.push(text);
  }
  flushTable();
  return { text: parts.join('\n\n'), passages };
}
