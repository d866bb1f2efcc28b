import type { Database as Db } from 'better-sqlite3';
import { CURRENT_EDGES } from './sqlite-rows.js';

/** One line of `trawl export`: a page with its extraction (and its CSS-selector fields), an edge of a current snapshot, or an interaction. */
export type ExportRecord = { type: 'page' | 'edge' | 'interaction' } & Record<string, unknown>;

/** Streams the data directory's pages, current edges and interactions (in that order) without loading them at once. */
export async function* exportRecords(db: Db): AsyncGenerator<ExportRecord> {
  const pages =
    db.prepare(`SELECT p.*, x.markdown, x.description, x.author, x.published, x.language, x.word_count, x.simhash, x.near_duplicate_of, x.text_duplicate_of, x.fields
    FROM pages p LEFT JOIN extracts x ON x.url_id = p.url_id`);
  for (const row of pages.iterate()) {
    const r = row as Record<string, unknown>;
    yield { type: 'page', ...r, fields: r.fields ? (JSON.parse(r.fields as string) as unknown) : null };
  }
  for (const row of db.prepare(`SELECT e.* FROM ${CURRENT_EDGES}`).iterate()) yield { type: 'edge', ...(row as Record<string, unknown>) };
  for (const row of db.prepare('SELECT * FROM fetches ORDER BY id').iterate()) {
    const r = row as Record<string, unknown>;
    yield { type: 'interaction', ...r, headers: r.headers ? (JSON.parse(r.headers as string) as unknown) : null };
  }
}
