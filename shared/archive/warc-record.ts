// WARC 1.1 records as bytes: the header block, the HTTP message's head when there is one, the
// payload as it is, and the record's end. warcio reads them (warc-reader.ts, the WACZ indexer).
//
// Written here rather than by warcio's WARCSerializer: for every record that one builds a record
// object, header maps and async iterators, and copies the payload through them. On the crawl thread
// those were 27 % of the bytes allocated in bench:crawl's `--render never` crawl (232 of 866 MB,
// heap sampling) and the largest share of its collections; a record here allocates its header text
// and two digests, and hands the payload on without a copy.
import { createHash, randomUUID } from 'node:crypto';
import base32Encode from 'base32-encode';

const WARC_VERSION = 'WARC/1.1';

const CRLF2 = Buffer.from('\r\n\r\n');

export type WarcType = 'warcinfo' | 'request' | 'response' | 'revisit' | 'metadata' | 'conversion' | 'resource';

export interface RecordSpec {
  type: WarcType;
  /** WARC-Record-ID, from newRecordId(): known before the record is made when another names it. */
  id: string;
  /** ISO 8601 (WARC-Date). */
  date: string;
  /** WARC-Target-URI (none for warcinfo). */
  url?: string;
  /** More WARC headers, first in the header block (WARC-Truncated, WARC-Concurrent-To, …). */
  headers?: Record<string, string>;
  /** The record's Content-Type; an HTTP record's is `application/http; msgtype=…`. */
  contentType?: string;
  /** An HTTP record's start line and header fields, in order; its payload is the message body. */
  http?: { startLine: string; fields: Record<string, string> };
  payload: Uint8Array;
  /** WARC-Payload-Digest when the payload is not in the record (a revisit names the original's). */
  payloadDigest?: string;
}

export function newRecordId(): string {
  return `<urn:uuid:${randomUUID()}>`;
}

/**
 * The digest algorithm of a WARC's records: SHA-1 (what Heritrix, wget, Common Crawl and pywb's
 * deduplication write and compare, so captures deduplicate against other archives), or SHA-256.
 */
export type WarcDigestAlgorithm = 'sha1' | 'sha256';
export const DEFAULT_WARC_DIGEST: WarcDigestAlgorithm = 'sha1';

/** A WARC digest as the field's tools write and check it: the algorithm, then the hash in base32 (RFC 4648). */
export function warcDigest(algorithm: WarcDigestAlgorithm, ...parts: Uint8Array[]): string {
  const hash = createHash(algorithm);
  for (const part of parts) hash.update(part);
  return `${algorithm}:${base32Encode(hash.digest(), 'RFC4648')}`;
}

const digestOf = warcDigest;

/** The WARC digest of a body whose SHA-256 is known as hex (a content hash). */
export function warcDigestOfHex(sha256Hex: string): string {
  return `sha256:${base32Encode(Buffer.from(sha256Hex, 'hex'), 'RFC4648')}`;
}

/** A header on one line: a line break in a name or value would end the header block early. */
const oneLine = (value: string) => value.replace(/[\r\n]+/g, ' ');
const field = ([name, value]: [string, string]) => `${oneLine(name)}: ${oneLine(value)}`;

/**
 * The record's bytes, in pieces to write or compress in order (the payload is one of them,
 * uncopied). Digests are `algorithm`'s in base32: the payload's, and the block's (HTTP head and payload);
 * a record that is not HTTP has its payload as its block. A warcinfo record has no digests.
 */
export function recordPieces(spec: RecordSpec, algorithm: WarcDigestAlgorithm = DEFAULT_WARC_DIGEST): Uint8Array[] {
  const warcDigest = (...parts: Uint8Array[]) => digestOf(algorithm, ...parts);
  const head = spec.http && Buffer.from(`${[spec.http.startLine, ...Object.entries(spec.http.fields).map(field)].join('\r\n')}\r\n\r\n`);
  const lines = [WARC_VERSION, ...Object.entries(spec.headers ?? {}).map(field)];
  if (spec.url !== undefined) lines.push(`WARC-Target-URI: ${oneLine(spec.url)}`);
  lines.push(`WARC-Date: ${spec.date}`, `WARC-Type: ${spec.type}`, `WARC-Record-ID: ${spec.id}`);
  if (spec.contentType) lines.push(`Content-Type: ${spec.contentType}`);
  if (spec.type === 'revisit') {
    // A revisit's block holds no payload: its payload digest is the original's, when known.
    if (spec.payloadDigest) lines.push(`WARC-Payload-Digest: ${spec.payloadDigest}`);
    lines.push(`WARC-Block-Digest: ${head ? warcDigest(head, spec.payload) : warcDigest(spec.payload)}`);
  } else if (spec.type !== 'warcinfo') {
    const payloadDigest = warcDigest(spec.payload);
    lines.push(`WARC-Payload-Digest: ${payloadDigest}`, `WARC-Block-Digest: ${head ? warcDigest(head, spec.payload) : payloadDigest}`);
  }
  lines.push(`Content-Length: ${(head?.length ?? 0) + spec.payload.length}`);
  const warcHead = Buffer.from(`${lines.join('\r\n')}\r\n\r\n`);
  return head ? [warcHead, head, spec.payload, CRLF2] : [warcHead, spec.payload, CRLF2];
}

/** `key: value` lines (application/warc-fields), each value on one line. */
export function warcFields(fields: Record<string, string | number | boolean>): Buffer {
  return Buffer.from(
    Object.entries(fields)
      .map(([k, v]) => `${k}: ${String(v).replace(/\s+/g, ' ')}\r\n`)
      .join(''),
  );
}
