import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ObjectStore } from '../../shared/store/ports/index.js';
import { using, type Adapter } from './adapter.js';

/** The behaviour every ObjectStore adapter must have: the archive key layout, JSON in, bytes out. */
export function objectStoreContract(name: string, adapter: Adapter<ObjectStore>): void {
  test(`${name}: stores WARC files, extracted content and reports under the archive layout`, () =>
    using(adapter, async (objects) => {
      const warc = await objects.putWarc(3, 'trawl-3-x.warc.gz', Buffer.from([0x1f, 0x8b, 1, 2]));
      assert.equal(warc, 'warc/run-3/trawl-3-x.warc.gz');
      assert.deepEqual([...(await objects.get(warc))!], [0x1f, 0x8b, 1, 2]);
      const extracted = await objects.putExtracted('abc', 'h1', { markdown: '# Hi' });
      assert.equal(extracted, 'extracted/abc/h1.json');
      assert.deepEqual(JSON.parse((await objects.get(extracted))!.toString()), { markdown: '# Hi' });
      const report = await objects.putReport('run-3', { pages: 7 });
      assert.equal(report, 'reports/run-3.json');
      assert.deepEqual(JSON.parse((await objects.get(report))!.toString()), { pages: 7 });
      const markdown = await objects.putMarkdownReport('run-3', '# Run 3\n');
      assert.equal(markdown, 'reports/run-3.md');
      assert.equal((await objects.get(markdown))!.toString(), '# Run 3\n');
      assert.equal(await objects.get('reports/none.json'), undefined);
    }));

  test(`${name}: reads a byte range of an object (one record of a WARC file), and nothing for a missing one`, () =>
    using(adapter, async (objects) => {
      const bytes = Buffer.from(Array.from({ length: 300 }, (_, i) => i % 256));
      const key = await objects.putWarc(4, 'trawl-4-y.warc.gz', bytes);
      assert.deepEqual(await objects.getRange(key, 100, 50), bytes.subarray(100, 150));
      // From the start (not one byte: s3rver answers `bytes=0-0` with the whole object, and a response record never starts a WARC file).
      assert.deepEqual(await objects.getRange(key, 0, 10), bytes.subarray(0, 10));
      assert.deepEqual(await objects.getRange(key, 250, 50), bytes.subarray(250, 300));
      assert.equal(await objects.getRange('warc/run-4/none.warc.gz', 0, 10), undefined);
    }));
}
