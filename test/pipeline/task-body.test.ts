import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { WarcWriter } from '../../shared/archive/warc-writer.js';
import { FileObjects } from '../../shared/store/local/file-objects.js';
import { FileBlobStore } from '../../shared/store/local/blob-store.js';
import { contentHashOf } from '../../shared/ports/content-hash.js';
import { taskBody } from '../../shared/pipeline/cloud/task-body.js';
import type { PageTask } from '../../shared/pipeline/cloud/fetch-worker.js';
import type { FrontierRow } from '../../shared/ports/index.js';
import { tempDir } from '../../support/helpers.js';

const row = { runId: 3, urlId: 'u1', url: 'http://a.test/page', host: 'a.test' } as FrontierRow;

async function archived(bodies: string[]) {
  const { dir, cleanup } = tempDir();
  const writer = new WarcWriter(join(dir, 'out'));
  const locations = [];
  for (const [i, body] of bodies.entries())
    locations.push(
      await writer.write({
        url: `http://a.test/${i}`,
        runId: 3,
        kind: 'page',
        fetcher: 'http',
        date: new Date(0),
        durationMs: 1,
        requestHeaders: {},
        response: { status: 200, headers: { 'content-type': 'text/html', 'content-encoding': 'gzip' }, body: Buffer.from(body), truncated: false },
      }),
    );
  writer.close();
  // The worker's upload: the file under warc/run-3/ in the object store.
  const objects = new FileObjects(join(dir, 'bucket'));
  for (const file of writer.files) await objects.putWarc(3, file.split('/').at(-1)!, readFileSync(file));
  return { objects, blobs: new FileBlobStore(join(dir, 'blobs')), locations, cleanup };
}

test('a page task reads its body back from its own WARC record, decoded, with nothing in the blob store', async () => {
  const bodies = ['<p>first page</p>', '<p>second page, longer</p>'.repeat(50)];
  const { objects, blobs, locations, cleanup } = await archived(bodies);
  try {
    for (const [i, body] of bodies.entries()) {
      const task: PageTask = {
        runId: 3,
        row,
        response: { status: 200 } as PageTask['response'],
        contentHash: contentHashOf(Buffer.from(body)),
        at: 0,
        warc: locations[i],
      };
      assert.equal((await taskBody({ objects, blobs }, task)).toString(), body);
    }
  } finally {
    cleanup();
  }
});

test('a record that is not the fetched body, or a missing file, fails with where it looked', async () => {
  const { objects, blobs, locations, cleanup } = await archived(['<p>one</p>', '<p>two</p>']);
  try {
    const wrong: PageTask = {
      runId: 3,
      row,
      response: { status: 200 } as PageTask['response'],
      contentHash: contentHashOf(Buffer.from('<p>one</p>')),
      at: 0,
      warc: locations[1],
    };
    await assert.rejects(taskBody({ objects, blobs }, wrong), /the body of http:\/\/a\.test\/page read from warc\/run-3\/.* at \d+ is not the one fetched/);
    const gone = { ...wrong, runId: 4 };
    await assert.rejects(
      taskBody({ objects, blobs }, gone),
      /the body of http:\/\/a\.test\/page is missing from S3 \(warc\/run-4\/.*\): the fetch must be redone/,
    );
  } finally {
    cleanup();
  }
});
