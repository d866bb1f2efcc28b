// A stale trawl.lock whose pid was reused by another process is taken over; a lock held
// by a live trawl is refused with a message that says how to clear it if no trawl is running.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { DataDirLock, LOCK_FILE, processStartMs } from '../../shared/store/local/data-lock.js';
import { DataDirLockedError } from '../../shared/errors.js';
import { tempDir } from '../../support/helpers.js';

const linux = existsSync('/proc/self/stat');

test('a lock whose pid now belongs to a process started after it is stale and taken over', { skip: !linux && 'needs /proc' }, async () => {
  const dir = tempDir();
  // A process started now stands in for an unrelated one that was given the old pid.
  const other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)'], { stdio: 'ignore' });
  try {
    await new Promise((r) => setTimeout(r, 200));
    const started = processStartMs(other.pid!);
    assert.ok(started && Math.abs(started - Date.now()) < 60_000, `start time read from /proc: ${started}`);
    const file = join(dir.dir, LOCK_FILE);
    writeFileSync(file, JSON.stringify({ pid: other.pid, host: hostname(), startedAt: Date.now() - 3_600_000, command: 'trawl crawl' }));
    const lock = DataDirLock.acquire(dir.dir, 'trawl crawl');
    assert.equal(lock.owner.pid, process.pid);
    lock.release();
    // The same process, written as the lock's owner just after it started: a live holder, refused with the way out.
    writeFileSync(file, JSON.stringify({ pid: other.pid, host: hostname(), startedAt: Date.now(), command: 'trawl crawl' }));
    assert.throws(
      () => DataDirLock.acquire(dir.dir, 'trawl crawl'),
      (e: unknown) => e instanceof DataDirLockedError && /in use by another trawl process .*If no trawl is running there, delete .*trawl\.lock/.test(e.message),
    );
  } finally {
    other.kill();
    dir.cleanup();
  }
});

test('a second writer in the same process is refused, naming the first; the lock is its own again once released', () => {
  const dir = tempDir();
  try {
    const first = DataDirLock.acquire(dir.dir, 'trawl crawl (job)');
    assert.throws(
      () => DataDirLock.acquire(dir.dir, 'trawl fetch'),
      (e: unknown) => e instanceof DataDirLockedError && /in use by trawl crawl \(job\) in this same process/.test(e.message),
    );
    assert.ok(existsSync(join(dir.dir, LOCK_FILE)), 'the refused writer leaves the lock alone');
    first.release();
    DataDirLock.acquire(dir.dir, 'trawl fetch').release();
  } finally {
    dir.cleanup();
  }
});
