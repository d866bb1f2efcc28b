// A run's end compacts its small WARC objects: every record stays readable where its fetch said
// it was (a page workflow still running reads it from the compacted object), the compacted
// objects are whole WARC files standard readers walk, their CDXJ beside them points at each
// record, and a step done twice changes nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { readFileSync, writeFileSync } from 'node:fs';
import { WarcWriter } from '../../shared/archive/warc-writer.js';
import { readWarc } from '../../shared/archive/warc-reader.js';
import type { WarcLocation } from '../../shared/ports/records.js';
import { FileObjects } from '../../shared/store/local/file-objects.js';
import { FileBlobStore } from '../../shared/store/local/blob-store.js';
import { contentHashOf } from '../../shared/ports/content-hash.js';
import { taskBody } from '../../shared/pipeline/cloud/task-body.js';
import { planWaczParts, writeRunWacz, writeWaczPart } from '../../shared/pipeline/cloud/run-wacz.js';
import type { PageTask } from '../../shared/pipeline/cloud/fetch-worker.js';
import type { ArchivedPage, FrontierRow, RunRecord } from '../../shared/ports/index.js';
import { readZip, waczProblems } from '../archive/wacz-validate.js';
import { tempDir } from '../../support/helpers.js';

const HOUR = 3_600_000;
const T0 = Date.UTC(2026, 10, 1);

/** `files` WARC objects of run `runId`, written an hour apart by workers of their own (as the fetch workers do), two records each. */
async function uploaded(objects: FileObjects, dir: string, runId: number, files: number) {
  const written: Array<{ url: string; body: string; at: WarcLocation }> = [];
  for (let f = 0; f < files; f++) {
    const writer = new WarcWriter(join(dir, `w${runId}-${f}`), { fileTag: `worker${f}`, identicalPayloadRevisits: false });
    for (let r = 0; r < 2; r++) {
      const url = `http://a.test/${runId}/${f}/${r}`;
      const body = `<p>page ${f}.${r} of run ${runId}</p>`.repeat(1 + f * 7 + r);
      const at = await writer.write({
        url,
        runId,
        kind: 'page',
        fetcher: 'http',
        date: new Date(T0 + f * HOUR + r * 1000),
        durationMs: 1,
        requestHeaders: {},
        response: { status: 200, headers: { 'content-type': 'text/html' }, body: Buffer.from(body), truncated: false },
      });
      written.push({ url, body, at });
    }
    writer.close();
    for (const file of writer.files) await objects.putWarc(runId, file.split('/').at(-1)!, readFileSync(file));
  }
  return written;
}

const task = (runId: number, w: { body: string; at: WarcLocation }): PageTask => ({
  runId,
  row: { runId, urlId: 'u', url: 'http://a.test/', host: 'a.test' } as FrontierRow,
  response: { status: 200 } as PageTask['response'],
  contentHash: contentHashOf(Buffer.from(w.body)),
  at: 0,
  warc: w.at,
});

const run = (id: number): RunRecord => ({ id, startedAt: T0, status: 'finished', seeds: ['http://a.test/'], config: {} });
const noPages = { archivedPagesOf: async function* (): AsyncGenerator<ArchivedPage> {}, archivedPages: async function* (): AsyncGenerator<ArchivedPage> {} };

/** Every record of an object, read as a WARC file from disk. */
async function recordsOf(objects: FileObjects, key: string, dir: string) {
  const file = join(dir, key.split('/').at(-1)!);
  writeFileSync(file, (await objects.get(key))!);
  const out = [];
  for await (const r of readWarc(file)) out.push(r);
  return out;
}

test('a run’s end compacts its WARC objects a part at a time; each record is found where its fetch said, and in the CDXJ beside its part', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const objects = new FileObjects(join(dir, 'bucket'));
    const blobs = new FileBlobStore(join(dir, 'blobs'));
    const written = await uploaded(objects, dir, 3, 9);
    const before = await objects.list('warc/run-3/');
    assert.equal(before.length, 9);

    // Listed in windows of the run's time at once; parts of at most 4 objects, in key order, each object in one part.
    const parts = await planWaczParts(objects, 3, 4, 1024 ** 3, { from: T0, to: T0 + 9 * HOUR });
    assert.ok(parts >= 3, `${parts} parts`);
    for (let part = 0; part < parts; part++) await writeWaczPart({ objects, pages: noPages }, run(3), 'c', part);
    const after = await objects.list('warc/run-3/');
    const compacted = after.filter((o) => o.key.endsWith('.warc.gz'));
    assert.equal(compacted.length, parts, JSON.stringify(after));
    assert.ok(
      compacted.every((o) => /\/trawl-3-part-[0-9a-f]{16}\.warc\.gz$/.test(o.key)),
      'only compacted objects are left',
    );
    assert.equal(
      compacted.reduce((n, o) => n + o.size, 0),
      before.reduce((n, o) => n + o.size, 0),
      'the same bytes',
    );
    assert.deepEqual(
      after.filter((o) => o.key.endsWith('.cdxj')).map((o) => o.key),
      compacted.map((o) => o.key.replace(/\.warc\.gz$/, '.cdxj')),
    );

    // A standard reader walks each compacted object; every response is in exactly one, once.
    const seen: string[] = [];
    for (const o of compacted) for (const r of await recordsOf(objects, o.key, dir)) if (r.type === 'response') seen.push(r.url!);
    assert.deepEqual(seen.sort(), written.map((w) => w.url).sort());

    // The CDXJ beside a part names it and points at each of its records.
    for (const o of compacted) {
      const name = o.key.split('/').at(-1)!;
      const lines = (await objects.get(o.key.replace(/\.warc\.gz$/, '.cdxj')))!.toString().trim().split('\n');
      assert.ok(lines.length > 0);
      for (const line of lines) {
        const fields = JSON.parse(line.slice(line.indexOf('{'))) as { url: string; filename: string; offset: string; length: string };
        assert.equal(fields.filename, name);
        const record = (await objects.getRange(o.key, Number(fields.offset), Number(fields.length)))!;
        const file = join(dir, 'one.warc.gz');
        writeFileSync(file, record);
        const urls: Array<string | undefined> = [];
        for await (const r of readWarc(file)) urls.push(r.url);
        assert.equal(urls[0], fields.url, line);
      }
    }

    // Where its fetch said: the small object is gone, and the record is read from its part.
    for (const w of written) assert.equal((await taskBody({ objects, blobs }, task(3, w))).toString(), w.body);

    // A part written again (a retried child) changes nothing.
    const again = await writeWaczPart({ objects, pages: noPages }, run(3), 'c', 0);
    assert.equal(again.name, 'part-00000.wacz');
    assert.deepEqual(await objects.list('warc/run-3/'), after);
  } finally {
    cleanup();
  }
});

test('a small run’s end compacts it into one WARC object its WACZ holds, and ending it again keeps that object', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const objects = new FileObjects(join(dir, 'bucket'));
    const blobs = new FileBlobStore(join(dir, 'blobs'));
    const written = await uploaded(objects, dir, 5, 4);
    const first = await writeRunWacz({ objects, pages: noPages }, run(5), 'c');
    assert.ok(first);
    const after = await objects.list('warc/run-5/');
    assert.deepEqual(
      after.map((o) => o.key.replace(/[0-9a-f]{16}/, 'X')),
      ['warc/run-5/trawl-5-part-X.cdxj', 'warc/run-5/trawl-5-part-X.warc.gz'],
    );
    const wacz = join(dir, 'run-5.wacz');
    writeFileSync(wacz, (await objects.get(first.key))!);
    const found = waczProblems(await readZip(wacz));
    assert.deepEqual(found.problems, []);
    assert.equal(found.cdx.filter((l) => String(l.status) === '200').length, written.length);
    assert.ok(found.cdx.every((l) => l.filename === after[1]!.key.split('/').at(-1)));
    for (const w of written) assert.equal((await taskBody({ objects, blobs }, task(5, w))).toString(), w.body);

    // FinalizeRun done twice: the compacted object is the run's only WARC object and stays as it is.
    const second = await writeRunWacz({ objects, pages: noPages }, run(5), 'c');
    assert.equal(second?.records, first.records);
    assert.deepEqual(await objects.list('warc/run-5/'), after);
  } finally {
    cleanup();
  }
});
