// The binary records the phases of a sharded ranking hand each other (see sharded-rank.ts).

/** A URL id in a record: its characters (a store's ids are 32 hex digits; any id up to 32 ASCII characters), zero-padded. */
export const ID_BYTES = 32;
/** One link record: source shard, source's number in its shard, source host's hash, target id. */
export const LINK_BYTES = 12 + ID_BYTES;

export function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

export function idBytes(id: string): Buffer {
  if (id.length > ID_BYTES || !/^[\x21-\x7e]*$/.test(id))
    throw new Error(`ranking: URL id ${JSON.stringify(id.slice(0, 80))} is not up to ${ID_BYTES} ASCII characters`);
  const out = Buffer.alloc(ID_BYTES);
  out.write(id, 'latin1');
  return out;
}

export function idAt(buf: Buffer, offset: number): string {
  let end = offset + ID_BYTES;
  while (end > offset && buf[end - 1] === 0) end--;
  return buf.toString('latin1', offset, end);
}

export function int32s(buf: Buffer, offset: number, count: number): Int32Array {
  // A copy: the buffer's own offset need not be aligned for a view.
  return new Int32Array(new Uint8Array(buf.buffer, buf.byteOffset + offset, count * 4).slice().buffer);
}

export function float64s(buf: Buffer): Float64Array {
  return new Float64Array(new Uint8Array(buf.buffer, buf.byteOffset, buf.length).slice().buffer);
}

export const pad = (n: number) => String(n).padStart(5, '0');
