import Database from './sqlite-driver.js';
import type { Db, Statement } from './sqlite-types.js';
import { closeSync, existsSync, openSync, readSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { errorMessage } from '../../errors.js';
import { SCHEMA_SQL, SCHEMA_VERSION } from './schema.js';
import { blobFile } from './blob-store.js';
import type { ArchiveCheck, DoctorReport, TableReport } from '../../ports/data-dir-reports.js';

export type { ArchiveCheck, DoctorReport, TableReport };

/** Checks the WARC files and blobs the fetch records of `db` point to, under the data directory. */
export function checkArchive(db: Db, dataDir: string): ArchiveCheck {
  const out: ArchiveCheck = { warcFiles: 0, missingWarc: [], truncatedWarc: [], blobs: 0, missingBlobs: 0, missingBlobSample: [] };
  const files = db
    .prepare('SELECT warc_file AS file, max(warc_offset + warc_length) AS end FROM fetches WHERE warc_file IS NOT NULL GROUP BY warc_file ORDER BY warc_file')
    .all() as Array<{ file: string; end: number }>;
  for (const { file, end } of files) {
    out.warcFiles++;
    const path = join(dataDir, 'warc', file);
    if (!existsSync(path)) out.missingWarc.push(file);
    else if (statSync(path).size < end) out.truncatedWarc.push(file);
  }
  // A database older than schema 11 has no table of bodies: they are all files.
  const inTable = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'body_bytes'").get()
    ? db.prepare('SELECT 1 FROM body_bytes WHERE hash = ?')
    : undefined;
  for (const row of db.prepare('SELECT DISTINCT content_hash AS hash FROM fetches WHERE content_hash IS NOT NULL').iterate()) {
    const hash = (row as { hash: string }).hash;
    out.blobs++;
    if (inTable?.get(hash) === undefined && !blobFile(join(dataDir, 'blobs'), hash)) {
      out.missingBlobs++;
      if (out.missingBlobSample.length < 5) out.missingBlobSample.push(hash);
    }
  }
  return out;
}

function archiveProblems(a: ArchiveCheck): string[] {
  const problems: string[] = [];
  if (a.missingWarc.length)
    problems.push(`${a.missingWarc.length} WARC file(s) the records point to are missing from warc/: ${a.missingWarc.slice(0, 5).join(', ')}`);
  if (a.truncatedWarc.length) problems.push(`${a.truncatedWarc.length} WARC file(s) end before their last record: ${a.truncatedWarc.slice(0, 5).join(', ')}`);
  if (a.missingBlobs)
    problems.push(
      `${a.missingBlobs} of ${a.blobs} bodies are missing from both the database and blobs/ (${a.missingBlobSample.join(', ')}${a.missingBlobs > 5 ? ', …' : ''})`,
    );
  return problems;
}

/** Moves a database file (and its WAL and shared-memory files) aside as `<file>.damaged-<now>`; returns that name. */
export function moveAside(file: string, now: number): string {
  const damaged = `${file}.damaged-${now}`;
  renameSync(file, damaged);
  for (const suffix of ['-wal', '-shm']) if (existsSync(file + suffix)) renameSync(file + suffix, damaged + suffix);
  return damaged;
}

/** Thrown by `salvage` when nothing can be read: the damaged file is left untouched. */
export class UnreadableDatabaseError extends Error {
  constructor(
    readonly report: DoctorReport,
    message: string,
  ) {
    super(message);
    this.name = 'UnreadableDatabaseError';
  }
}

/** The file's length against the page count its header records: a truncated file says so. */
export function truncation(file: string): string | undefined {
  const header = Buffer.alloc(100);
  const fd = openSync(file, 'r');
  try {
    if (readSync(fd, header, 0, 100, 0) < 100) return `${file} is ${statSync(file).size} bytes, shorter than an SQLite header`;
  } finally {
    closeSync(fd);
  }
  const raw = header.readUInt16BE(16);
  const pageSize = raw === 1 ? 65536 : raw;
  const pages = header.readUInt32BE(28);
  const expected = pageSize * pages;
  const size = statSync(file).size;
  return pages > 0 && size < expected ? `${file} is truncated: ${size} bytes of the ${expected} its header records (${pages} pages of ${pageSize})` : undefined;
}

/** The tables, or undefined when even the schema cannot be read. */
function schemaOf(db: Db): string[] | undefined {
  try {
    return tablesOf(db);
  } catch {
    return undefined;
  }
}

function unreadableReport(file: string, err: string): DoctorReport {
  return { file, problems: [truncation(file) ?? `the schema cannot be read (${err})`, 'nothing can be read from this file'], tables: [], unreadable: true };
}

/** Tables in the order they are copied (parents before children does not matter: there are no foreign keys). */
function tablesOf(db: Db): string[] {
  return (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").all() as Array<{ name: string }>).map(
    (r) => r.name,
  );
}

/** Full-text (FTS5) tables: copied through the table itself, rowids kept; their shadow tables are its business. */
function virtualTables(db: Db): string[] {
  return (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE%'").all() as Array<{ name: string }>).map(
    (r) => r.name,
  );
}

function hasRowid(db: Db, table: string): boolean {
  try {
    db.prepare(`SELECT rowid FROM "${table}" LIMIT 0`).all();
    return true;
  } catch {
    return false;
  }
}

/**
 * Reads every row it can: rowid tables are read in rowid order and, past an unreadable page,
 * from further rowids on (skipping ahead in growing steps); other tables up to the first error.
 */
function* readable(db: Db, table: string, report: TableReport): Generator<Record<string, unknown>> {
  if (!hasRowid(db, table)) {
    try {
      for (const row of db.prepare(`SELECT * FROM "${table}"`).iterate()) {
        report.rows++;
        yield row as Record<string, unknown>;
      }
    } catch (err) {
      report.error = errorMessage(err);
    }
    return;
  }
  const stmt = db.prepare(`SELECT rowid AS "__rowid", * FROM "${table}" WHERE rowid > ? ORDER BY rowid`);
  let last = 0;
  for (let skip = 1; skip <= 1_000_000; skip *= 10) {
    try {
      for (const raw of stmt.iterate(last)) {
        // `__rowid` goes along: tables whose rowid is their identity (full text) keep it in the copy.
        const row = raw as Record<string, unknown>;
        last = Number(row.__rowid);
        report.rows++;
        yield row;
      }
      return;
    } catch (err) {
      report.error ??= errorMessage(err);
      last += skip;
    }
  }
}

/** Checks a database file thoroughly and counts what each table still yields. */
export function diagnose(file: string): DoctorReport {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    let problems: string[];
    try {
      problems = (db.pragma('integrity_check(50)') as Array<{ integrity_check: string }>).map((r) => r.integrity_check).filter((r) => r !== 'ok');
    } catch (err) {
      problems = [errorMessage(err)];
    }
    const names = schemaOf(db);
    if (!names) return unreadableReport(file, problems[0] ?? 'no schema');
    const tables = names.map((table) => {
      const report: TableReport = { table, rows: 0 };
      for (const _row of readable(db, table, report)) {
        // counting only
      }
      return report;
    });
    let archive: ArchiveCheck | undefined;
    try {
      archive = checkArchive(db, dirname(file));
      problems.push(...archiveProblems(archive));
    } catch (err) {
      problems.push(`the archive could not be checked against the fetch records: ${errorMessage(err)}`);
    }
    return { file, problems, tables, archive };
  } finally {
    db.close();
  }
}

/**
 * Copies what can be read into a new file with the current schema, then puts it in place of the
 * damaged one, which is kept beside it as `<file>.damaged-<time>`.
 */
export function salvage(file: string, now = Date.now()): DoctorReport {
  const target = `${file}.repair-${now}`;
  const source = new Database(file, { readonly: true, fileMustExist: true });
  const sourceTables = schemaOf(source);
  if (!sourceTables) {
    source.close();
    const report = unreadableReport(file, 'database disk image is malformed');
    throw new UnreadableDatabaseError(
      report,
      `nothing can be read from ${file}: ${report.problems[0]}. It is left as it is: restore it from a backup, or move it away and crawl again (the WARC files in warc/, every raw response, are separate and intact)`,
    );
  }
  const out = new Database(target);
  let done = false;
  const tables: TableReport[] = [];
  let problems: string[] = [];
  try {
    try {
      problems = (source.pragma('quick_check(50)') as Array<{ quick_check: string }>).map((r) => r.quick_check).filter((r) => r !== 'ok');
    } catch (err) {
      problems = [errorMessage(err)];
    }
    out.exec(SCHEMA_SQL);
    const known = new Set(tablesOf(out));
    const virtual = virtualTables(out);
    const shadow = (t: string) => virtual.some((v) => t.startsWith(`${v}_`));
    for (const table of sourceTables.filter((t) => known.has(t) && !shadow(t))) {
      const columns = new Set((out.pragma(`table_info("${table}")`) as Array<{ name: string }>).map((c) => c.name));
      if (virtual.includes(table)) columns.add('__rowid');
      const report: TableReport = { table, rows: 0 };
      const insert = new Map<string, Statement>();
      out.transaction(() => {
        for (const row of readable(source, table, report)) {
          const keys = Object.keys(row).filter((k) => columns.has(k));
          const sig = keys.join(',');
          let stmt = insert.get(sig);
          if (!stmt) {
            const names = keys.map((k) => (k === '__rowid' ? 'rowid' : `"${k}"`));
            stmt = out.prepare(`INSERT OR IGNORE INTO "${table}" (${names.join(', ')}) VALUES (${keys.map(() => '?').join(', ')})`);
            insert.set(sig, stmt);
          }
          stmt.run(...keys.map((k) => row[k]));
        }
      })();
      tables.push(report);
    }
    out.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES ('schema_version', ?)").run(String(SCHEMA_VERSION));
    done = true;
  } finally {
    source.close();
    out.close();
    // A repair that failed half-way leaves no partial file behind.
    if (!done) for (const f of [target, `${target}-journal`, `${target}-wal`, `${target}-shm`]) rmSync(f, { force: true });
  }
  const damaged = moveAside(file, now);
  renameSync(target, file);
  rmSync(`${target}-journal`, { force: true });
  return {
    file,
    problems,
    tables,
    repaired: { damaged, rowsCopied: tables.reduce((n, t) => n + t.rows, 0), rowsLost: problems.length > 0 || tables.some((t) => t.error) },
  };
}
