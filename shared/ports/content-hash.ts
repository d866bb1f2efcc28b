import { hash } from 'node:crypto';

/** The name of a body in every blob store: the hex SHA-256 of its bytes. */
export function contentHashOf(bytes: Uint8Array): string {
  return hash('sha256', bytes, 'hex');
}

/** Where a crawl keeps fetched bodies: the blob store as well as the WARC record, or the WARC record only. */
export type BodyKeeping = 'blobs' | 'archive';
