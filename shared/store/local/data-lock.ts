import { closeSync, openSync, readFileSync, rmSync, statSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { resolve } from 'node:path';
import { DataDirError, DataDirLockedError } from '../../errors.js';
import { processAlive } from '../../util/process-alive.js';

export const LOCK_FILE = 'trawl.lock';

/** Who holds a data directory: written into the lock file as JSON. */
export interface LockOwner {
  pid: number;
  host: string;
  startedAt: number;
  command: string;
}

/** A lock file younger than this with unreadable contents is being written right now, not stale. */
const TORN_LOCK_GRACE_MS = 10_000;

/** Clock ticks a second of /proc/<pid>/stat's start time (USER_HZ: 100 on Linux everywhere that matters). */
const USER_HZ = 100;
/** A lock is written just after its process starts: a process that started more than this after the lock's time is not its writer. */
const START_SLACK_MS = 5_000;

/** When a process started (ms since the epoch), from /proc on Linux; undefined where that cannot be read. */
export function processStartMs(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: fields are counted after its last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const startTicks = Number(fields[19]);
    const boot = Number(/^btime (\d+)$/m.exec(readFileSync('/proc/stat', 'utf8'))?.[1]);
    if (!Number.isFinite(startTicks) || !Number.isFinite(boot)) return undefined;
    return boot * 1000 + (startTicks / USER_HZ) * 1000;
  } catch {
    return undefined;
  }
}

/** The lock's process is alive and is the one that wrote it (not a later process given the same pid). */
function holdsIt(holder: LockOwner): boolean {
  if (!processAlive(holder.pid)) return false;
  const started = processStartMs(holder.pid);
  return started === undefined || started <= holder.startedAt + START_SLACK_MS;
}

/**
 * The process holding `dir`'s lock, if one still does: on another host it is taken at its word; on
 * this one its process must be alive and be the one that wrote the lock. A run marked running in
 * a directory no process holds was interrupted (killed, its machine restarted).
 */
export function liveLockHolder(dir: string): LockOwner | undefined {
  const holder = readOwner(resolve(dir, LOCK_FILE));
  if (!holder) return undefined;
  return holder.host !== hostname() || holdsIt(holder) ? holder : undefined;
}

function readOwner(file: string): LockOwner | undefined {
  try {
    const owner = JSON.parse(readFileSync(file, 'utf8')) as LockOwner;
    return typeof owner.pid === 'number' && typeof owner.host === 'string' ? owner : undefined;
  } catch {
    return undefined;
  }
}

function describe(owner: LockOwner): string {
  return `pid ${owner.pid} on ${owner.host}, started ${new Date(owner.startedAt).toISOString()} (${owner.command})`;
}

/** The locks this process holds, by lock file: a second writer in the same process is refused as another process's would be. */
const HELD = new Map<string, DataDirLock>();

/**
 * One writer per data directory: a lock file made with O_EXCL holding the owner's pid and host.
 * A lock whose process is gone (a crash, SIGKILL) on this host, or whose pid was reused by a
 * process that started after the lock was written, is stale and taken over; a live
 * one makes the second writer fail at once, naming the first. Readers never take it (SQLite WAL
 * lets them read while a crawl writes).
 */
export class DataDirLock {
  private released = false;
  private readonly onExit = () => this.release();

  private constructor(
    readonly file: string,
    readonly owner: LockOwner,
  ) {
    process.once('exit', this.onExit);
  }

  /** Takes the lock of `dir` (which must exist) for `command`, or throws `DataDirLockedError`. */
  static acquire(dir: string, command: string, now = Date.now()): DataDirLock {
    const file = resolve(dir, LOCK_FILE);
    const mine = HELD.get(file);
    if (mine)
      throw new DataDirLockedError(
        `${dir} is in use by ${mine.owner.command} in this same process: wait for it to finish (a server's one-off fetch waits for its crawl job)`,
      );
    const owner: LockOwner = { pid: process.pid, host: hostname(), startedAt: now, command };
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        const fd = openSync(file, 'wx');
        try {
          writeSync(fd, JSON.stringify(owner));
        } finally {
          closeSync(fd);
        }
        const lock = new DataDirLock(file, owner);
        HELD.set(file, lock);
        return lock;
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === 'EROFS' || code === 'EACCES' || code === 'EPERM')
          throw new DataDirError(
            `${dir} cannot be written (${code}: ${code === 'EROFS' ? 'a read-only file system' : 'no permission'}): make it writable, or copy it to a directory this user can write to and pass that with --data`,
            { cause: err },
          );
        if (code === 'ENOSPC') throw new DataDirError(`${dir} has no room left (ENOSPC): free some space, then run the command again`, { cause: err });
        if (code !== 'EEXIST') throw err;
      }
      const holder = readOwner(file);
      if (!holder) {
        const age = now - (statMtime(file) ?? now);
        if (age < TORN_LOCK_GRACE_MS)
          throw new DataDirLockedError(`${dir} is locked by a trawl process that is starting up (${file}): wait for it, or try again in a few seconds`);
      } else if (holder.host !== owner.host) {
        throw new DataDirLockedError(
          `${dir} is in use by another trawl process (${describe(holder)}) on another machine: wait for it to finish; if it is gone, delete ${file}`,
        );
      } else if (holder.pid !== process.pid && holdsIt(holder)) {
        throw new DataDirLockedError(
          `${dir} is in use by another trawl process (${describe(holder)}): wait for it to finish or stop it; status, graph, export and search work meanwhile. If no trawl is running there, delete ${file}`,
        );
      }
      // Stale (its process is gone, or its pid now belongs to a process started after the lock, or
      // it is this pid's from an earlier life, as a container's pid 1 after a restart) or torn: take it over.
      rmSync(file, { force: true });
    }
    throw new DataDirLockedError(`could not lock ${dir}: another process keeps taking ${file}`);
  }

  /** Gives the lock back (idempotent; also done when the process exits). */
  release(): void {
    if (this.released) return;
    this.released = true;
    if (HELD.get(this.file) === this) HELD.delete(this.file);
    process.removeListener('exit', this.onExit);
    const holder = readOwner(this.file);
    if (holder?.pid === this.owner.pid && holder.startedAt === this.owner.startedAt) rmSync(this.file, { force: true });
  }
}

function statMtime(file: string): number | undefined {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return undefined;
  }
}
