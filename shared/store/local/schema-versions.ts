// The data schema's version in a database file: migrating an older one forward, refusing a newer one or another program's.
import type { Db } from './sqlite-types.js';
import { DataDirError, noRoomCode } from '../../errors.js';
import { MIGRATIONS, SCHEMA_VERSION } from './schema.js';

/** Takes an older data directory forward, one version at a time, each step in its own transaction. */
function migrate(db: Db, file: string, from: number): void {
  for (let v = from; v < SCHEMA_VERSION; v++) {
    const sql = MIGRATIONS[v];
    if (!sql)
      throw new DataDirError(
        `${file} was written by trawl data schema ${from}, which this trawl (schema ${SCHEMA_VERSION}) cannot migrate: use a new --data directory`,
      );
    try {
      db.transaction(() => {
        if (typeof sql === 'string') db.exec(sql);
        else sql(db);
        db.prepare("UPDATE meta SET value = ? WHERE key = 'schema_version'").run(String(v + 1));
      })();
    } catch (err) {
      const code = noRoomCode(err);
      if (!code) throw err;
      // The step's transaction rolled back: the file is as the previous step left it.
      throw new DataDirError(
        `${file} could not be migrated from data schema ${v} to ${v + 1}: the disk is full (${code}), and a migration may copy a whole table; the file is unchanged at schema ${v}: free some space, then run the command again`,
        { cause: err },
      );
    }
    process.stderr.write(`trawl: migrated ${file} from data schema ${v} to ${v + 1}\n`);
  }
}

/** Whether the file holds trawl's tables (migrating an older version when writable); refuses another program's database or a newer version. */
export function checkSchema(db: Db, file: string, writable: boolean): boolean {
  const hasMeta = db.prepare("SELECT name FROM sqlite_master WHERE type='table' AND name='meta'").get();
  const tableCount = (db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE type='table'").get() as { n: number }).n;
  if (!hasMeta && tableCount > 0) throw new DataDirError(`${file} is an SQLite database but not trawl's: pass --data with another directory`);
  if (hasMeta) {
    const row = db.prepare("SELECT value FROM meta WHERE key='schema_version'").get() as { value: string } | undefined;
    // No version row: tables made before the creation became one transaction, cut short (a full
    // disk); nothing was stored there, so the creation is finished now.
    if (!row && writable) return false;
    const version = Number(row?.value);
    if (Number.isInteger(version) && version < SCHEMA_VERSION && version >= 1 && writable) migrate(db, file, version);
    else if (version !== SCHEMA_VERSION) {
      throw new DataDirError(
        `${file} was written by another trawl version (data schema ${row?.value ?? 'unknown'}, this trawl uses ${SCHEMA_VERSION}): use a new --data directory, or the trawl version that wrote it`,
      );
    }
  }
  return Boolean(hasMeta);
}
