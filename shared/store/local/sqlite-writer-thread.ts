// The crawl store's writes on a thread of their own. A crawl commits about a millisecond of SQLite
// work per page (statements, WAL frames, and the fsyncs of its checkpoints); on the crawl thread
// that work delayed every host's next request by the event loop's lag, and a crawl with the commits
// taken out ran 1.8× faster (bench:crawl, links mode). Here one connection writes: calls queue in
// order, and what arrived while a transaction ran goes into the next one together (group commit).
import { statSync } from 'node:fs';
import { Worker, type MessagePort } from 'node:worker_threads';
import Database from './sqlite-driver.js';
import { FILE_STAGE, SqliteWriteOps, type WriteAnswer, type WriteCall, type WriteOp } from './sqlite-writes.js';
import { NO_CLOCK, StageClock, type StageTimes } from '../../log/stage-clock.js';
import { noRoomCode } from '../../errors.js';

type Ops = SqliteWriteOps['ops'];
type Result<K extends WriteOp> = ReturnType<Ops[K]>;

/** Where the crawl store's writes run: on its own connection, now (`inline`), or on the writer thread. */
export interface StoreWriter {
  call<K extends WriteOp>(op: K, ...args: Parameters<Ops[K]>): Promise<Result<K>>;
  /** Resolves once writes go where they will (the writer thread is up, or failed to start and they stay inline). */
  ready(): Promise<void>;
  close(): Promise<void>;
}

/** Writes on the calling thread, each in its own transaction, done when the call returns. */
export class InlineWriter implements StoreWriter {
  constructor(
    readonly ops: SqliteWriteOps,
    private readonly clock = NO_CLOCK,
  ) {}

  call<K extends WriteOp>(op: K, ...args: Parameters<Ops[K]>): Promise<Result<K>> {
    try {
      return Promise.resolve(this.clock.time(op === 'putFile' ? FILE_STAGE : 'SQLite', () => this.ops.run({ op, args })) as Result<K>);
    } catch (err) {
      return Promise.reject(err);
    }
  }

  async ready(): Promise<void> {}

  async close(): Promise<void> {}
}

const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
(async () => {
  if (workerData.tsx) (await import(workerData.tsx)).register();
  const { serveWrites } = await import(workerData.module);
  serveWrites(parentPort, workerData.file, workerData.timed);
})().catch((err) => parentPort.postMessage({ failed: String((err && err.stack) || err) }));
`;

/**
 * Writes on a worker thread. Until the thread is up (its modules load in the background), calls run
 * inline, so nothing waits for it; every call after that goes to the thread, in order.
 */
export class WriterThread implements StoreWriter {
  private worker: Worker | undefined;
  private up = false;
  private nextId = 0;
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  private exited: Promise<void> | undefined;
  private closing = false;
  private settle: (() => void) | undefined;
  private readonly started = new Promise<void>((resolve) => (this.settle = resolve));

  constructor(
    file: string,
    private readonly inline: InlineWriter,
    /** Gets the thread's times (`--stage-times`). */
    private readonly clock = NO_CLOCK,
  ) {
    const ext = import.meta.url.endsWith('.ts') ? 'ts' : 'js';
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      // The thread holds one group's commits at a time: a small heap keeps its share of memory small.
      resourceLimits: { maxOldGenerationSizeMb: 256, maxYoungGenerationSizeMb: 4 },
      workerData: { tsx: ext === 'ts' ? import.meta.resolve('tsx/esm/api') : undefined, module: import.meta.url, file, timed: clock.enabled },
    });
    this.worker = worker;
    worker.unref();
    worker.on('message', (msg: { ready?: boolean; failed?: string; answers?: Array<{ id: number } & WriteAnswer>; timings?: StageTimes }) => {
      this.clock.merge(msg.timings);
      if (msg.ready) {
        this.up = true;
        this.settle?.();
      }
      if (msg.failed) this.stop(new Error(`the store's writer thread failed: ${msg.failed}`));
      for (const a of msg.answers ?? []) {
        const p = this.pending.get(a.id);
        this.pending.delete(a.id);
        if ('error' in a) p?.reject(Object.assign(new Error(a.error), a.code ? { code: a.code } : {}));
        else p?.resolve(a.value);
      }
      // Unheld while idle, not once closing: the thread's last message (its timings) comes after its last answer.
      if (this.pending.size === 0 && !this.closing) worker.unref();
    });
    worker.on('error', (err) => this.stop(err));
    this.exited = new Promise((resolve) => worker.once('exit', () => resolve()));
    worker.once('exit', () => this.stop(new Error("the store's writer thread stopped")));
  }

  /** The thread is gone: calls waiting on it fail (their writes were not committed); later calls run inline. */
  private stop(err: Error): void {
    this.settle?.();
    this.up = false;
    this.worker = undefined;
    for (const p of this.pending.values()) p.reject(err);
    this.pending.clear();
  }

  ready(): Promise<void> {
    return this.started;
  }

  /** Whether writes go to the thread now. */
  get live(): boolean {
    return this.up && this.worker !== undefined;
  }

  call<K extends WriteOp>(op: K, ...args: Parameters<Ops[K]>): Promise<Result<K>> {
    const worker = this.worker;
    if (!this.up || !worker) return this.inline.call(op, ...args);
    return new Promise<Result<K>>((resolve, reject) => {
      const id = this.nextId++;
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      // Calls of one turn of the event loop go in one message (a message costs more than its bytes).
      if (this.outbox.length === 0) setImmediate(() => this.send());
      this.outbox.push({ id, op, args });
    });
  }

  private outbox: Array<{ id: number } & WriteCall> = [];

  private send(): void {
    const calls = this.outbox;
    this.outbox = [];
    const worker = this.worker;
    if (!worker) {
      for (const c of calls) this.pending.get(c.id)?.reject(new Error("the store's writer thread stopped"));
      return;
    }
    worker.ref();
    worker.postMessage({ calls });
  }

  /** Waits for the writes sent, then stops the thread (its connection closes first). */
  async close(): Promise<void> {
    const worker = this.worker;
    if (!worker) return;
    if (this.outbox.length) this.send();
    this.closing = true;
    worker.ref();
    worker.postMessage({ close: true });
    await this.exited;
  }
}

/**
 * A checkpoint past 4,000 pages of 4 KiB in the log (SQLite's own threshold is 1,000): a crawl's
 * groups rewrite the same pages (the trees' inner pages, the tails of its tables), which a longer
 * log copies into the database fewer times. bench:crawl's web, bytes the crawl wrote to the disk:
 * 950 MiB against 1,165 at 1,000 pages, the checkpoints' time halved (two interleaved pairs); the
 * log file stays under ~17 MiB.
 */
export const CHECKPOINT_WAL_BYTES = 4000 * 4096;

/**
 * The writer's log settings: checkpoints past a threshold of log pages as SQLite's default makes
 * them, but on their own, so `--stage-times` tells their fsyncs from the transactions. SQLite reuses
 * its WAL file from the start after a checkpoint and never shrinks it, so the file's size tells the
 * pages written since only if it is cut back when the log restarts: journal_size_limit cuts it to
 * the threshold. Without it, once the log had passed the threshold every group was checkpointed
 * (bench:crawl, at 1,000 pages: 480 checkpoints taking 3.2 s of this thread, against 134 taking 2.5 s).
 */
export function logSettings(db: Pick<InstanceType<typeof Database>, 'pragma'>): void {
  db.pragma('wal_autocheckpoint = 0');
  db.pragma(`journal_size_limit = ${CHECKPOINT_WAL_BYTES}`);
}

/** Whether the log holds more than the threshold's worth of pages since its last restart. */
export function checkpointDue(file: string): boolean {
  try {
    return statSync(`${file}-wal`).size > CHECKPOINT_WAL_BYTES;
  } catch {
    return false;
  }
}

/**
 * The thread's side: one connection, calls answered in order, those that arrived during a
 * transaction run together in the next (checkpoints, and their fsyncs, happen here too).
 */
export function serveWrites(port: MessagePort, file: string, timed = false): void {
  const db = new Database(file, { fileMustExist: true });
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 5000');
  logSettings(db);
  const ops = new SqliteWriteOps(db);
  const clock = new StageClock(timed);
  let queue: Array<{ id: number } & WriteCall> = [];
  let closing = false;
  const flush = () => {
    const group = queue;
    queue = [];
    if (group.length) {
      const answers = ops.runAll(group, clock).map((a, i) => ({ id: group[i]!.id, ...a }));
      // No room for a write: the log's pages go into the database and the log is cut to nothing,
      // which gives back its space for the run's last writes (its status, on a full disk).
      if (answers.some((a) => 'error' in a && noRoomCode(a))) {
        try {
          db.pragma('wal_checkpoint(TRUNCATE)');
        } catch {
          // Nothing could be moved: the writes that follow fail and say so.
        }
      }
      // Answered before the checkpoint: the commits are in the log already, and the crawl need not wait for its fsyncs.
      port.postMessage({ answers, timings: timed ? clock.take() : undefined });
      if (checkpointDue(file)) clock.time('SQLite checkpoints', () => db.pragma('wal_checkpoint(PASSIVE)'));
    }
    if (closing) {
      // The last checkpoint's time, which no answer carries any more.
      if (timed) port.postMessage({ timings: clock.take() });
      db.close();
      port.close();
    }
  };
  port.on('message', (msg: { calls: Array<{ id: number } & WriteCall> } | { close: true }) => {
    const first = queue.length === 0;
    if ('close' in msg) closing = true;
    else queue.push(...msg.calls);
    if (first || closing) setImmediate(flush);
  });
  port.postMessage({ ready: true });
}
