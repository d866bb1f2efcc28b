import { test } from 'node:test';
import { spawnSync } from 'node:child_process';
import assert from 'node:assert/strict';
import { loadDriver, NODE20_DRIVER } from '../../shared/store/local/sqlite-driver.js';
import Database from '../../shared/store/local/sqlite-driver.js';
import { loadVectorFunctions } from '../../shared/store/local/vector-functions.js';

const missing = (id: string) => Object.assign(new Error(`Cannot find module '${id}'`), { code: 'MODULE_NOT_FOUND' });

/** A stand-in for node:sqlite: the features the adapter checks for, less those named. */
function fakeNodeSqlite(without: string[] = []) {
  class StatementSync {}
  for (const m of ['setReturnArrays', 'columns', 'setAllowUnknownNamedParameters'].filter((m) => !without.includes(m))) {
    Object.assign(StatementSync.prototype, { [m]: () => {} });
  }
  class DatabaseSync {
    isTransaction = without.includes('isTransaction') ? undefined : false;
    close() {}
  }
  return { DatabaseSync, StatementSync };
}

test('one SQLite driver per Node: node:sqlite from Node 22, better-sqlite3 12 (installed by hand) on Node 20 only', () => {
  const asked: string[] = [];
  const load = (id: string) => {
    asked.push(id);
    return id === 'node:sqlite' ? fakeNodeSqlite() : function Db() {};
  };
  loadDriver(22, load);
  loadDriver(24, load);
  loadDriver(20, load);
  assert.deepEqual(asked, ['node:sqlite', 'node:sqlite', NODE20_DRIVER]);
});

test('a Node whose node:sqlite is missing or older than the floor (22.5-22.15, 23) gets one line naming the floor', () => {
  assert.throws(
    () => loadDriver(22, () => fakeNodeSqlite(['setReturnArrays', 'isTransaction'])),
    /this Node \(v[\d.]+\) has a node:sqlite without setReturnArrays, isTransaction, which trawl's store needs: use Node 22\.16 or newer/,
  );
  assert.throws(
    () =>
      loadDriver(22, () => {
        throw Object.assign(new Error('No such built-in module: node:sqlite'), { code: 'ERR_UNKNOWN_BUILTIN_MODULE' });
      }),
    /this Node \(v[\d.]+\) has no node:sqlite, which trawl's store needs: use Node 22\.16 or newer/,
  );
});

test('Node 20 without better-sqlite3 12 (the package does not install it): one message with both ways out', () => {
  assert.throws(
    () =>
      loadDriver(20, (id) => {
        throw missing(id);
      }),
    (err: Error) =>
      /SQLite driver missing: Node 20 has no node:sqlite/.test(err.message) &&
      err.message.includes('Node 22.16 or newer') &&
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

test("opening a database prints nothing: Node 22's experimental warning for node:sqlite is held back, other warnings are not", () => {
  const script =
    `import Database from ${JSON.stringify(new URL('../../shared/store/local/sqlite-driver.ts', import.meta.url).pathname)};` +
    `new Database(':memory:').close(); process.emitWarning('a warning of the caller');`;
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assert.doesNotMatch(r.stderr, /ExperimentalWarning|SQLite is an experimental feature/);
  assert.match(r.stderr, /Warning: a warning of the caller/);
});

test("the driver loads sqlite-vec's compiled functions where it ships a binary (here), with SQL's load_extension() left off", () => {
  const db = new Database(':memory:');
  try {
    assert.equal(loadVectorFunctions(db), 'sqlite-vec');
    assert.match((db.prepare('SELECT vec_version() AS v').get() as { v: string }).v, /^v\d/);
    assert.throws(() => db.prepare("SELECT load_extension('x')").get(), /not authorized/);
  } finally {
    db.close();
  }
});
