import { openSync, readSync, closeSync, createReadStream } from 'node:fs';
import { join } from 'node:path';
import { WARCParser, type WARCRecord } from 'warcio';
import type { WarcLocation } from '../ports/index.js';

/** The WARC 1.1 revisit profile of a conditional request the server answered 304 Not Modified. */
export const SERVER_NOT_MODIFIED = 'http://netpreserve.org/warc/1.1/revisit/server-not-modified';
/** The WARC 1.1 revisit profile of a response whose payload is the same bytes as an earlier capture's. */
export const IDENTICAL_PAYLOAD = 'http://netpreserve.org/warc/1.1/revisit/identical-payload-digest';

export interface ArchivedResponse {
  url: string;
  date: string;
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  truncated: boolean;
  /**
   * A revisit of an unchanged body: its status and headers, and no body here; the capture it names
   * (same URL, that date, that payload digest) has it.
   */
  refersTo?: { url: string; date: string; payloadDigest?: string };
}

/** Reads the one gzipped record at a location (no scanning) and returns its HTTP response. */
export async function readResponse(dir: string, location: WarcLocation): Promise<ArchivedResponse> {
  const fd = openSync(join(dir, location.file), 'r');
  const bytes = Buffer.alloc(location.length);
  try {
    readSync(fd, bytes, 0, location.length, location.offset);
  } finally {
    closeSync(fd);
  }
  return responseOfRecord(bytes, location);
}

/** The HTTP response (or rendered view) in the bytes of one gzipped record, read from `location`. */
export async function responseOfRecord(bytes: Uint8Array, location: WarcLocation): Promise<ArchivedResponse> {
  const record = await new WARCParser([bytes]).parse();
  if (record?.warcType === 'conversion') return conversionResponse(record, Buffer.from(await record.readFully(false)));
  if (record?.warcType === 'revisit' && record.warcHeader('WARC-Profile') === SERVER_NOT_MODIFIED) return notModifiedResponse(record);
  if (record?.warcType === 'revisit' && record.warcHeader('WARC-Profile') === IDENTICAL_PAYLOAD) {
    await record.readFully(false);
    return {
      ...toResponse(record, Buffer.alloc(0)),
      refersTo: {
        url: record.warcRefersToTargetURI ?? record.warcTargetURI ?? '',
        date: record.warcRefersToDate ?? '',
        ...(record.warcPayloadDigest ? { payloadDigest: record.warcPayloadDigest } : {}),
      },
    };
  }
  if (!record || record.warcType !== 'response') throw new Error(`no response record at ${location.file}:${location.offset}`);
  return toResponse(record, Buffer.from(await record.readFully(false)));
}

/** A revisit of a 304: the answer as it came (no body; the capture it refers to has the page). */
function notModifiedResponse(record: WARCRecord): ArchivedResponse {
  return { url: record.warcTargetURI ?? '', date: record.warcDate ?? '', status: 304, headers: {}, body: Buffer.alloc(0), truncated: false };
}

/** A rendered view (conversion record) as a response: 200, its own content type, the DOM as the body. */
function conversionResponse(record: WARCRecord, body: Buffer): ArchivedResponse {
  const contentType = record.warcHeaders.headers.get('Content-Type') ?? 'text/html; charset=utf-8';
  return { url: record.warcTargetURI ?? '', date: record.warcDate ?? '', status: 200, headers: { 'content-type': contentType }, body, truncated: false };
}

function toResponse(record: WARCRecord, body: Buffer): ArchivedResponse {
  const headers: Record<string, string> = {};
  for (const [k, v] of record.httpHeaders?.headers ?? []) headers[k.toLowerCase()] = v;
  return {
    url: record.warcTargetURI ?? '',
    date: record.warcDate ?? '',
    status: Number(record.httpHeaders?.statusCode ?? 0),
    headers,
    body,
    truncated: record.warcHeaders.headers.get('WARC-Truncated') !== null && record.warcHeaders.headers.get('WARC-Truncated') !== undefined,
  };
}

/** Every record of a WARC file, in order, for checks and exports. */
export async function* readWarc(
  path: string,
): AsyncGenerator<{ type: string; url?: string; headers: Map<string, string>; http?: { status: number; headers: Record<string, string> }; payload: Buffer }> {
  for await (const record of WARCParser.iterRecords(createReadStream(path))) {
    const payload = Buffer.from(await record.readFully(false));
    const httpHeaders: Record<string, string> = {};
    for (const [k, v] of record.httpHeaders?.headers ?? []) httpHeaders[k.toLowerCase()] = v;
    yield {
      type: record.warcType ?? '',
      url: record.warcTargetURI ?? undefined,
      headers: new Map(record.warcHeaders.headers as Iterable<[string, string]>),
      payload,
      http: record.httpHeaders ? { status: Number(record.httpHeaders.statusCode ?? 0), headers: httpHeaders } : undefined,
    };
  }
}
