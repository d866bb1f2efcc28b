import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { canonicalize, type CanonicalOptions } from '../url/canonical.js';
import { extractLinksOnly, extractPage, type LinkExtraction, type PageExtraction } from './extract-page.js';

export interface ExtractRequest {
  html: string;
  url: string;
  mode: 'full' | 'links';
  robotsToken: string;
  xRobotsTag?: string;
}

/** Turns a page into its extraction; in this thread or in a pool of worker threads. */
export interface Extractor {
  extract(request: ExtractRequest): Promise<PageExtraction | LinkExtraction>;
  close(): Promise<void>;
}

function run(request: ExtractRequest, canonical: CanonicalOptions): PageExtraction | LinkExtraction {
  const options = { canonicalize: (h: string) => canonicalize(h, undefined, canonical), robotsToken: request.robotsToken, xRobotsTag: request.xRobotsTag };
  return request.mode === 'full' ? extractPage(request.html, request.url, options) : extractLinksOnly(request.html, request.url, options);
}

/** Extraction on the calling thread (tests, Lambda handlers, one-off commands). */
export class InlineExtractor implements Extractor {
  constructor(private readonly canonical: CanonicalOptions) {}

  async extract(request: ExtractRequest): Promise<PageExtraction | LinkExtraction> {
    return run(request, this.canonical);
  }

  async close(): Promise<void> {}
}

/** A page whose extraction takes longer than this is given up (its worker is replaced). */
const EXTRACT_TIMEOUT_MS = 30_000;

// Inline source: no worker file to locate. Under tsx (sources are .ts) the worker registers
// tsx's loader before importing the extraction modules; built code imports the .js directly.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
(async () => {
  if (workerData.tsx) (await import(workerData.tsx)).register();
  const page = await import(workerData.extractPage);
  const urls = await import(workerData.canonical);
  const options = (msg) => ({ canonicalize: (h) => urls.canonicalize(h, undefined, workerData.canonicalOptions), robotsToken: msg.robotsToken, xRobotsTag: msg.xRobotsTag });
  parentPort.on('message', (msg) => {
    try {
      const x = msg.mode === 'full' ? page.extractPage(msg.html, msg.url, options(msg)) : page.extractLinksOnly(msg.html, msg.url, options(msg));
      parentPort.postMessage({ id: msg.id, x });
    } catch (err) {
      parentPort.postMessage({ id: msg.id, error: String((err && err.message) || err) });
    }
  });
})().catch((err) => { throw err; });
`;

interface Slot {
  worker: Worker;
  pending: Map<number, { resolve: (x: PageExtraction | LinkExtraction) => void; reject: (e: Error) => void; timer: NodeJS.Timeout }>;
}

/**
 * Extraction in worker threads, so parsing, Readability and markdown use the other cores while
 * the crawl thread fetches and stores. Measured on 2 cores (npm run bench:crawl): full-extraction
 * crawls went from 123 to 200 pages/s with one worker.
 */
export class WorkerExtractor implements Extractor {
  private readonly slots: Slot[] = [];
  private nextId = 0;

  constructor(private readonly canonical: CanonicalOptions, private readonly size = Math.max(1, availableParallelism() - 1)) {}

  private spawn(): Slot {
    const ext = import.meta.url.endsWith('.ts') ? 'ts' : 'js';
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: {
        tsx: ext === 'ts' ? import.meta.resolve('tsx/esm/api') : undefined,
        extractPage: new URL(`./extract-page.${ext}`, import.meta.url).href,
        canonical: new URL(`../url/canonical.${ext}`, import.meta.url).href,
        canonicalOptions: this.canonical,
      },
    });
    const slot: Slot = { worker, pending: new Map() };
    worker.unref();
    worker.on('message', (msg: { id: number; x?: PageExtraction | LinkExtraction; error?: string }) => {
      const p = slot.pending.get(msg.id);
      if (!p) return;
      slot.pending.delete(msg.id);
      clearTimeout(p.timer);
      if (slot.pending.size === 0) worker.unref();
      if (msg.x) p.resolve(msg.x);
      else p.reject(new Error(`extraction failed: ${msg.error}`));
    });
    const fail = (err: Error) => {
      for (const p of slot.pending.values()) {
        clearTimeout(p.timer);
        p.reject(err);
      }
      slot.pending.clear();
      const i = this.slots.indexOf(slot);
      if (i >= 0) this.slots.splice(i, 1);
    };
    worker.on('error', fail);
    worker.on('exit', () => fail(new Error('extraction worker stopped')));
    this.slots.push(slot);
    return slot;
  }

  private pick(): Slot {
    if (this.slots.length < this.size) return this.spawn();
    return this.slots.reduce((a, b) => (b.pending.size < a.pending.size ? b : a));
  }

  extract(request: ExtractRequest): Promise<PageExtraction | LinkExtraction> {
    const slot = this.pick();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        reject(new Error(`extraction took longer than ${EXTRACT_TIMEOUT_MS / 1000} s`));
        void slot.worker.terminate();
      }, EXTRACT_TIMEOUT_MS);
      timer.unref();
      slot.pending.set(id, { resolve, reject, timer });
      slot.worker.ref();
      slot.worker.postMessage({ id, ...request });
    });
  }

  async close(): Promise<void> {
    await Promise.all(this.slots.map((s) => s.worker.terminate()));
    this.slots.length = 0;
  }
}
