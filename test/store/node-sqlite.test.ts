import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { nodeSqliteDatabase, sqliteCodeName, type NodeSqlite } from '../../shared/store/local/node-sqlite.js';
import { tempDir } from '../../support/helpers.js';

// The adapter that gives node:sqlite the part of better-sqlite3's API the store uses, held to
// better-sqlite3's behaviour where the two differ. Node 20 has no node:sqlite (it uses
// better-sqlite3 itself), so these run on Node 22 and 24.

const hasNodeSqlite = Number(process.versions.node.split('.')[0]) >= 22;
const skip = hasNodeSqlite ? false : 'Node 20 has no node:sqlite';
const Database = hasNodeSqlite ? nodeSqliteDatabase(createRequire(import.meta.url)('node:sqlite') as NodeSqlite) : undefined;

function memory() {
  const db = new Database!(':memory:');
  db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT NOT NULL, body BLOB)');
  return db;
}

test('rows are plain records (as better-sqlite3 gives them), blobs Uint8Arrays, a __proto__ column a property', { skip }, () => {
  const db = memory();
  db.prepare('INSERT INTO t (id, name, body) VALUES (?, ?, ?)').run(1, 'a', new Uint8Array([1, 2]));
  assert.deepEqual(db.prepare('SELECT id, name FROM t').get(), { id: 1, name: 'a' });
  assert.deepEqual(db.prepare('SELECT id FROM t').all(), [{ id: 1 }]);
  assert.deepEqual([...db.prepare('SELECT name FROM t').iterate()], [{ name: 'a' }]);
  const row = db.prepare('SELECT body, 1 AS "__proto__" FROM t').get() as Record<string, unknown>;
  assert.deepEqual(row.body, new Uint8Array([1, 2]));
  assert.equal(Object.getPrototypeOf(row), Object.prototype);
  assert.ok(Object.hasOwn(row, '__proto__'));
  // A `SELECT *` after the table gained a column: the records follow.
  const all = db.prepare('SELECT * FROM t');
  assert.deepEqual(Object.keys(all.get() as object), ['id', 'name', 'body']);
  db.exec("ALTER TABLE t ADD COLUMN extra TEXT DEFAULT 'x'");
  assert.deepEqual(Object.keys(all.get() as object), ['id', 'name', 'body', 'extra']);
  db.close();
  assert.equal(db.open, false);
});

test('parameters: an array spreads into positional ones; a record binds the names the statement has and ignores its other keys', { skip }, () => {
  const db = memory();
  db.prepare('INSERT INTO t (id, name) VALUES (?, ?)').run([1, 'a']);
  db.prepare('INSERT INTO t (id, name) VALUES (@id, @name)').run({ id: 2, name: 'b', unused: true });
  assert.deepEqual(db.prepare('SELECT name FROM t WHERE id IN (?, ?) ORDER BY id').all([1, 2]), [{ name: 'a' }, { name: 'b' }]);
});

test('transactions commit, roll back on a throw, and nest as savepoints', { skip }, () => {
  const db = memory();
  const insert = db.prepare('INSERT INTO t (id, name) VALUES (?, ?)');
  const count = () => (db.prepare('SELECT count(*) AS n FROM t').get() as { n: number }).n;
  assert.equal(
    db.transaction((a: number) => {
      insert.run(a, 'x');
      return a * 10;
    })(1),
    10,
  );
  assert.throws(
    () =>
      db.transaction(() => {
        insert.run(2, 'y');
        throw new Error('stop');
      })(),
    /stop/,
  );
  assert.equal(count(), 1);
  db.transaction(() => {
    insert.run(3, 'z');
    // The inner one fails and is undone alone; the outer one goes on and commits.
    assert.throws(
      () => db.transaction(() => insert.run(3, 'again'))(),
      (err: { code?: string }) => err.code === 'SQLITE_CONSTRAINT_PRIMARYKEY',
    );
    insert.run(4, 'w');
  })();
  assert.deepEqual(db.prepare('SELECT id FROM t ORDER BY id').all(), [{ id: 1 }, { id: 3 }, { id: 4 }]);
});

test('pragma: rows, or the first value with simple', { skip }, () => {
  const db = memory();
  assert.equal(db.pragma('user_version', { simple: true }), 0);
  db.pragma('user_version = 7');
  assert.deepEqual(db.pragma('user_version'), [{ user_version: 7 }]);
});

test('errors carry the code better-sqlite3 gives them; a statement that failed works again', { skip }, () => {
  const db = memory();
  assert.throws(
    () => db.prepare('INSERT INTO t (id) VALUES (1)').run(),
    (err: { code?: string }) => err.code === 'SQLITE_CONSTRAINT_NOTNULL',
  );
  assert.throws(
    () => db.exec('SELEKT 1'),
    (err: { code?: string }) => err.code === 'SQLITE_ERROR',
  );
  assert.equal(sqliteCodeName(11), 'SQLITE_CORRUPT');
  assert.equal(sqliteCodeName(778), 'SQLITE_IOERR_WRITE');
  assert.equal(sqliteCodeName(26), 'SQLITE_NOTADB');
  const insert = db.prepare('INSERT INTO t (id, name) VALUES (?, ?)');
  insert.run(1, 'a');
  assert.throws(
    () => insert.run(1, 'a'),
    (err: { code?: string }) => err.code === 'SQLITE_CONSTRAINT_PRIMARYKEY',
  );
  assert.equal(insert.run(2, 'b').changes, 1);
});

test('files: fileMustExist refuses a missing file without creating it; readonly refuses writes', { skip }, () => {
  const dir = tempDir();
  try {
    const file = join(dir.dir, 'x.db');
    assert.throws(
      () => new Database!(file, { fileMustExist: true }),
      (err: { code?: string }) => err.code === 'SQLITE_CANTOPEN',
    );
    const db = new Database!(file);
    db.exec('CREATE TABLE t (a)');
    db.close();
    const reader = new Database!(file, { readonly: true, fileMustExist: true });
    assert.equal(reader.readonly, true);
    assert.throws(
      () => reader.exec('INSERT INTO t VALUES (1)'),
      (err: { code?: string }) => err.code === 'SQLITE_READONLY',
    );
    reader.close();
  } finally {
    dir.cleanup();
  }
});
