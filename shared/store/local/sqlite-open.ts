import Database from './sqlite-driver.js';
import type { Db } from './sqlite-types.js';
import { accessSync, constants, existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { DataDirError, noRoomCode, errorMessage } from '../../errors.js';
import { SCHEMA_SQL, SCHEMA_VERSION } from './schema.js';
import { checkSchema } from './schema-versions.js';
import type { StageClock } from '../../log/stage-clock.js';
import { loadVectorFunctions } from './vector-functions.js';

// Opening the crawl database: the data directory, the connection's pragmas, the damage check, the schema.

export const DB_FILE = 'trawl.db';

/** Creates the data directory if needed and checks that we can write to it. */
export function prepareDataDir(dir: string): void {
  try {
    mkdirSync(dir, { recursive: true });
    accessSync(dir, constants.W_OK);
  } catch (err) {
    throw new DataDirError(`cannot write to data directory ${dir} (${errorMessage(err)}): pass --data with a writable directory`, { cause: err });
  }
}

export interface OpenOptions {
  /** Reads only (status, graph, export, search): never writes, so it works while a crawl runs. */
  readonly?: boolean;
  /** Runs `PRAGMA quick_check` first (when opening to write), so damage is found before new writes go in. */
  check?: boolean;
  /** Writes on a thread of their own (a crawl): the calling thread only reads and posts writes. */
  writerThread?: boolean;
  /** Gets the time of the writes, by stage (`--stage-times`). */
  stages?: StageClock;
}

function isCorruption(err: unknown): boolean {
  const code = (err as { code?: string }).code ?? '';
  return code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB';
}

/** The error for a damaged database file, with the command that recovers it. */
export function damagedError(file: string, detail: string, cause?: unknown): DataDirError {
  const dir = dirname(file);
  return new DataDirError(
    `${file} is damaged (${detail}): run trawl doctor --data ${dir} to see what is wrong, then trawl doctor --repair --data ${dir} to salvage what can be read into a new file (the damaged one is kept beside it)`,
    { cause },
  );
}

/**
 * A reading connection refuses writes (`query_only`) but is an ordinary one, so that when it is
 * the last it checkpoints and removes the -wal and -shm files: a read leaves no files behind. A
 * directory we may not write to gets a read-only handle instead.
 */
function readingConnection(file: string): Db {
  try {
    return new Database(file, { fileMustExist: true });
  } catch (err) {
    if (isCorruption(err) || ((err as { code?: string }).code === 'SQLITE_CANTOPEN' && !existsSync(file))) throw err;
    return new Database(file, { readonly: true, fileMustExist: true });
  }
}

/** How much of the database file is memory-mapped for reading. */
const MMAP_BYTES = 1024 ** 3;

function connect(file: string, readonly: boolean): Db {
  try {
    const db = readonly ? readingConnection(file) : new Database(file);
    if (!readonly) {
      db.pragma('journal_mode = WAL');
      // WAL with synchronous=NORMAL survives a killed process (SIGKILL) without losing commits.
      db.pragma('synchronous = NORMAL');
    }
    db.pragma('busy_timeout = 5000');
    // Reads through a memory map instead of copying pages into SQLite's cache: the exact vector scan
    // reads every vector, and at 100,000 pages this takes a query from ~360 ms to ~90 ms
    // (address space only; the OS pages the file in and out as it would its cache).
    db.pragma(`mmap_size = ${MMAP_BYTES}`);
    loadVectorFunctions(db);
    return db;
  } catch (err) {
    if (isCorruption(err)) throw damagedError(file, errorMessage(err), err);
    throw new DataDirError(
      `cannot open ${file} as a trawl database (${errorMessage(err)}): pass --data with an empty directory or an existing trawl data directory`,
      { cause: err },
    );
  }
}

/** Problems `PRAGMA quick_check` finds (empty when the file is sound). */
export function quickCheck(db: Db, limit = 10): string[] {
  const rows = db.pragma(`quick_check(${limit})`) as Array<{ quick_check: string }>;
  return rows.map((r) => r.quick_check).filter((r) => r !== 'ok');
}

export function openDatabase(file: string, options: OpenOptions): Db {
  const db = connect(file, options.readonly ?? false);
  try {
    // Through SQLite's page cache, not the map: the check reads the whole file, and a migration
    // may copy whole tables; mapped, it would all count in the process's memory (an 850 MB
    // database checked: 863 MiB of RSS against 67, for 0.9 s against 0.6).
    db.pragma('mmap_size = 0');
    if (options.check) {
      const problems = quickCheck(db, 3);
      if (problems.length) throw damagedError(file, problems.join('; ').replace(/\s+/g, ' ').slice(0, 300));
    }
    const initialised = checkSchema(db, file, !db.readonly);
    db.pragma(`mmap_size = ${MMAP_BYTES}`);
    if (options.readonly) {
      if (!initialised) throw new DataDirError(`${file} holds no trawl data yet: run trawl crawl <url> --data ${dirname(file)} first`);
      // A reader migrates an older directory like a writer would, then refuses to write.
      if (!db.readonly) db.pragma('query_only = 1');
      return db;
    }
    // One transaction: a disk that fills while the tables are made leaves no half-made database.
    db.exec('BEGIN IMMEDIATE');
    try {
      db.exec(SCHEMA_SQL);
      db.prepare("INSERT OR IGNORE INTO meta (key, value) VALUES ('schema_version', ?)").run(String(SCHEMA_VERSION));
      db.exec('COMMIT');
    } catch (err) {
      try {
        db.exec('ROLLBACK');
      } catch {
        // SQLite rolled back already (a failed write can end the transaction itself).
      }
      throw err;
    }
    return db;
  } catch (err) {
    db.close();
    if (isCorruption(err)) throw damagedError(file, errorMessage(err), err);
    const full = err instanceof DataDirError ? undefined : noRoomCode(err);
    if (full) throw new DataDirError(`${file} could not be written: the disk is full (${full}); free some space, then run the command again`, { cause: err });
    throw err;
  }
}
