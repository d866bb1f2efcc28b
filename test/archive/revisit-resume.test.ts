// A crawl killed between archiving an answer and committing it processes the answer from the
// archive on resume. An unchanged 200 is archived as a revisit (no payload): read back, it gets its
// body from the blob store by the stored page's hash, with the 200's own status and headers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { WarcWriter } from '../../shared/archive/warc-writer.js';
import { FileBlobStore } from '../../shared/store/local/blob-store.js';
import { archivedStage } from '../../shared/pipeline/stages/fetch-stage.js';
import { contentHashOf } from '../../shared/ports/content-hash.js';
import { page, row } from '../store-records.js';
import { tempDir } from '../../support/helpers.js';

test('an unchanged 200 is a revisit, and a resume reads its body back from the blob store', async () => {
  const dir = tempDir();
  try {
    const body = Buffer.from('<!doctype html><title>Ferry</title><p>The ferry leaves at nine.</p>');
    const blobs = new FileBlobStore(join(dir.dir, 'blobs'));
    const hash = await blobs.put(body);
    assert.equal(hash, contentHashOf(body));
    const archive = new WarcWriter(join(dir.dir, 'warc'));
    const at = Date.UTC(2026, 10, 1);
    const previous = page({ runId: 1, urlId: 'u1', contentHash: hash, fetchedAt: at });
    const exchange = (status: number, bytes: Buffer) =>
      archive.write({
        url: previous.url,
        runId: 2,
        kind: 'page',
        fetcher: 'http',
        date: new Date(at + 86_400_000),
        durationMs: 3,
        requestHeaders: {},
        response: { status, headers: { 'content-type': 'text/html; charset=utf-8' }, body: bytes, truncated: false },
        revisitOf: { url: previous.url, date: new Date(at), contentHash: hash },
      });
    const same = await exchange(200, body);
    const changed = await exchange(200, Buffer.from('<p>The ferry leaves at ten.</p>'));
    archive.close();

    const read = await archive.read(same);
    assert.equal(read.body.length, 0, 'the revisit holds no payload');
    assert.equal(read.status, 200);
    assert.deepEqual(read.refersTo?.url, previous.url);
    assert.equal((await archive.read(changed)).refersTo, undefined, 'a changed body is a whole response');

    const ctx = { archive, blobs, store: { getPage: async () => previous } };
    const fetched = await archivedStage(ctx, row(2, 'u1', 'queued', undefined, { url: previous.url }), { warc: same, at, durationMs: 3, wireBytes: 0 });
    assert.equal(fetched.kind, 'response');
    assert.equal(fetched.kind === 'response' && String(fetched.res.body), String(body));
    assert.equal(fetched.kind === 'response' && fetched.res.headers['content-type'], 'text/html; charset=utf-8');

    // Without the body in the blob store, the resume says so instead of processing an empty page.
    const empty = { archive, blobs: { get: async () => undefined, put: async () => '' }, store: { getPage: async () => previous } };
    await assert.rejects(
      archivedStage(empty, row(2, 'u1', 'queued', undefined, { url: previous.url }), { warc: same, at, durationMs: 3, wireBytes: 0 }),
      /refers to a body/,
    );
  } finally {
    dir.cleanup();
  }
});
