import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { CanonicalOptions } from '../url/canonical.js';
import type { LinkExtraction, PageExtraction } from './extract-page.js';
import { PDF_TEXT_SOURCE, pdfjsUrl, type PdfText } from './pdf.js';
import { runExtract, runTextParts, type Decoded, type ExtractRequest, type TextParts } from './run-extract.js';

/** A page's extraction, with what decoding its served bytes found. */
export type Extraction = (PageExtraction | LinkExtraction) & { decoded?: Decoded };

export type { ExtractRequest } from './run-extract.js';

/** Turns a page into its extraction; in this thread or in a pool of worker threads. */
export interface Extractor {
  /** Threads extracting at once (0: this thread). */
  readonly threads: number;
  extract(request: ExtractRequest): Promise<Extraction>;
  /** The SimHash, text hash and chunks of a plain text (a PDF's), where pages are extracted; `timed` adds `timings`. */
  textParts(text: string, timed?: boolean): Promise<TextParts>;
  /** A PDF's text, page count and title, where pages are extracted in worker threads (elsewhere `extractPdf`'s own thread reads it). */
  pdf?(bytes: Buffer): Promise<PdfText>;
  /** Resolves once the extractor can take pages at full speed (worker threads started); optional. */
  ready?(): Promise<void>;
  close(): Promise<void>;
}

/** Extraction on the calling thread (tests, Lambda handlers, one-off commands). */
export class InlineExtractor implements Extractor {
  readonly threads = 0;
  constructor(private readonly canonical: CanonicalOptions) {}

  async extract(request: ExtractRequest): Promise<Extraction> {
    return runExtract(request, this.canonical);
  }

  async textParts(text: string, timed = false): Promise<TextParts> {
    return runTextParts(text, timed);
  }

  async close(): Promise<void> {}
}

export interface WorkerExtractorOptions {
  /** Worker threads (default: cores − 1). */
  size?: number;
  /** A page whose extraction takes longer fails and its worker is replaced (its own time: pages queued behind it wait without a clock). */
  timeoutMs?: number;
  /** Heap limit of one worker: a page that exhausts it fails alone (the worker is replaced). */
  memoryMb?: number;
}

// Inline source: no worker file to locate. Under tsx (sources are .ts) the worker registers
// tsx's loader before importing the extraction modules; built code imports the .js directly.
// Messages are answered in the order they came: those that arrive while a PDF is read (pdf.js is
// asynchronous) wait for it.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
${PDF_TEXT_SOURCE}
const answer = (id, work) => {
  try {
    parentPort.postMessage({ id, x: work() });
  } catch (err) {
    parentPort.postMessage({ id, error: String((err && err.message) || err) });
  }
};
(async () => {
  if (workerData.tsx) (await import(workerData.tsx)).register();
  const { runExtract, runTextParts } = await import(workerData.runExtract);
  let pdfRunning = false;
  const later = [];
  const handle = (msg) => {
    if (msg.pdf === undefined) return answer(msg.id, () => (msg.text !== undefined ? runTextParts(msg.text, msg.timed) : runExtract(msg, workerData.canonicalOptions)));
    pdfRunning = true;
    extractPdfText(msg.pdf)
      .then((x) => parentPort.postMessage({ id: msg.id, x }), (err) => parentPort.postMessage({ id: msg.id, error: 'PDF not readable: ' + String((err && err.message) || err) }))
      .finally(() => {
        pdfRunning = false;
        while (!pdfRunning && later.length > 0) handle(later.shift());
      });
  };
  parentPort.postMessage({ ready: true });
  parentPort.on('message', (msg) => (pdfRunning ? later.push(msg) : handle(msg)));
})().catch((err) => { throw err; });
`;

/** A page to extract, a plain text whose parts are wanted, or a PDF to read. */
type WorkRequest = ExtractRequest | { text: string; timed?: boolean } | { pdf: Buffer };
type WorkResult = Extraction | TextParts | PdfText;

interface Pending {
  request: WorkRequest;
  resolve: (x: WorkResult) => void;
  reject: (e: Error) => void;
  /** Runs only while the worker is on this page. */
  timer?: NodeJS.Timeout;
}

interface Slot {
  worker: Worker;
  /** In the order sent: a worker answers its messages one after the other, so the first is the one running. */
  pending: Map<number, Pending>;
  /** Its modules are loaded: page clocks start only then. */
  ready: boolean;
  loaded: Promise<void>;
}

/**
 * Extraction in worker threads, so parsing, Readability and markdown use the other cores while
 * the crawl thread fetches and stores. Measured on 2 cores (npm run bench:crawl): full-extraction
 * crawls went from 123 to 200 pages/s with one worker. A page that hangs or exhausts a worker's
 * heap fails alone: the worker is replaced and the pages queued behind it go to another.
 */
export class WorkerExtractor implements Extractor {
  private readonly slots: Slot[] = [];
  private nextId = 0;
  private closed = false;
  private readonly size: number;
  private readonly timeoutMs: number;

  get threads(): number {
    return this.size;
  }
  private readonly memoryMb: number;

  constructor(
    private readonly canonical: CanonicalOptions,
    options: WorkerExtractorOptions = {},
  ) {
    this.size = options.size ?? Math.max(1, availableParallelism() - 1);
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.memoryMb = options.memoryMb ?? 512;
  }

  private spawn(): Slot {
    const ext = import.meta.url.endsWith('.ts') ? 'ts' : 'js';
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      // The old generation's cap is a page's limit (one that exhausts it fails alone); a young generation of 8 MB
      // is what a page's garbage needs (64 MB cost ~50 MB of RSS and nothing in speed, bench:crawl).
      resourceLimits: { maxOldGenerationSizeMb: this.memoryMb, maxYoungGenerationSizeMb: 8 },
      workerData: {
        tsx: ext === 'ts' ? import.meta.resolve('tsx/esm/api') : undefined,
        runExtract: new URL(`./run-extract.${ext}`, import.meta.url).href,
        canonicalOptions: this.canonical,
        pdfjs: pdfjsUrl(),
      },
    });
    let loaded!: () => void;
    const slot: Slot = { worker, pending: new Map(), ready: false, loaded: new Promise<void>((r) => (loaded = r)) };
    worker.unref();
    worker.on('message', (msg: { id: number; x?: PageExtraction | LinkExtraction; error?: string; ready?: boolean }) => {
      if (msg.ready) {
        slot.ready = true;
        loaded();
        this.armNext(slot);
        return;
      }
      const p = slot.pending.get(msg.id);
      if (!p) return;
      slot.pending.delete(msg.id);
      clearTimeout(p.timer);
      this.armNext(slot);
      if (slot.pending.size === 0) worker.unref();
      if (msg.x) p.resolve(msg.x);
      else p.reject(new Error(`extraction failed: ${msg.error}`));
    });
    worker.on('error', (err) => this.retire(slot, err));
    worker.on('exit', () => {
      loaded();
      this.retire(slot, new Error('extraction worker stopped'));
    });
    this.slots.push(slot);
    return slot;
  }

  /** Takes a worker out of the pool; the page it was on fails (with `culprit`), the pages behind it go to another worker. */
  private retire(slot: Slot, err: Error, culprit = slot.pending.keys().next().value): void {
    const i = this.slots.indexOf(slot);
    if (i >= 0) this.slots.splice(i, 1);
    const pending = [...slot.pending.entries()];
    slot.pending.clear();
    for (const [id, p] of pending) {
      clearTimeout(p.timer);
      if (id === culprit || this.closed) p.reject(new Error(`extraction worker failed on this page: ${err.message}`));
      else this.send(p.request, p.resolve, p.reject);
    }
  }

  private pick(): Slot {
    if (this.slots.length < this.size) return this.spawn();
    return this.slots.reduce((a, b) => (b.pending.size < a.pending.size ? b : a));
  }

  private send(request: WorkRequest, resolve: Pending['resolve'], reject: Pending['reject']): void {
    const slot = this.pick();
    const id = this.nextId++;
    slot.pending.set(id, { request, resolve, reject });
    this.armNext(slot);
    slot.worker.ref();
    slot.worker.postMessage({ id, ...request });
  }

  /** Starts the clock of the page the worker is on now (the first it has not answered). */
  private armNext(slot: Slot): void {
    const first = slot.pending.entries().next();
    if (!slot.ready || first.done || first.value[1].timer) return;
    const [id, p] = first.value;
    p.timer = setTimeout(() => {
      this.retire(slot, new Error(`extraction took longer than ${this.timeoutMs / 1000} s`), id);
      void slot.worker.terminate();
    }, this.timeoutMs);
    p.timer.unref();
  }

  extract(request: ExtractRequest): Promise<Extraction> {
    return new Promise((resolve, reject) => this.send(request, resolve as Pending['resolve'], reject));
  }

  textParts(text: string, timed = false): Promise<TextParts> {
    return new Promise((resolve, reject) => this.send({ text, timed }, resolve as Pending['resolve'], reject));
  }

  /**
   * In an extraction worker, under a page's timeout and heap limit: pdf.js loads there on the
   * first PDF (~10 MB of its heap) instead of in a thread of its own (~30 MB of RSS while it lived).
   */
  pdf(bytes: Buffer): Promise<PdfText> {
    return new Promise((resolve, reject) => this.send({ pdf: bytes }, resolve as Pending['resolve'], reject));
  }

  /** Starts every worker and resolves when they have loaded the extraction modules (about a second under tsx). */
  async ready(): Promise<void> {
    while (this.slots.length < this.size) this.spawn();
    await Promise.all(this.slots.map((s) => s.loaded));
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.slots.map((s) => s.worker.terminate()));
    this.slots.length = 0;
  }
}

/**
 * A crawl's extractor on this machine: worker threads (`--extract-workers`, default one fewer than
 * the cores, at least one), or the calling thread with 0.
 */
export function extractorFor(
  settings: { extractWorkers: number | 'auto'; extractTimeoutMs: number; extractMemoryMb: number },
  canonical: CanonicalOptions,
): Extractor {
  const workers = settings.extractWorkers === 'auto' ? Math.max(1, availableParallelism() - 1) : settings.extractWorkers;
  if (workers === 0) return new InlineExtractor(canonical);
  return new WorkerExtractor(canonical, { size: workers, timeoutMs: settings.extractTimeoutMs, memoryMb: settings.extractMemoryMb });
}
