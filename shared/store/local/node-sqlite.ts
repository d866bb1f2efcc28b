import { existsSync } from 'node:fs';
import type { Db, OpenFlags, RunResult, Statement } from './sqlite-types.js';

/** The part of `node:sqlite` used here (declared, as the floor's @types/node is 20's). */
interface StatementSync {
  run(...params: unknown[]): RunResult;
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
  iterate(...params: unknown[]): IterableIterator<unknown>;
  setAllowUnknownNamedParameters(enabled: boolean): void;
  setReturnArrays(enabled: boolean): void;
  columns(): Array<{ name: string }>;
}
interface DatabaseSync {
  readonly isTransaction: boolean;
  readonly isOpen: boolean;
  prepare(sql: string): StatementSync;
  exec(sql: string): void;
  function(name: string, options: { deterministic: boolean }, fn: (...args: never[]) => unknown): void;
  enableLoadExtension(allow: boolean): void;
  loadExtension(path: string): void;
  close(): void;
}
export interface NodeSqlite {
  DatabaseSync: new (file: string, options?: { readOnly: boolean; allowExtension: boolean }) => DatabaseSync;
  StatementSync: { prototype: object };
}

/** What the adapter uses that node:sqlite gained last (Node 22.16 and 24.0): missing on an older Node, or on Node 23. */
function missingFeatures(sqlite: NodeSqlite): string[] {
  const statement = sqlite.StatementSync.prototype as Record<string, unknown>;
  const missing = ['setReturnArrays', 'columns', 'setAllowUnknownNamedParameters'].filter((m) => typeof statement[m] !== 'function');
  const probe = new sqlite.DatabaseSync(':memory:');
  if (typeof probe.isTransaction !== 'boolean') missing.push('isTransaction');
  probe.close();
  return missing;
}

/** The one-line reason trawl cannot use this Node's SQLite, and the way out. */
export function tooOldNode(what: string): Error {
  return new Error(`this Node (${process.version}) ${what}, which trawl's store needs: use Node 22.16 or newer (trawl's floor, in its package.json's engines)`);
}

/**
 * better-sqlite3's API, the part trawl uses, over Node's own `node:sqlite` (Node ≥ 22.16): the
 * driver costs the install nothing. What it adds to node:sqlite: `pragma`, `transaction` (nested
 * ones as savepoints), `fileMustExist`, arrays spread into positional parameters, named
 * parameters that ignore a record's other keys, and errors whose `code` is SQLite's name for it
 * (`SQLITE_CORRUPT`, `SQLITE_FULL`, …) where node:sqlite says `ERR_SQLITE_ERROR` and a number.
 */

/** SQLite's primary result codes (the low byte of an extended one), by number. */
const PRIMARY = (
  'OK ERROR INTERNAL PERM ABORT BUSY LOCKED NOMEM READONLY INTERRUPT IOERR CORRUPT NOTFOUND FULL CANTOPEN PROTOCOL EMPTY SCHEMA TOOBIG ' +
  'CONSTRAINT MISMATCH MISUSE NOLFS AUTH FORMAT RANGE NOTADB NOTICE WARNING'
).split(' ');
/** Extended codes by name, as better-sqlite3 gives them (errors.ts tells a full disk by `SQLITE_IOERR_WRITE`). */
const EXTENDED: Record<number, string> = {
  778: 'IOERR_WRITE',
  1034: 'IOERR_FSYNC',
  267: 'CORRUPT_VTAB',
  779: 'CORRUPT_INDEX',
  517: 'BUSY_SNAPSHOT',
  1032: 'READONLY_DBMOVED',
  275: 'CONSTRAINT_CHECK',
  787: 'CONSTRAINT_FOREIGNKEY',
  1299: 'CONSTRAINT_NOTNULL',
  1555: 'CONSTRAINT_PRIMARYKEY',
  2067: 'CONSTRAINT_UNIQUE',
};

/** The name better-sqlite3 gives an error's `code`, from node:sqlite's `errcode`. */
export function sqliteCodeName(errcode: number): string {
  return `SQLITE_${EXTENDED[errcode] ?? PRIMARY[errcode & 0xff] ?? 'ERROR'}`;
}

function named(err: unknown): unknown {
  const e = err as { code?: string; errcode?: unknown };
  if (e && e.code === 'ERR_SQLITE_ERROR' && typeof e.errcode === 'number') e.code = sqliteCodeName(e.errcode);
  return err;
}

/** better-sqlite3 binds an array's items as positional parameters; node:sqlite would read it as named ones. */
function spread(params: unknown[]): unknown[] {
  for (const p of params) if (Array.isArray(p)) return params.flat();
  return params;
}

type Row = Record<string, unknown>;

/**
 * A function that makes a row's record from its values, compiled for a statement's columns: a
 * literal's fixed shape, which V8 builds ~2.5x faster than node:sqlite makes its null-prototype
 * rows (and the records are plain objects, as better-sqlite3's are). A `__proto__` column is a
 * computed key, so it is a property like any other.
 */
function rowMaker(names: string[]): (values: unknown[]) => Row {
  const fields = names.map((name, i) => `${name === '__proto__' ? '["__proto__"]' : JSON.stringify(name)}: v[${i}]`);
  return new Function('v', `return { ${fields.join(', ')} };`) as (values: unknown[]) => Row;
}

/**
 * A statement whose last step failed keeps failing in node:sqlite (its reset reports the old
 * error again), where better-sqlite3's works on the next call: salvaging a damaged file retries
 * past a bad page with the same statement. So a statement that failed is prepared anew.
 */
class NodeStatement implements Statement {
  private make: ((values: unknown[]) => Row) | undefined;
  private width = -1;
  private s: StatementSync;
  private failed = false;

  constructor(
    private readonly db: DatabaseSync,
    private readonly sql: string,
  ) {
    this.s = this.prepared();
  }

  private prepared(): StatementSync {
    const s = this.db.prepare(this.sql);
    s.setAllowUnknownNamedParameters(true);
    s.setReturnArrays(true);
    return s;
  }

  private statement(): StatementSync {
    if (this.failed) {
      this.s = this.prepared();
      this.failed = false;
    }
    return this.s;
  }

  private fail(err: unknown): unknown {
    this.failed = true;
    return named(err);
  }

  /** A row as a record; the maker is remade if the columns change (SQLite re-prepares `SELECT *` after a schema change). */
  private row(values: unknown[]): Row {
    if (values.length !== this.width) {
      const names = this.s.columns().map((c) => c.name);
      this.make = rowMaker(names);
      this.width = names.length;
    }
    return this.make!(values);
  }

  run(...params: unknown[]): RunResult {
    try {
      return this.statement().run(...spread(params));
    } catch (err) {
      throw this.fail(err);
    }
  }
  get(...params: unknown[]): Row | undefined {
    try {
      const values = this.statement().get(...spread(params)) as unknown[] | undefined;
      return values && this.row(values);
    } catch (err) {
      throw this.fail(err);
    }
  }
  all(...params: unknown[]): Row[] {
    try {
      return (this.statement().all(...spread(params)) as unknown[][]).map((values) => this.row(values));
    } catch (err) {
      throw this.fail(err);
    }
  }
  *iterate(...params: unknown[]): IterableIterator<Row> {
    try {
      for (const values of this.statement().iterate(...spread(params))) yield this.row(values as unknown[]);
    } catch (err) {
      throw this.fail(err);
    }
  }
}

export function nodeSqliteDatabase(sqlite: NodeSqlite): new (file: string, options?: OpenFlags) => Db {
  const missing = missingFeatures(sqlite);
  if (missing.length) throw tooOldNode(`has a node:sqlite without ${missing.join(', ')}`);
  return class NodeSqliteDatabase implements Db {
    readonly readonly: boolean;
    private readonly db: DatabaseSync;

    constructor(file: string, options: OpenFlags = {}) {
      this.readonly = options.readonly ?? false;
      if (options.fileMustExist && file !== ':memory:' && !existsSync(file)) {
        throw Object.assign(new Error(`unable to open database file: ${file} does not exist`), { code: 'SQLITE_CANTOPEN' });
      }
      try {
        this.db = new sqlite.DatabaseSync(file, { readOnly: this.readonly, allowExtension: true });
      } catch (err) {
        throw named(err);
      }
      // SQL's load_extension() stays off; loadExtension below turns it on for its own call only.
      this.db.enableLoadExtension(false);
    }

    get open(): boolean {
      return this.db.isOpen;
    }

    prepare(sql: string): Statement {
      try {
        return new NodeStatement(this.db, sql);
      } catch (err) {
        throw named(err);
      }
    }

    exec(sql: string): this {
      try {
        this.db.exec(sql);
        return this;
      } catch (err) {
        throw named(err);
      }
    }

    pragma(source: string, options: { simple?: boolean } = {}): unknown {
      const statement = this.prepare(`PRAGMA ${source}`);
      if (!options.simple) return statement.all();
      const row = statement.get() as Record<string, unknown> | undefined;
      return row === undefined ? undefined : Object.values(row)[0];
    }

    /** Inside a transaction, a savepoint: SQLite's RELEASE and ROLLBACK TO take the latest one of a name, so one name nests. */
    transaction<A extends unknown[], R>(fn: (...args: A) => R): (...args: A) => R {
      return (...args: A): R => {
        const outer = !this.db.isTransaction;
        this.exec(outer ? 'BEGIN' : 'SAVEPOINT trawl');
        try {
          const result = fn(...args);
          this.exec(outer ? 'COMMIT' : 'RELEASE trawl');
          return result;
        } catch (err) {
          if (this.db.isTransaction) this.exec(outer ? 'ROLLBACK' : 'ROLLBACK TO trawl; RELEASE trawl');
          throw err;
        }
      };
    }

    function(name: string, options: { deterministic?: boolean }, fn: (...args: never[]) => unknown): this {
      this.db.function(name, { deterministic: options.deterministic ?? false }, fn);
      return this;
    }

    loadExtension(path: string): this {
      this.db.enableLoadExtension(true);
      try {
        this.db.loadExtension(path);
      } finally {
        this.db.enableLoadExtension(false);
      }
      return this;
    }

    close(): this {
      this.db.close();
      return this;
    }
  };
}
