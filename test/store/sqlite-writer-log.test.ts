import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import Database from '../../shared/store/local/sqlite-driver.js';
import { CHECKPOINT_WAL_BYTES, checkpointDue, logSettings } from '../../shared/store/local/sqlite-writer-thread.js';

/** The writer's connection on a fresh file, with or without its log settings; a table to fill. */
function open(settings: boolean) {
  const dir = mkdtempSync(join(tmpdir(), 'trawl-wal-'));
  const file = join(dir, 'trawl.db');
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  if (settings) logSettings(db);
  else db.pragma('wal_autocheckpoint = 0');
  db.exec('CREATE TABLE t (x BLOB)');
  const insert = db.prepare('INSERT INTO t (x) VALUES (?)');
  const write = (bytes: number) => {
    db.exec('BEGIN');
    for (let n = 0; n < bytes; n += 4096) insert.run(randomBytes(4096));
    db.exec('COMMIT');
  };
  return { db, file, write, done: () => (db.close(), rmSync(dir, { recursive: true, force: true })) };
}

test("the writer checkpoints once the log holds a threshold's worth of pages again, not after every write that follows the first checkpoint", () => {
  const w = open(true);
  try {
    w.write(CHECKPOINT_WAL_BYTES * 1.5);
    assert.ok(checkpointDue(w.file), 'past the threshold: due');
    w.db.pragma('wal_checkpoint(PASSIVE)');
    w.write(8192);
    assert.equal(checkpointDue(w.file), false, 'a small write after the checkpoint: not due');
    w.write(CHECKPOINT_WAL_BYTES);
    assert.ok(checkpointDue(w.file), "another threshold's worth: due again");
  } finally {
    w.done();
  }
});

test("without the log settings SQLite keeps its log file's size after a checkpoint (why the writer sets journal_size_limit)", () => {
  const w = open(false);
  try {
    w.write(CHECKPOINT_WAL_BYTES * 1.5);
    w.db.pragma('wal_checkpoint(PASSIVE)');
    w.write(8192);
    assert.ok(checkpointDue(w.file), 'the file size alone still says due');
  } finally {
    w.done();
  }
});
