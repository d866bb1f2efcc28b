// A WARC file that a crawl may still be appending to, read as it stood at one moment: up to the end
// of its last whole record. Each record is its own gzip member, so a file cut between two members is
// a valid WARC; one cut inside a member is not (a reader fails on, or silently drops, its tail).
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { inflateRawSync } from 'node:zlib';

const FEXTRA = 4;
const FNAME = 8;
const FCOMMENT = 16;
const FHCRC = 2;

/** Where the gzip member starting at `pos` ends, or undefined when it is not whole in `buf`. */
export function gzipMemberEnd(buf: Buffer, pos: number): number | undefined {
  if (buf.length < pos + 18 || buf[pos] !== 0x1f || buf[pos + 1] !== 0x8b || buf[pos + 2] !== 8) return undefined;
  const flags = buf[pos + 3]!;
  let p = pos + 10;
  if (flags & FEXTRA) p = p + 2 <= buf.length ? p + 2 + buf.readUInt16LE(p) : buf.length + 1;
  for (const flag of [FNAME, FCOMMENT]) if (flags & flag) p = buf.indexOf(0, p) < 0 ? buf.length + 1 : buf.indexOf(0, p) + 1;
  if (flags & FHCRC) p += 2;
  if (p >= buf.length) return undefined;
  try {
    // RFC 1952: the deflate stream, then CRC-32 and ISIZE (8 bytes).
    const { engine } = inflateRawSync(buf.subarray(p), { info: true }) as unknown as { engine: { bytesWritten: number } };
    const end = p + engine.bytesWritten + 8;
    return end <= buf.length ? end : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The length of `path` up to the end of its last whole gzip member, walking from `from` (the start of
 * a member known to be whole, such as a stored record's offset): only the file's tail is read. A file
 * that is not gzip there is taken at its present size.
 */
export function wholeRecordsLength(path: string, from: number): number {
  const size = statSync(path).size;
  if (from >= size) return size;
  const tail = Buffer.alloc(size - from);
  const fd = openSync(path, 'r');
  try {
    let read = 0;
    while (read < tail.length) {
      const n = readSync(fd, tail, read, tail.length - read, from + read);
      if (n === 0) break;
      read += n;
    }
  } finally {
    closeSync(fd);
  }
  if (tail[0] !== 0x1f || tail[1] !== 0x8b) return size;
  let pos = 0;
  for (let end = gzipMemberEnd(tail, pos); end !== undefined; end = gzipMemberEnd(tail, pos)) pos = end;
  return from + pos;
}
