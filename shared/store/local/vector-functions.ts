import { createRequire } from 'node:module';
import type { Db } from './sqlite-types.js';

const require = createRequire(import.meta.url);

/** Cosine distance of two float32 blobs in plain JavaScript: sqlite-vec's function where its binary cannot load. */
function cosineDistance(a: Uint8Array, b: Uint8Array): number | null {
  if (a.byteLength !== b.byteLength || a.byteLength % 4 !== 0) return null;
  const x = new Float32Array(a.buffer, a.byteOffset, a.byteLength / 4);
  const y = new Float32Array(b.buffer, b.byteOffset, b.byteLength / 4);
  let dot = 0;
  let nx = 0;
  let ny = 0;
  for (let i = 0; i < x.length; i++) {
    dot += x[i]! * y[i]!;
    nx += x[i]! * x[i]!;
    ny += y[i]! * y[i]!;
  }
  return nx === 0 || ny === 0 ? 1 : 1 - dot / Math.sqrt(nx * ny);
}

/**
 * Gives a connection `vec_distance_cosine`: sqlite-vec's compiled one (prebuilt for Linux, macOS
 * and Windows on x64 and arm64), or the JavaScript fallback on any other platform. Returns which.
 */
export function loadVectorFunctions(db: Db): 'sqlite-vec' | 'javascript' {
  try {
    (require('sqlite-vec') as { load(db: Db): void }).load(db);
    return 'sqlite-vec';
  } catch {
    db.function('vec_distance_cosine', { deterministic: true }, (a: unknown, b: unknown) =>
      a instanceof Uint8Array && b instanceof Uint8Array ? cosineDistance(a, b) : null,
    );
    return 'javascript';
  }
}

/** A float32 vector as the blob SQLite stores (little-endian, as sqlite-vec reads it). */
export function vectorBlob(vector: Float32Array): Buffer {
  return Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength);
}
