// Word diffs of a data directory's changed pages, read and computed on a worker thread of their
// own with its own read-only connection: a long page's texts (10 MB to read and copy) and its diff
// (up to a second of CPU) never hold the HTTP thread, and other requests go on meanwhile.
import { Worker } from 'node:worker_threads';
import type { DiffPart } from './text-diff.js';

// Inline source, as the reader pool's: under tsx the worker registers its loader first.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
(async () => {
  if (workerData.tsx) (await import(workerData.tsx)).register();
  const { textDiff } = await import(workerData.module);
  const { openLocalForReading } = await import(workerData.openLocal);
  const local = openLocalForReading(workerData.dataDir);
  parentPort.on('message', async (msg) => {
    try {
      const texts = await local.changes.changeTexts(msg.runId, msg.urlId);
      parentPort.postMessage({ id: msg.id, parts: texts && textDiff(texts.before, texts.after) });
    } catch (err) {
      parentPort.postMessage({ id: msg.id, error: String((err && err.message) || err) });
    }
  });
})().catch((err) => parentPort.postMessage({ failed: String((err && err.message) || err) }));
`;

interface Waiting {
  resolve: (parts: DiffPart[] | undefined) => void;
  reject: (err: Error) => void;
}

/** One worker thread that diffs; started at the first diff, and holds the process only while it works. */
export class DiffThread {
  private worker: Worker | undefined;
  private readonly waiting = new Map<number, Waiting>();
  private nextId = 0;

  constructor(private readonly dataDir: string) {}

  /** The diff of a page a run changed; undefined when the run did not change it. */
  diff(runId: number, urlId: string): Promise<DiffPart[] | undefined> {
    const worker = this.worker ?? this.start();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      worker.ref();
      worker.postMessage({ id, runId, urlId });
    });
  }

  private start(): Worker {
    const ext = import.meta.url.endsWith('.ts') ? 'ts' : 'js';
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: {
        tsx: ext === 'ts' ? import.meta.resolve('tsx/esm/api') : undefined,
        module: new URL(`./text-diff.${ext}`, import.meta.url).href,
        openLocal: new URL(`../store/local/open-local.${ext}`, import.meta.url).href,
        dataDir: this.dataDir,
      },
    });
    worker.unref();
    const failAll = (err: Error) => {
      this.worker = undefined;
      for (const w of this.waiting.values()) w.reject(err);
      this.waiting.clear();
    };
    worker.on('message', (msg: { id?: number; parts?: DiffPart[] | null; error?: string; failed?: string }) => {
      if (msg.failed !== undefined) {
        failAll(new Error(`the diff thread could not start: ${msg.failed}`));
        void worker.terminate();
        return;
      }
      const w = msg.id === undefined ? undefined : this.waiting.get(msg.id);
      if (!w) return;
      this.waiting.delete(msg.id!);
      if (this.waiting.size === 0) worker.unref();
      if (msg.error !== undefined) w.reject(new Error(msg.error));
      else w.resolve(msg.parts ?? undefined);
    });
    worker.on('error', failAll);
    worker.on('exit', (code) => failAll(new Error(`the diff thread stopped (exit code ${code})`)));
    this.worker = worker;
    return worker;
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    if (worker) await worker.terminate();
  }
}
