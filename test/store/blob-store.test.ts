import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { blobFile, FileBlobStore, SMALL_BODY_BYTES } from '../../shared/store/local/blob-store.js';
import { openLocalForReading, openLocalForWriting } from '../../shared/store/local/open-local.js';
import { contentHashOf } from '../../shared/ports/content-hash.js';
import { tempDir } from '../../support/helpers.js';

test('a body goes to blobs/ab/<sha256>: one level of 256 directories, not a directory per body', async (t) => {
  const { dir, cleanup } = tempDir();
  t.after(cleanup);
  const blobs = new FileBlobStore(dir);
  const hashes = await Promise.all(Array.from({ length: 50 }, (_, i) => blobs.put(Buffer.from(`body ${i}`))));
  for (const hash of hashes) assert.ok(existsSync(join(dir, hash.slice(0, 2), hash)), hash);
  const directories = readdirSync(dir);
  assert.ok(directories.length <= 50 && directories.every((d) => /^[0-9a-f]{2}$/.test(d)), directories.join(' '));
  for (const d of directories)
    assert.ok(
      readdirSync(join(dir, d)).every((f) => /^[0-9a-f]{64}$/.test(f)),
      d,
    );
});

test('a body a data directory kept under the old layout (blobs/ab/cd/<sha256>) is read where it is and not written again', async (t) => {
  const { dir, cleanup } = tempDir();
  t.after(cleanup);
  const bytes = Buffer.from('<html>kept by an older trawl</html>');
  const hash = contentHashOf(bytes);
  const old = join(dir, hash.slice(0, 2), hash.slice(2, 4), hash);
  mkdirSync(join(dir, hash.slice(0, 2), hash.slice(2, 4)), { recursive: true });
  writeFileSync(old, bytes);
  const blobs = new FileBlobStore(dir);
  assert.deepEqual(await blobs.get(hash), bytes);
  assert.equal(blobFile(dir, hash), old);
  assert.equal(await blobs.put(bytes), hash);
  assert.equal(existsSync(join(dir, hash.slice(0, 2), hash)), false, 'no second copy in the new layout');
  assert.equal(blobFile(dir, contentHashOf(Buffer.from('never stored'))), undefined);
});

test('a crawl keeps a body up to 256 KiB in its database and a larger one as a file; both read back, on the writer thread and from a reader', async (t) => {
  const { dir, cleanup } = tempDir();
  t.after(cleanup);
  const local = openLocalForWriting(dir, 'test', { writerThread: true });
  await local.store.writerReady();
  assert.ok(local.store.writesOnThread);
  const small = Buffer.alloc(SMALL_BODY_BYTES, 'a');
  const large = Buffer.alloc(SMALL_BODY_BYTES + 1, 'b');
  const [smallHash, largeHash] = [await local.blobs.put(small), await local.blobs.put(large)];
  assert.equal(await local.blobs.put(small), smallHash, 'stored once');
  assert.deepEqual(await local.blobs.get(smallHash), small, 'read back as soon as put returns');
  assert.deepEqual(await local.blobs.get(largeHash), large);
  assert.equal(blobFile(join(dir, 'blobs'), smallHash), undefined, 'no file for a small body');
  assert.ok(blobFile(join(dir, 'blobs'), largeHash), 'a file for a large one');
  const rows = local.store.db.prepare('SELECT hash, length(bytes) AS n FROM body_bytes').all();
  assert.deepEqual(rows, [{ hash: smallHash, n: SMALL_BODY_BYTES }]);
  await local.close();

  const reader = openLocalForReading(dir);
  t.after(() => reader.close());
  assert.deepEqual(await reader.blobs.get(smallHash), small);
  assert.deepEqual(await reader.blobs.get(largeHash), large);
  assert.equal(await reader.blobs.get(contentHashOf(Buffer.from('never stored'))), undefined);
});

test('a small body an older trawl kept as a file is read there, and not stored again in the database', async (t) => {
  const { dir, cleanup } = tempDir();
  t.after(cleanup);
  const bytes = Buffer.from('<html>kept as a file by an older trawl</html>');
  const hash = contentHashOf(bytes);
  mkdirSync(join(dir, 'blobs', hash.slice(0, 2)), { recursive: true });
  writeFileSync(join(dir, 'blobs', hash.slice(0, 2), hash), bytes);
  const local = openLocalForWriting(dir, 'test');
  t.after(() => local.close());
  assert.deepEqual(await local.blobs.get(hash), bytes);
  assert.equal(await local.blobs.put(bytes), hash);
  assert.equal(local.store.hasBody(hash), false);
});
