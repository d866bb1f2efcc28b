import type { ExportRecord } from '../../ports/data-dir-reports.js';
import type { Db } from './sqlite-types.js';
import type { WaczPage } from '../../archive/wacz.js';
import { CURRENT_EDGES } from './sqlite-rows.js';

export type { ExportRecord };

/** Columns that hold JSON text: exported as the JSON they hold. */
const JSON_COLUMNS = new Set(['fields', 'headers', 'render', 'extracted']);
/** Columns SQLite keeps as 0/1: exported as booleans. */
const BOOLEAN_COLUMNS = new Set(['truncated', 'indexable', 'nofollow', 'not_modified', 'internal']);

/** A row as the library and the API name things: camelCase keys, JSON columns parsed, flags as booleans. */
function exported(type: ExportRecord['type'], row: Record<string, unknown>): ExportRecord {
  const out: ExportRecord = { type };
  for (const [column, value] of Object.entries(row)) {
    const key = column.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
    if (JSON_COLUMNS.has(column)) out[key] = typeof value === 'string' ? (JSON.parse(value) as unknown) : null;
    else if (BOOLEAN_COLUMNS.has(column) && typeof value === 'number') out[key] = value === 1;
    else out[key] = value;
  }
  return out;
}

/** Streams the data directory's pages, current edges and interactions (in that order) without loading them at once. */
export async function* exportRecords(db: Db): AsyncGenerator<ExportRecord> {
  const pages =
    db.prepare(`SELECT p.*, x.markdown, x.description, x.author, x.published, x.language, x.word_count, x.simhash, x.near_duplicate_of, x.text_duplicate_of, x.fields,
      e.extracted
    FROM pages p LEFT JOIN extracts x ON x.url_id = p.url_id LEFT JOIN enrichments e ON e.url_id = p.url_id`);
  for (const row of pages.iterate()) yield exported('page', row as Record<string, unknown>);
  for (const row of db.prepare(`SELECT e.* FROM ${CURRENT_EDGES}`).iterate()) yield exported('edge', row as Record<string, unknown>);
  for (const row of db.prepare('SELECT * FROM fetches ORDER BY id').iterate()) yield exported('interaction', row as Record<string, unknown>);
}

/** A WARC file of the snapshot, and where its last stored record starts (a whole record: the file reads well at least to its end). */
export interface WaczWarcFile {
  file: string;
  lastRecord: number;
}

/**
 * What a WACZ of the data directory holds: the WARC files (of one run, or all) and the pages whose
 * latest 2xx response is in them, with their title and, where the extraction is of that response,
 * its text.
 */
export function waczSources(db: Db, runId?: number): { warcFiles: WaczWarcFile[]; pages: Iterable<WaczPage> } {
  // A snapshot: the fetches up to the last one stored now (one writer appends them in order), so a
  // crawl writing meanwhile adds nothing to what this WACZ holds.
  const last = (db.prepare('SELECT max(id) AS id FROM fetches').get() as { id: number | null }).id ?? 0;
  const inRun = `AND id <= @last ${runId === undefined ? '' : 'AND run_id = @runId'}`;
  const params = runId === undefined ? { last } : { last, runId };
  const warcFiles = db
    .prepare(`SELECT warc_file AS file, max(warc_offset) AS lastRecord FROM fetches WHERE warc_file IS NOT NULL ${inRun} GROUP BY warc_file ORDER BY warc_file`)
    .all(params) as WaczWarcFile[];
  const rows = db.prepare(
    `SELECT f.url, f.url_id, f.fetched_at, coalesce(x.title, p.title) AS title, CASE WHEN x.snapshot = f.content_hash THEN x.markdown END AS text
     FROM fetches f
     JOIN (SELECT url_id, max(id) AS id FROM fetches WHERE status BETWEEN 200 AND 299 AND kind IN ('page', 'pdf') AND warc_file IS NOT NULL ${inRun} GROUP BY url_id) last ON last.id = f.id
     LEFT JOIN pages p ON p.url_id = f.url_id LEFT JOIN extracts x ON x.url_id = f.url_id
     ORDER BY f.id`,
  );
  function* pages(): Generator<WaczPage> {
    for (const row of rows.iterate(params)) {
      const r = row as { url: string; url_id: string; fetched_at: number; title: string | null; text: string | null };
      yield { url: r.url, ts: r.fetched_at, id: r.url_id, ...(r.title ? { title: r.title } : {}), ...(r.text ? { text: r.text } : {}) };
    }
  }
  return { warcFiles, pages: pages() };
}
