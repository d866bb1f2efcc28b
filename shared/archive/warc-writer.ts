import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { STATUS_CODES } from 'node:http';
import { basename, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { NO_CLOCK, type StageClock } from '../log/stage-clock.js';
import { gzipRecord, RECORD_LEVEL } from './warc-gzip.js';
import type { WarcLocation } from '../ports/index.js';
import { IDENTICAL_PAYLOAD, readResponse, SERVER_NOT_MODIFIED, type ArchivedResponse } from './warc-reader.js';
import { contentHashOf } from '../ports/content-hash.js';
import { WIRE_HEADERS } from '../fetch/content-type.js';
import {
  DEFAULT_WARC_DIGEST,
  newRecordId,
  recordPieces,
  warcDigest,
  warcDigestOfHex,
  warcFields,
  type RecordSpec,
  type WarcDigestAlgorithm,
} from './warc-record.js';

/** One request/response exchange (or failed attempt) to archive. */
export interface Exchange {
  url: string;
  runId: number;
  kind: string;
  fetcher: 'http' | 'browser';
  date: Date;
  durationMs: number;
  requestHeaders: Record<string, string>;
  /** @default GET (an API call may POST a JSON body: kept in the request record) */
  method?: 'GET' | 'POST';
  requestBody?: Buffer;
  /** More `key: value` lines for the metadata record (the backend and the target of a search or social call). */
  notes?: Record<string, string>;
  response?: { status: number; headers: Record<string, string>; body: Buffer | null; truncated: boolean; skipped?: string };
  error?: string;
  /**
   * The stored capture of this URL: a 304 that confirmed it is archived as a WARC 1.1 `revisit`
   * record (profile server-not-modified), and a 2xx whose body is the same bytes as a revisit
   * with profile identical-payload-digest (unless the writer keeps whole responses), each naming
   * it; replay tools resolve them to its body. `contentHash` is the hex SHA-256 of its body;
   * `body`, when at hand, its bytes (a 304's revisit then names their digest).
   */
  revisitOf?: { url: string; date: Date; contentHash?: string; body?: Uint8Array };
  /**
   * Told where the response record (or the metadata record, without a response) will be, before
   * a byte of the exchange is written: a crawl journals a final answer there, so a kill at any
   * point leaves no archived answer unjournaled (a journaled one the kill cut short reads back as
   * missing, and is asked for again).
   */
  located?: (where: WarcLocation) => void;
}

/** The rendered view of an archived response: the DOM after scripts ran, and optionally a screenshot. */
export interface RenderedView {
  url: string;
  runId: number;
  date: Date;
  /** WARC-Record-ID of the HTTP response the browser was given. */
  refersTo?: string;
  /** Date of that response (WARC-Refers-To-Date). */
  refersToDate?: Date;
  html: Buffer;
  screenshot?: Buffer;
  /** Lines of the metadata record (`reason: …`, `requests: …`). */
  fields: Record<string, string | number | boolean>;
}

export interface WarcWriterOptions {
  /** A file is closed and a new one started once it passes this size (default 1 GiB, the common WARC size). */
  maxFileBytes?: number;
  software?: string;
  /** Put in every file name, so writers that share a destination (one per Lambda) never collide. */
  fileTag?: string;
  /** Gets the time of compressing and writing records (`--stage-times`). */
  clock?: StageClock;
  /**
   * Archive a 2xx whose body did not change as a revisit (identical-payload-digest). Off where
   * the stages after the fetch read the body back from its record (the cloud). @default true
   */
  identicalPayloadRevisits?: boolean;
  /** The records' digests. @default 'sha1' */
  digest?: WarcDigestAlgorithm;
}

const EMPTY = new Uint8Array();

type ArchivedAnswerOf = NonNullable<Exchange['response']>;

/** The HTTP head of a response record (or of an unchanged 2xx's revisit): as received, minus the wire's framing. */
function responseHead({ status, headers, body }: ArchivedAnswerOf): { startLine: string; fields: Record<string, string> } {
  const fields: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) if (!WIRE_HEADERS.has(k)) fields[k] = v;
  if (headers['content-encoding']) fields['x-trawl-original-content-encoding'] = headers['content-encoding'];
  fields['content-length'] = String(body?.length ?? 0);
  return { startLine: `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}`.trim(), fields };
}

/** Which revisit an answer is, if any: a 304, or a whole 2xx body with the stored capture's bytes. */
function revisitProfile(response: ArchivedAnswerOf, contentHash: string | undefined, identical: boolean): string | undefined {
  if (response.status === 304) return SERVER_NOT_MODIFIED;
  const same =
    identical &&
    contentHash !== undefined &&
    response.status >= 200 &&
    response.status < 300 &&
    !response.truncated &&
    response.body !== null &&
    response.body.length > 0 &&
    contentHashOf(response.body) === contentHash;
  return same ? IDENTICAL_PAYLOAD : undefined;
}

/** The 304's status and header fields as metadata lines (`http-status`, `http-header-<name>`). */
function notModifiedFields(headers: Record<string, string>): Record<string, string | number> {
  const fields: Record<string, string | number> = { 'http-status': 304 };
  for (const [k, v] of Object.entries(headers)) if (!WIRE_HEADERS.has(k)) fields[`http-header-${k}`] = v;
  return fields;
}
/**
 * Writes exchanges as WARC 1.1 request, response and metadata records, gzip per record, into
 * `warc/trawl-<run>-<time>-<n>.warc.gz` files rotated by size. The stored response payload is
 * the decoded body; its original Content-Encoding is kept as `X-Trawl-Original-Content-Encoding`.
 */
export class WarcWriter {
  private fd: number | undefined;
  private file = '';
  private size = 0;
  private seq = 0;
  private readonly maxFileBytes: number;
  private readonly clock: StageClock;
  /** Every file this writer started, full paths, oldest first. */
  readonly files: string[] = [];
  private opening: Promise<void> | undefined;

  constructor(
    private readonly dir: string,
    private readonly options: WarcWriterOptions = {},
  ) {
    this.maxFileBytes = options.maxFileBytes ?? 1024 ** 3;
    this.clock = options.clock ?? NO_CLOCK;
    mkdirSync(dir, { recursive: true });
  }

  /** Opens the next file when none is open or the current one is full; concurrent callers wait for one opening. */
  private async ensureFile(runId: number, date: Date): Promise<void> {
    while (this.opening) await this.opening;
    if (this.fd !== undefined && this.size < this.maxFileBytes) return;
    this.opening = this.openNext(runId, date);
    try {
      await this.opening;
    } finally {
      this.opening = undefined;
    }
  }

  /** A new file (never an existing one: a name taken already moves to the next sequence number) starting with its warcinfo record. */
  private async openNext(runId: number, date: Date): Promise<void> {
    this.close();
    const stamp = date
      .toISOString()
      .replace(/[-:]/g, '')
      .replace(/\.\d+Z$/, 'Z');
    const tag = this.options.fileTag ? `-${this.options.fileTag}` : '';
    let fd: number | undefined;
    let file = '';
    while (fd === undefined) {
      file = join(this.dir, `trawl-${runId}-${stamp}${tag}-${String(this.seq++).padStart(5, '0')}.warc.gz`);
      try {
        fd = openSync(file, 'wx');
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
    }
    const info = warcFields({ software: this.options.software ?? 'trawl', format: 'WARC File Format 1.1', 'run-id': runId });
    const spec: RecordSpec = {
      type: 'warcinfo',
      id: newRecordId(),
      date: new Date().toISOString(),
      headers: { 'WARC-Filename': basename(file) },
      contentType: 'application/warc-fields',
      payload: info,
    };
    const head = gzipSync(Buffer.concat(recordPieces(spec, this.digest)), { level: RECORD_LEVEL });
    writeSync(fd, head);
    this.file = file;
    this.files.push(file);
    this.fd = fd;
    this.size = head.length;
  }

  /**
   * Appends records in one synchronous run, so exchanges never interleave (a few KB: cheaper than
   * the thread pool). `before` is told where they will be before a byte is written.
   */
  private append(parts: Uint8Array[], before?: (locations: WarcLocation[]) => void): WarcLocation[] {
    return this.clock.time('WARC', () => {
      let offset = this.size;
      const locations = parts.map((bytes) => {
        const where = { file: basename(this.file), offset, length: bytes.length };
        offset += bytes.length;
        return where;
      });
      before?.(locations);
      for (const bytes of parts) {
        writeSync(this.fd!, bytes);
        this.size += bytes.length;
      }
      return locations;
    });
  }

  /** The records' digest algorithm. */
  private get digest(): WarcDigestAlgorithm {
    return this.options.digest ?? DEFAULT_WARC_DIGEST;
  }

  /**
   * A revisit's payload digest, the original's: of an unchanged 2xx's body, or of the confirmed
   * body a 304's caller read back; else from the stored capture's SHA-256 when the digests are
   * SHA-256, and none with SHA-1 (the profile server-not-modified does not need one).
   */
  private revisitDigest(response: ArchivedAnswerOf, original: NonNullable<Exchange['revisitOf']>): string | undefined {
    const body = response.status === 304 ? original.body : response.body;
    if (body?.length) return warcDigest(this.digest, body);
    return this.digest === 'sha256' && original.contentHash ? warcDigestOfHex(original.contentHash) : undefined;
  }

  /** Archives one exchange; returns where its response record (or metadata record, without a response) is. */
  async write(ex: Exchange): Promise<WarcLocation> {
    const date = ex.date.toISOString();
    const url = new URL(ex.url);
    const responseId = ex.response && newRecordId();
    const concurrent: Record<string, string> = responseId ? { 'WARC-Concurrent-To': responseId } : {};
    const specs: RecordSpec[] = [
      {
        type: 'request',
        id: newRecordId(),
        date,
        url: ex.url,
        headers: concurrent,
        contentType: 'application/http; msgtype=request',
        http: { startLine: `${ex.method ?? 'GET'} ${url.pathname}${url.search} HTTP/1.1`, fields: { host: url.host, ...ex.requestHeaders } },
        payload: ex.requestBody ?? EMPTY,
      },
    ];
    const revisit = ex.response && ex.revisitOf && revisitProfile(ex.response, ex.revisitOf.contentHash, this.options.identicalPayloadRevisits ?? true);
    if (ex.response && responseId && revisit) {
      // A 304's block stays empty: pywb and wabac take the status and headers of a revisit that
      // has any from the revisit itself, and would replay a 304 with no body (its own header
      // fields go into the metadata record). An unchanged 2xx keeps its status and headers.
      specs.push({
        type: 'revisit',
        id: responseId,
        date,
        url: ex.url,
        headers: {
          'WARC-Profile': revisit,
          'WARC-Refers-To-Target-URI': ex.revisitOf!.url,
          'WARC-Refers-To-Date': ex.revisitOf!.date.toISOString(),
        },
        contentType: 'application/http; msgtype=response',
        ...(revisit === IDENTICAL_PAYLOAD ? { http: responseHead(ex.response) } : {}),
        payload: EMPTY,
        payloadDigest: this.revisitDigest(ex.response, ex.revisitOf!),
      });
    } else if (ex.response && responseId) {
      const { body, truncated } = ex.response;
      specs.push({
        type: 'response',
        id: responseId,
        date,
        url: ex.url,
        headers: truncated ? { 'WARC-Truncated': 'length' } : {},
        contentType: 'application/http; msgtype=response',
        http: responseHead(ex.response),
        payload: body ?? EMPTY,
      });
    }
    const fields = {
      'run-id': ex.runId,
      kind: ex.kind,
      fetcher: ex.fetcher,
      'duration-ms': ex.durationMs,
      ...(ex.response?.truncated ? { truncated: 'length' } : {}),
      ...(ex.response?.skipped ? { skipped: ex.response.skipped } : {}),
      ...(ex.error ? { error: ex.error } : {}),
      ...(revisit === SERVER_NOT_MODIFIED ? notModifiedFields(ex.response!.headers) : {}),
      ...ex.notes,
    };
    specs.push({
      type: 'metadata',
      id: newRecordId(),
      date,
      url: ex.url,
      headers: concurrent,
      contentType: 'application/warc-fields',
      payload: warcFields(fields),
    });
    const parts = await Promise.all(specs.map((spec) => gzipRecord(spec, this.clock, this.digest)));
    await this.ensureFile(ex.runId, ex.date);
    const where = (locations: WarcLocation[]): WarcLocation => (responseId ? { ...locations[1]!, recordId: responseId } : locations.at(-1)!);
    const { located } = ex;
    return where(this.append(parts, located && ((locations) => located(where(locations)))));
  }

  /**
   * Archives a rendered view as a `conversion` record (the DOM, `WARC-Refers-To` the response it
   * was made from), a `resource` record for the screenshot and a `metadata` record, both
   * `WARC-Concurrent-To` the conversion. Returns where the conversion record is.
   */
  async writeRendered(view: RenderedView): Promise<WarcLocation> {
    const date = view.date.toISOString();
    const refers: Record<string, string> = view.refersTo
      ? {
          'WARC-Refers-To': view.refersTo,
          'WARC-Refers-To-Target-URI': view.url,
          ...(view.refersToDate ? { 'WARC-Refers-To-Date': view.refersToDate.toISOString() } : {}),
        }
      : {};
    const id = newRecordId();
    const concurrent = { 'WARC-Concurrent-To': id };
    const specs: RecordSpec[] = [{ type: 'conversion', id, date, url: view.url, headers: refers, contentType: 'text/html; charset=utf-8', payload: view.html }];
    if (view.screenshot)
      specs.push({
        type: 'resource',
        id: newRecordId(),
        date,
        url: `urn:screenshot:${view.url}`,
        headers: concurrent,
        contentType: 'image/png',
        payload: view.screenshot,
      });
    const fields = warcFields({ 'run-id': view.runId, fetcher: 'browser', ...view.fields });
    specs.push({ type: 'metadata', id: newRecordId(), date, url: view.url, headers: concurrent, contentType: 'application/warc-fields', payload: fields });
    const parts = await Promise.all(specs.map((spec) => gzipRecord(spec, this.clock, this.digest)));
    await this.ensureFile(view.runId, view.date);
    const locations = this.append(parts);
    return { ...locations[0]!, recordId: id };
  }

  /** The response (or rendered view) recorded at a location this writer's directory holds. */
  read(location: WarcLocation): Promise<ArchivedResponse> {
    return readResponse(this.dir, location);
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}
