// A WARC record's bytes as one gzip member: small records on the calling thread, large ones on
// libuv's thread pool, each at the level its place on the crawl's path can afford.
import { createGzip, gzipSync } from 'node:zlib';
import type { StageClock } from '../log/stage-clock.js';
import { recordPieces, type RecordSpec, type WarcDigestAlgorithm } from './warc-record.js';

/**
 * zlib's level for the other records, compressed on the crawl thread: 4 instead of the default 6.
 * On the extraction corpus's 400 first pages: 0.84 ms a page against 1.26, the archive 4 %
 * larger (ratio 4.81 against 5.02).
 */
export const RECORD_LEVEL = 4;
/** Records above this size are compressed on libuv's thread pool, smaller ones on the calling thread. */
const ASYNC_GZIP_BYTES = 256 * 1024;
/**
 * zlib's level for those large records: 3 instead of the default 6. A large page's body waits in
 * the crawl's heavy lane until its record is written, and the lane's byte bound stops every host
 * while it is full: at level 6 the eight 5 MiB pages of bench:crawl's web took 1.1–1.3 s each to
 * compress (271 ms of CPU each, on a machine busy with the crawl) and the crawl stood still for
 * ~0.8 s. Level 3 on the extraction corpus's pages: 161 MB/s against 83, output 9 % larger.
 */
const LARGE_RECORD_LEVEL = 3;
/**
 * The output buffer of that compression: each one filled is a trip from the thread pool back to
 * the crawl thread's event loop, which at full speed takes a while to come round. With zlib's 16
 * KiB, a 5 MiB page's record took ~55 trips and 0.5–0.7 s; with 1 MiB, one or two.
 */
const GZIP_CHUNK_BYTES = 1024 * 1024;

/**
 * One gzip member per record, compressed with Node's zlib (3.1 ms of CPU per exchange with
 * warcio's own gzip, CompressionStream, against well under 1 ms this way; the same bytes format).
 * A small record synchronously (zlib's thread-pool API costs ~1 ms of CPU per call, for a stream
 * and its state, against 0.05 ms here); a large one on the thread pool, where its ~60 ms for a
 * capped 5 MiB page do not hold up the crawl thread and every host with it, fed the record's
 * pieces as they are (its headers and the body itself): joined first, each capped page in the
 * archive stage held a second copy of its 5 MiB body while it was compressed.
 */
export function gzipRecord(spec: RecordSpec, clock: StageClock, digest: WarcDigestAlgorithm): Uint8Array | Promise<Uint8Array> {
  const pieces = recordPieces(spec, digest);
  const size = pieces.reduce((n, piece) => n + piece.length, 0);
  if (size > ASYNC_GZIP_BYTES) return gzipPieces(pieces);
  return clock.time('WARC', () => gzipSync(Buffer.concat(pieces, size), { level: RECORD_LEVEL }));
}

function gzipPieces(pieces: Uint8Array[]): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const out: Buffer[] = [];
    const gz = createGzip({ level: LARGE_RECORD_LEVEL, chunkSize: GZIP_CHUNK_BYTES });
    gz.on('data', (chunk: Buffer) => out.push(chunk));
    gz.once('error', reject);
    gz.once('end', () => resolve(Buffer.concat(out)));
    for (const piece of pieces) gz.write(piece);
    gz.end();
  });
}
