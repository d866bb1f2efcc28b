import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { blobFile, FileBlobStore } from '../../shared/store/local/blob-store.js';
import { contentHashOf } from '../../shared/store/content-hash.js';
import { tempDir } from '../helpers.js';

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
