import { Worker } from 'node:worker_threads';
import { PDFJS_MODULE } from './runtime-files.js';

export interface PdfText {
  text: string;
  pages: number;
  title?: string;
}

/** A PDF that takes longer than this is abandoned and its worker replaced (hostile or huge files). */
const PDF_TIMEOUT_MS = 20_000;

/** An idle PDF worker stops after this long: pdf.js holds ~40 MB of a thread that a crawl of few PDFs should not keep. */
const PDF_IDLE_MS = 5_000;

type Pending = { resolve: (r: PdfText) => void; reject: (e: Error) => void; timer: NodeJS.Timeout };
let worker: Worker | undefined;
let idle: NodeJS.Timeout | undefined;
let nextId = 0;
const pending = new Map<number, Pending>();

function failAll(err: Error): void {
  for (const p of pending.values()) {
    clearTimeout(p.timer);
    p.reject(err);
  }
  pending.clear();
  worker = undefined;
}

/**
 * pdf.js reading a PDF's text, as source for a worker thread: `extractPdfText(bytes)`, which imports
 * pdf.js (the serverless build that unpdf bundles, one 1.6 MB file) on its first PDF by the URL in
 * `workerData.pdfjs` (pdfjsUrl). Only in a worker's realm: pdf.js installs polyfills on built-ins
 * (Uint8Array.prototype.toHex, Map.prototype.getOrInsert…), which must not reach the crawler, and a
 * hostile PDF that hangs it costs only the worker. On Node 20 it adds the one built-in pdf.js 5
 * needs that Node 20 lacks, Promise.withResolvers. Source rather than a module, so no worker file
 * has to be found, transpiled or bundled; the crawl's extraction workers (extractor.ts) run it, and
 * this file's own worker does for the rest.
 */
export const PDF_TEXT_SOURCE = `
let pdfjsLoading;
async function extractPdfText(bytes) {
  if (!Promise.withResolvers) Promise.withResolvers = function () { let resolve, reject; const promise = new Promise((a, b) => { resolve = a; reject = b; }); return { promise, resolve, reject }; };
  const { getDocument } = await (pdfjsLoading ??= import(require('node:worker_threads').workerData.pdfjs));
  const task = getDocument({ data: bytes, useSystemFonts: false, disableFontFace: true, isEvalSupported: false, verbosity: 0 });
  const pdf = await task.promise;
  try {
    const pages = [];
    for (let i = 1; i <= pdf.numPages; i++) {
      const page = await pdf.getPage(i);
      const content = await page.getTextContent();
      pages.push(content.items.map((item) => ('str' in item ? item.str + (item.hasEOL ? '\\n' : '') : '')).join('').trim());
      page.cleanup();
    }
    const meta = await pdf.getMetadata().catch(() => undefined);
    const title = meta && meta.info && typeof meta.info.Title === 'string' ? meta.info.Title.trim() || undefined : undefined;
    return { text: pages.join('\\n\\n').trim(), pages: pdf.numPages, title };
  } finally {
    await task.destroy();
  }
}
`;

/** What a worker running PDF_TEXT_SOURCE takes as `workerData.pdfjs`. */
export function pdfjsUrl(): string {
  return import.meta.resolve(PDFJS_MODULE);
}

/** This file's own worker: for extraction on the calling thread (tests, Lambda handlers, one-off commands). */
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
${PDF_TEXT_SOURCE}
parentPort.on('message', (msg) => {
  extractPdfText(msg.bytes).then((result) => parentPort.postMessage({ id: msg.id, result }), (err) => parentPort.postMessage({ id: msg.id, error: String(err && err.message || err) }));
});
`;

function pdfWorker(): Worker {
  clearTimeout(idle);
  if (worker) return worker;
  const w = new Worker(WORKER_SOURCE, {
    eval: true,
    // A young generation of 8 MB, as the extraction workers have: V8's default (up to 48 MB) is RSS
    // a crawl keeps for the rest of its life after its first PDF, and pdf.js's garbage needs no more.
    resourceLimits: { maxYoungGenerationSizeMb: 8 },
    workerData: { pdfjs: pdfjsUrl() },
  });
  w.unref();
  w.on('message', (msg: { id: number; result?: PdfText; error?: string }) => {
    const p = pending.get(msg.id);
    if (!p) return;
    pending.delete(msg.id);
    clearTimeout(p.timer);
    if (msg.result) p.resolve(msg.result);
    else p.reject(new Error(`PDF not readable: ${msg.error}`));
  });
  // A worker stopped while idle took no PDF with it; one replaced already is none of the current one's business.
  w.on('error', (err) => worker === w && failAll(err));
  w.on('exit', () => worker === w && failAll(new Error('PDF worker stopped')));
  worker = w;
  return w;
}

/** Extracts the text and page count of a PDF with pdf.js, in a worker thread (no fonts, no eval). */
export function extractPdf(bytes: Buffer): Promise<PdfText> {
  const w = pdfWorker();
  const id = nextId++;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      pending.delete(id);
      reject(new Error(`PDF not readable within ${PDF_TIMEOUT_MS / 1000} s`));
      void w.terminate();
    }, PDF_TIMEOUT_MS);
    timer.unref();
    pending.set(id, { resolve, reject, timer });
    w.ref();
    w.postMessage({ id, bytes: new Uint8Array(bytes) });
  }).finally(() => {
    if (pending.size > 0) return;
    w.unref();
    clearTimeout(idle);
    idle = setTimeout(() => {
      if (pending.size > 0 || worker !== w) return;
      worker = undefined;
      void w.terminate();
    }, PDF_IDLE_MS);
    idle.unref();
  }) as Promise<PdfText>;
}
