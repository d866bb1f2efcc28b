import type { Readable } from 'node:stream';

/**
 * Named objects beside the crawl state: WARC files, the extracted content of page snapshots and
 * reports. Adapters own the key layout (`archiveKeys`); callers name what they store.
 */
export interface ObjectStore {
  /** Stores a finished WARC file of a run; returns its key. */
  putWarc(runId: number, name: string, body: Buffer): Promise<string>;
  /** Stores the extracted content of one page snapshot as JSON; returns its key. */
  putExtracted(urlId: string, snapshot: string, doc: unknown): Promise<string>;
  /** Stores a report (a run summary, a selection) as JSON under `name`; returns its key. */
  putReport(name: string, doc: unknown): Promise<string>;
  /** Stores the people-facing Markdown form of a report beside its JSON; returns its key. */
  putMarkdownReport(name: string, text: string): Promise<string>;
  /** An object by the key a put returned; undefined when there is none. */
  get(key: string): Promise<Buffer | undefined>;
  /** `length` bytes of an object from `offset` (one record of a WARC file); undefined when there is no such object. */
  getRange(key: string, offset: number, length: number): Promise<Buffer | undefined>;
  /** The objects whose keys start with `prefix`, with their sizes, in key order. */
  list(prefix: string): Promise<Array<{ key: string; size: number }>>;
  /**
   * The same listing a page at a time (a page is at most 1,000 objects), from the first key after
   * `startAfter` when given: a listing of any length, never held whole.
   */
  scan(prefix: string, startAfter?: string): AsyncIterable<Array<{ key: string; size: number }>>;
  /** An object's bytes as a stream (never held whole). */
  stream(key: string): Readable;
  /** Stores a stream of bytes of unknown length under `key`, in parts (never held whole). */
  putStream(key: string, body: Readable, contentType: string): Promise<void>;
  /** Deletes the objects (a key already gone is no error). */
  deleteMany(keys: string[]): Promise<void>;
}
