import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ArchiveReplay, targetHistory } from '../archive/replay.js';
import type { CrawlSettings } from '../config/settings.js';
import { DataDirError, UsageError } from '../errors.js';
import { openEmbedded } from '../pipeline/embedded.js';
import { reextract, type ReextractReport } from '../pipeline/reextract.js';
import { DB_FILE, SqliteCrawlStore } from '../store/local/sqlite-store.js';
import { CURRENT_EDGES } from '../store/local/sqlite-rows.js';
import { jsonLine } from './render.js';

/** Opens an existing data directory, or says how to make one. */
export function requireDataDir(dir: string, what = 'no trawl data'): void {
  if (!existsSync(join(dir, DB_FILE))) {
    throw new DataDirError(`${what} in ${dir}: no crawl has run there; run trawl crawl <url> --data ${dir} first, or pass --data with the directory of an earlier crawl`);
  }
}

/** Opens a data directory for reading only: works while a crawl writes to it. */
export function openForReading(dir: string): SqliteCrawlStore {
  requireDataDir(dir);
  return new SqliteCrawlStore(dir, { readonly: true });
}

/** `trawl export --format jsonl`: pages (with extraction), edges and interactions, one JSON object a line. */
export async function exportCommand(dataDir: string, format: string | undefined, out: (line: string) => void): Promise<number> {
  if ((format ?? 'jsonl') !== 'jsonl') throw new UsageError(`unknown export format ${JSON.stringify(format)}: only jsonl is supported`);
  const store = openForReading(dataDir);
  let n = 0;
  try {
    const db = store.db;
    const emit = (type: string, row: Record<string, unknown>) => {
      out(jsonLine({ type, ...row }));
      n++;
    };
    for (const row of db.prepare('SELECT p.*, x.markdown, x.description, x.author, x.published, x.language, x.word_count, x.simhash, x.near_duplicate_of, x.text_duplicate_of FROM pages p LEFT JOIN extracts x ON x.url_id = p.url_id').iterate()) emit('page', row as Record<string, unknown>);
    for (const row of db.prepare(`SELECT e.* FROM ${CURRENT_EDGES}`).iterate()) emit('edge', row as Record<string, unknown>);
    for (const row of db.prepare('SELECT * FROM fetches ORDER BY id').iterate()) {
      const r = row as Record<string, unknown>;
      emit('interaction', { ...r, headers: r.headers ? JSON.parse(r.headers as string) : null });
    }
  } finally {
    await store.close();
  }
  return n;
}

/** `trawl replay --reextract`: extraction again over the archive, with no network. */
export async function replayCommand(settings: CrawlSettings, flags: { reextract?: boolean; run?: string }, out: (line: string) => void): Promise<ReextractReport> {
  if (!flags.reextract) throw new UsageError('trawl replay needs --reextract (re-run extraction over the archive)');
  requireDataDir(settings.data);
  const runId = flags.run ? Number(flags.run) : undefined;
  if (runId !== undefined && !Number.isInteger(runId)) throw new UsageError(`invalid --run ${JSON.stringify(flags.run)}: give a run number (trawl status shows it)`);
  const ctx = openEmbedded(settings, { fetcherFor: (store) => new ArchiveReplay(store, settings.data, { runId }), command: 'trawl replay --reextract' });
  try {
    const report = await reextract({ ...ctx, archive: undefined });
    if (settings.json) out(jsonLine({ type: 'reextract', ...report }));
    else {
      out(`re-extracted ${report.pages} pages from the archive: ${report.changed} changed, ${report.unchanged} unchanged, ${report.failed.length} failed`);
      for (const [field, count] of Object.entries(report.fields)) out(`  ${field.padEnd(8)} changed on ${count} pages`);
      for (const f of report.failed.slice(0, 20)) out(`  failed: ${f.url}: ${f.error}`);
    }
    return report;
  } finally {
    await ctx.close();
  }
}

/** `trawl history <url>`: every interaction with a URL, marking content drift between fetches. */
export async function historyCommand(dataDir: string, url: string | undefined, json: boolean, out: (line: string) => void): Promise<void> {
  if (!url) throw new UsageError('trawl history needs a URL: trawl history https://example.com/page');
  const store = openForReading(dataDir);
  try {
    const entries = await targetHistory(store, url);
    if (entries.length === 0) out(json ? jsonLine({ type: 'history', url, entries: [] }) : `${url} was never fetched`);
    for (const e of entries) out(json ? jsonLine({ type: 'fetch', ...e }) : `run ${e.runId}  ${new Date(e.fetchedAt).toISOString()}  ${e.status ?? e.error ?? '-'}  ${e.contentHash?.slice(0, 12) ?? ''}${e.changed ? '  changed' : ''}`);
  } finally {
    await store.close();
  }
}
