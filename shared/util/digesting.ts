import { createHash } from 'node:crypto';
import { Transform } from 'node:stream';

/** A pass-through stream that hashes (`algorithm`, as node:crypto names it) and counts the bytes that flow through it. */
export function digesting(algorithm: string): { stream: Transform; digest(): string; bytes(): number } {
  const hash = createHash(algorithm);
  let bytes = 0;
  const stream = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      hash.update(chunk);
      bytes += chunk.length;
      callback(null, chunk);
    },
  });
  return { stream, digest: () => hash.digest('hex'), bytes: () => bytes };
}
