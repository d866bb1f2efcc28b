// S3's own consistency in s3rver. S3 replaces an object whole: a read sees the old bytes or the new,
// and a read after a write's answer sees the write. s3rver's file store does neither. It writes an
// object in place (a read during an overwrite gets a mix of the two, or nothing, with a success), and
// it answers a PUT before its file is flushed. Under load the run's end read its own JSON objects
// empty. Here the store writes each object to a file of its own, flushes it, then renames it over
// the old one; a key's rename and metadata, and a read's metadata and open, take turns. A read
// already open keeps the file it opened.
import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rm, rename } from 'node:fs/promises';
import { dirname } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { digesting } from '../../shared/util/digesting.js';

/** What s3rver's FilesystemStore has that this needs (s3rver/lib/stores/filesystem.js). */
export interface S3rverStore {
  getResourcePath(bucket: string, key: string, resourceType: string): string;
  putMetadata(bucket: string, key: string, metadata: Record<string, string>, md5?: string): Promise<void>;
  putObject(object: { bucket: string; key: string; content: Buffer | Readable; metadata: Record<string, string> }): Promise<{ size: number; md5: string }>;
  getObject(bucket: string, key: string, options?: unknown): Promise<unknown>;
  deleteObject(bucket: string, key: string): Promise<unknown>;
  copyObject(srcBucket: string, srcKey: string, destBucket: string, destKey: string, metadata?: unknown): Promise<unknown>;
}

/** Makes the store's writes of a key whole, and each read see one of them. */
export function atomicObjects(store: S3rverStore): void {
  const turns = new Map<string, Promise<void>>();
  // One key's critical sections run one after another, in the order they asked.
  const inTurn = async <T>(bucket: string, key: string, body: () => Promise<T>): Promise<T> => {
    const id = `${bucket}\n${key}`;
    const before = turns.get(id) ?? Promise.resolve();
    let done!: () => void;
    const mine = before.then(() => new Promise<void>((resolve) => (done = resolve)));
    turns.set(id, mine);
    await before;
    try {
      return await body();
    } finally {
      done();
      if (turns.get(id) === mine) turns.delete(id);
    }
  };
  const { getObject, deleteObject, copyObject } = store;
  store.putObject = async (object) => {
    const path = store.getResourcePath(object.bucket, object.key, 'object');
    await mkdir(dirname(path), { recursive: true });
    // Not named like an object (`…._S3rver_object`), so a listing never shows it.
    const part = `${path}.${randomUUID()}.part`;
    const md5 = digesting('md5');
    const source = Buffer.isBuffer(object.content) ? Readable.from([object.content]) : object.content;
    try {
      // The file is flushed and closed when the pipeline ends.
      await pipeline(source, md5.stream, createWriteStream(part));
    } catch (err) {
      await rm(part, { force: true });
      throw err;
    }
    const digest = md5.digest();
    await inTurn(object.bucket, object.key, async () => {
      await rename(part, path);
      await store.putMetadata(object.bucket, object.key, object.metadata, digest);
    });
    return { size: md5.bytes(), md5: digest };
  };
  store.getObject = (bucket, key, options) => inTurn(bucket, key, () => getObject.call(store, bucket, key, options));
  store.deleteObject = (bucket, key) => inTurn(bucket, key, () => deleteObject.call(store, bucket, key));
  store.copyObject = (srcBucket, srcKey, destBucket, destKey, metadata) =>
    inTurn(destBucket, destKey, () => copyObject.call(store, srcBucket, srcKey, destBucket, destKey, metadata));
}
