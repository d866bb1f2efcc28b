/**
 * The part of a SQLite connection the store uses, in better-sqlite3's shape: Node's own
 * `node:sqlite` behind an adapter (node-sqlite.ts) on Node ≥ 22, better-sqlite3 12 itself on Node
 * 20. Declared here, so the package's types need neither driver's.
 *
 * Blobs read back are `Uint8Array`s (a `Buffer` on Node 20, which is one); rows are plain records.
 */
export interface RunResult {
  changes: number;
  lastInsertRowid: number | bigint;
}

/** A prepared statement: positional parameters, or one object of named ones (`@name`). */
export interface Statement {
  run(...params: unknown[]): RunResult;
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
  iterate(...params: unknown[]): IterableIterator<unknown>;
}

export interface OpenFlags {
  readonly?: boolean;
  fileMustExist?: boolean;
}

export interface Db {
  /** True for a connection opened read-only. */
  readonly readonly: boolean;
  /** False once closed. */
  readonly open: boolean;
  prepare(sql: string): Statement;
  exec(sql: string): unknown;
  /** `PRAGMA source`: its rows, or with `simple` the first column of the first row. */
  pragma(source: string, options?: { simple?: boolean }): unknown;
  /** Wraps `fn` so a call runs in a transaction (a savepoint when nested), rolled back if it throws. */
  transaction<A extends unknown[], R>(fn: (...args: A) => R): (...args: A) => R;
  function(name: string, options: { deterministic?: boolean }, fn: (...args: never[]) => unknown): unknown;
  loadExtension(path: string): unknown;
  close(): unknown;
}

export type DbConstructor = new (file: string, options?: OpenFlags) => Db;
