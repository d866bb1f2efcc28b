import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { BlobStore } from '../../shared/ports/index.js';
import type { Adapter } from './adapter.js';

/** The behaviour every BlobStore adapter must have. */
export function blobStoreContract(name: string, adapter: Adapter<BlobStore>): void {
  test(`${name}: stores bodies under their SHA-256, once`, async () => {
    const blobs = await adapter.open();
    try {
      const h = await blobs.put(Buffer.from('hello'));
      assert.equal(h, '2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824');
      assert.equal(await blobs.put(Buffer.from('hello')), h);
      assert.equal((await blobs.get(h))?.toString(), 'hello');
      assert.equal(await blobs.get('00'.repeat(32)), undefined);
    } finally {
      await adapter.close(blobs);
    }
  });
}
