import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadDriver, NODE20_DRIVER } from '../../shared/store/local/sqlite-driver.js';
import Database from '../../shared/store/local/sqlite-driver.js';

const missing = (id: string) => Object.assign(new Error(`Cannot find module '${id}'`), { code: 'MODULE_NOT_FOUND' });

test('one SQLite driver per Node: better-sqlite3 13 from Node 22, the optional 12 on Node 20 only', () => {
  const asked: string[] = [];
  const load = (id: string) => {
    asked.push(id);
    return function Db() {};
  };
  loadDriver(22, load);
  loadDriver(24, load);
  loadDriver(20, load);
  assert.deepEqual(asked, ['better-sqlite3', 'better-sqlite3', NODE20_DRIVER]);
});

test('Node 20 without the optional driver (npm install --omit=optional): one message with both ways out', () => {
  assert.throws(
    () =>
      loadDriver(20, (id) => {
        throw missing(id);
      }),
    (err: Error) =>
      /SQLite driver missing: on Node 20/.test(err.message) &&
      err.message.includes('Node 22.12 or newer') &&
      err.message.includes(`npm install ${NODE20_DRIVER}@npm:better-sqlite3@12`),
  );
  // Any other failure (a broken binary) is not disguised as a missing package.
  assert.throws(
    () =>
      loadDriver(20, () => {
        throw new Error('invalid ELF header');
      }),
    /invalid ELF header/,
  );
});

test('the driver this Node loads opens a database with FTS5', () => {
  const db = new Database(':memory:');
  try {
    db.exec("CREATE VIRTUAL TABLE t USING fts5(body); INSERT INTO t VALUES ('polite crawling')");
    assert.equal((db.prepare("SELECT count(*) AS n FROM t WHERE t MATCH 'crawling'").get() as { n: number }).n, 1);
  } finally {
    db.close();
  }
});
