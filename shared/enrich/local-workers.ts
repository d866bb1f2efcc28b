import { Worker } from 'node:worker_threads';
import type { HashingOptions } from './local-embedding.js';
import type { EnrichDocument, Embedder, ModelStamp, TextGenerator } from './providers.js';
import { LocalEmbedder, LocalTextGenerator } from './local-provider.js';

// Inline source, as the extraction workers: under tsx the worker registers its loader first.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
(async () => {
  if (workerData.tsx) (await import(workerData.tsx)).register();
  const { LocalTextGenerator, LocalEmbedder } = await import(workerData.provider);
  const text = new LocalTextGenerator();
  const embedder = new LocalEmbedder(workerData.hashing);
  parentPort.on('message', async (msg) => {
    try {
      if (msg.op === 'embed') {
        const vectors = await embedder.embed(msg.texts);
        parentPort.postMessage({ id: msg.id, vectors }, vectors.map((v) => v.buffer));
      } else {
        const out = msg.op === 'summary' ? await text.summarize(msg.doc) : await text.tag(msg.doc);
        parentPort.postMessage({ id: msg.id, out });
      }
    } catch (err) {
      parentPort.postMessage({ id: msg.id, error: String((err && err.message) || err) });
    }
  });
})().catch((err) => { throw err; });
`;

interface Waiting {
  resolve: (v: unknown) => void;
  reject: (e: Error) => void;
}

/**
 * The local provider's work (TextRank, keyphrases, hashing) in worker threads, so enrichment during
 * a crawl does not take the crawl thread and a pass over a finished crawl uses every core. Same
 * stamps and same output as the in-thread provider.
 */
export class LocalWorkerPool {
  readonly text: TextGenerator;
  readonly embedder: Embedder;
  private readonly workers: Array<{ worker: Worker; waiting: Map<number, Waiting> }> = [];
  private nextId = 0;
  private exited = 0;

  constructor(size: number, hashing: HashingOptions) {
    const inThread = { text: new LocalTextGenerator(), embedder: new LocalEmbedder(hashing) };
    const ext = import.meta.url.endsWith('.ts') ? 'ts' : 'js';
    for (let i = 0; i < size; i++) {
      const worker = new Worker(WORKER_SOURCE, {
        eval: true,
        workerData: {
          tsx: ext === 'ts' ? import.meta.resolve('tsx/esm/api') : undefined,
          provider: new URL(`./local-provider.${ext}`, import.meta.url).href,
          hashing,
        },
      });
      const slot = { worker, waiting: new Map<number, Waiting>() };
      worker.unref();
      worker.on('message', (msg: { id: number; out?: unknown; vectors?: Float32Array[]; error?: string }) => {
        const w = slot.waiting.get(msg.id);
        if (!w) return;
        slot.waiting.delete(msg.id);
        if (slot.waiting.size === 0) worker.unref();
        if (msg.error !== undefined) w.reject(new Error(`local enrichment failed: ${msg.error}`));
        else w.resolve(msg.vectors ?? msg.out);
      });
      // A worker that dies fails what it held.
      const fail = (err: Error) => {
        for (const w of slot.waiting.values()) w.reject(err);
        slot.waiting.clear();
      };
      worker.on('error', fail);
      worker.on('exit', (code) => {
        this.exited++;
        fail(new Error(`a local enrichment worker stopped (exit code ${code})`));
      });
      this.workers.push(slot);
    }
    const call = <T>(msg: Record<string, unknown>): Promise<T> => {
      if (this.exited > 0) return Promise.reject(new Error('the local enrichment workers are closed'));
      const slot = this.workers.reduce((a, b) => (b.waiting.size < a.waiting.size ? b : a));
      const id = this.nextId++;
      return new Promise<T>((resolve, reject) => {
        slot.waiting.set(id, { resolve: resolve as (v: unknown) => void, reject });
        slot.worker.ref();
        slot.worker.postMessage({ ...msg, id });
      });
    };
    this.text = {
      summaryStamp: inThread.text.summaryStamp,
      tagsStamp: inThread.text.tagsStamp,
      summarize: (doc: EnrichDocument) => call<string>({ op: 'summary', doc }),
      tag: (doc: EnrichDocument) => call<string[]>({ op: 'tags', doc }),
    };
    const stamp: ModelStamp = inThread.embedder.stamp;
    this.embedder = { stamp, dimension: inThread.embedder.dimension, embed: (texts: string[]) => call<Float32Array[]>({ op: 'embed', texts }) };
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.worker.terminate()));
  }
}
