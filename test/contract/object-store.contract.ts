import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import type { ObjectStore } from '../../shared/ports/index.js';
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

  test(`${name}: lists a run's WARC files with their sizes, streams one, and stores a stream of unknown length`, () =>
    using(adapter, async (objects) => {
      await objects.putWarc(5, 'b.warc.gz', Buffer.alloc(7, 1));
      await objects.putWarc(5, 'a.warc.gz', Buffer.alloc(3, 2));
      await objects.putWarc(51, 'c.warc.gz', Buffer.alloc(1));
      assert.deepEqual(await objects.list('warc/run-5/'), [
        { key: 'warc/run-5/a.warc.gz', size: 3 },
        { key: 'warc/run-5/b.warc.gz', size: 7 },
      ]);
      assert.deepEqual(await objects.list('warc/run-6/'), []);
      const scanned = [];
      for await (const page of objects.scan('warc/run-5/', 'warc/run-5/a.warc.gz')) scanned.push(...page);
      assert.deepEqual(scanned, [{ key: 'warc/run-5/b.warc.gz', size: 7 }]);
      const read: Buffer[] = [];
      for await (const chunk of objects.stream('warc/run-5/b.warc.gz') as AsyncIterable<Buffer>) read.push(chunk);
      assert.deepEqual(Buffer.concat(read), Buffer.alloc(7, 1));
      // Larger than an S3 adapter's part under test: a multipart upload, in order.
      const big = Buffer.from(Array.from({ length: 300_000 }, (_, i) => (i * 7) % 251));
      await objects.putStream(
        'wacz/run-5.wacz',
        Readable.from([big.subarray(0, 100_000), big.subarray(100_000, 250_000), big.subarray(250_000)]),
        'application/wacz',
      );
      assert.deepEqual(await objects.get('wacz/run-5.wacz'), big);
      await objects.putStream('wacz/run-7.wacz', Readable.from([Buffer.from('small')]), 'application/wacz');
      assert.equal((await objects.get('wacz/run-7.wacz'))?.toString(), 'small');
      // A body that fails stores nothing.
      const failing = Readable.from(
        (async function* () {
          yield big;
          throw new Error('the writer failed');
        })(),
      );
      await assert.rejects(objects.putStream('wacz/run-8.wacz', failing, 'application/wacz'), /the writer failed/);
      assert.equal(await objects.get('wacz/run-8.wacz'), undefined);
    }));

  test(`${name}: deletes objects by key, a key already gone being no error`, () =>
    using(adapter, async (objects) => {
      await objects.putWarc(9, 'a.warc.gz', Buffer.alloc(3, 1));
      await objects.putWarc(9, 'b.warc.gz', Buffer.alloc(4, 2));
      await objects.deleteMany(['warc/run-9/a.warc.gz', 'warc/run-9/gone.warc.gz']);
      assert.deepEqual(await objects.list('warc/run-9/'), [{ key: 'warc/run-9/b.warc.gz', size: 4 }]);
      await objects.deleteMany([]);
      assert.deepEqual(await objects.list('warc/run-9/'), [{ key: 'warc/run-9/b.warc.gz', size: 4 }]);
    }));

  test(`${name}: an object overwritten while it is read is read whole, the old bytes or the new, and a write is read at once`, () =>
    using(adapter, async (objects) => {
      // Sizes that vary, so a read of a mix of two writes, or of a write not yet on disk, cannot parse.
      const body = (i: number) => JSON.stringify({ i, pad: 'x'.repeat(((i + 1) * 977) % 40_000) });
      await objects.putMarkdownReport('overwritten', body(-1));
      let writing = true;
      const seen: number[] = [];
      const writer = (async () => {
        for (let i = 0; i < 150; i++) {
          await objects.putMarkdownReport('overwritten', body(i));
          assert.equal((await objects.get('reports/overwritten.md'))!.toString(), body(i), `write ${i} read back at once`);
        }
        writing = false;
      })();
      const readers = Array.from({ length: 3 }, async () => {
        while (writing) {
          const text = (await objects.get('reports/overwritten.md'))!.toString();
          const { i } = JSON.parse(text) as { i: number };
          assert.equal(text, body(i), `a read of write ${i} is that write whole`);
          seen.push(i);
        }
      });
      await Promise.all([writer, ...readers]);
      assert.ok(seen.length > 0);
    }));
}
