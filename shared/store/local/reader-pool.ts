// Searches served from worker threads, each with its own read-only connection, so that one slow
// query holds one reader and the others (and the HTTP thread) go on.
import { Worker } from 'node:worker_threads';
import type { LocalStores } from './open-local.js';

// Inline source, as the enrichment workers: under tsx the worker registers its loader first.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
(async () => {
  if (workerData.tsx) (await import(workerData.tsx)).register();
  const { openLocalForReading } = await import(workerData.openLocal);
  const local = openLocalForReading(workerData.dataDir);
  local.vectors.warm();
  parentPort.on('message', async (msg) => {
    try {
      const out = await local[msg.target][msg.method](...msg.args);
      parentPort.postMessage({ id: msg.id, out });
    } catch (err) {
      parentPort.postMessage({ id: msg.id, error: String((err && err.message) || err) });
    }
  });
  parentPort.postMessage({ ready: true });
})().catch((err) => parentPort.postMessage({ failed: String((err && err.message) || err) }));
`;

/** The read calls a reader thread answers; everything else stays on the calling thread. */
const POOLED = { enrich: ['textSearch', 'hitDetails'], vectors: ['query'] } as const;
type Pooled = keyof typeof POOLED;

interface Reader {
  worker: Worker;
  ready: boolean;
  /** Settles when the reader is ready or gone. */
  settled: Promise<void>;
  waiting: Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>;
}

/**
 * Worker threads over one data directory. `stores()` gives the directory's stores with their
 * search reads (full text, hit details, nearest vectors) answered by the least busy ready reader;
 * until a reader is ready (they start at the first search), or if every reader failed, the calling
 * thread answers them itself.
 */
export class ReaderPool {
  private readonly readers: Reader[] = [];
  private nextId = 0;
  private started = false;

  constructor(
    private readonly dataDir: string,
    private readonly local: LocalStores,
    private readonly size: number,
  ) {}

  /** Starts the readers (at the first search: a server that is never searched starts no thread). */
  private start(): void {
    this.started = true;
    const ext = import.meta.url.endsWith('.ts') ? 'ts' : 'js';
    for (let i = 0; i < this.size; i++) {
      const worker = new Worker(WORKER_SOURCE, {
        eval: true,
        workerData: {
          tsx: ext === 'ts' ? import.meta.resolve('tsx/esm/api') : undefined,
          openLocal: new URL(`./open-local.${ext}`, import.meta.url).href,
          dataDir: this.dataDir,
        },
      });
      worker.unref();
      let settle = () => {};
      const reader: Reader = { worker, ready: false, waiting: new Map(), settled: new Promise((resolve) => (settle = resolve)) };
      const fail = (err: Error) => {
        settle();
        reader.ready = false;
        const i = this.readers.indexOf(reader);
        if (i >= 0) this.readers.splice(i, 1);
        for (const w of reader.waiting.values()) w.reject(err);
        reader.waiting.clear();
      };
      worker.on('message', (msg: { ready?: true; failed?: string; id?: number; out?: unknown; error?: string }) => {
        if (msg.ready) {
          reader.ready = true;
          settle();
        }
        if (msg.failed !== undefined) {
          fail(new Error(`a search reader could not open ${this.dataDir}: ${msg.failed}`));
          void worker.terminate();
        }
        const w = msg.id === undefined ? undefined : reader.waiting.get(msg.id);
        if (!w) return;
        reader.waiting.delete(msg.id!);
        if (reader.waiting.size === 0) worker.unref();
        if (msg.error !== undefined) w.reject(new Error(msg.error));
        else w.resolve(msg.out);
      });
      worker.on('error', fail);
      worker.on('exit', (code) => fail(new Error(`a search reader stopped (exit code ${code})`)));
      this.readers.push(reader);
    }
  }

  /** Starts the readers and waits until each is ready or has failed; gives how many are ready. */
  async whenReady(): Promise<number> {
    if (!this.started) this.start();
    await Promise.all(this.readers.map((r) => r.settled));
    return this.readers.filter((r) => r.ready).length;
  }

  private call(target: Pooled, method: string, args: unknown[]): Promise<unknown> | undefined {
    if (!this.started) this.start();
    let best: Reader | undefined;
    for (const r of this.readers) if (r.ready && (!best || r.waiting.size < best.waiting.size)) best = r;
    if (!best) return undefined;
    const reader = best;
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      reader.waiting.set(id, { resolve, reject });
      reader.worker.ref();
      reader.worker.postMessage({ target, method, args, id });
    });
  }

  /** The data directory's stores, their search reads going to the readers. */
  stores(): Pick<LocalStores, Pooled> {
    const wrap = <K extends Pooled>(target: K): LocalStores[K] => {
      const local = this.local[target];
      const pooled = new Set<string>(POOLED[target]);
      return new Proxy(local, {
        get: (obj, prop, receiver) => {
          const value = Reflect.get(obj, prop, receiver) as unknown;
          if (typeof prop !== 'string' || !pooled.has(prop) || typeof value !== 'function') return value;
          return (...args: unknown[]) => this.call(target, prop, args) ?? (value as (...a: unknown[]) => unknown).apply(obj, args);
        },
      });
    };
    return { enrich: wrap('enrich'), vectors: wrap('vectors') };
  }

  async close(): Promise<void> {
    await Promise.all(this.readers.map((r) => r.worker.terminate()));
  }
}
