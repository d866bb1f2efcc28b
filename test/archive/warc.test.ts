import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import base32Encode from 'base32-encode';
import { WarcWriter } from '../../shared/archive/warc-writer.js';
import { archiveAnswer, type ArchiveAnswerContext, type Fetched } from '../../shared/pipeline/stages/fetch-stage.js';
import type { ArchivedAnswer, FrontierRow, WarcLocation } from '../../shared/ports/records.js';
import { readResponse, readWarc } from '../../shared/archive/warc-reader.js';
import { tempDir } from '../../support/helpers.js';

const exchange = (n: number, body = `<html><body>page ${n}</body></html>`) => ({
  url: `https://a.test/p${n}?q=1`,
  runId: 7,
  kind: 'page',
  fetcher: 'http' as const,
  date: new Date('2026-11-23T10:00:00Z'),
  durationMs: 12,
  requestHeaders: { 'user-agent': 'trawl-test', accept: 'text/html' },
  response: { status: 200, headers: { 'content-type': 'text/html', 'content-encoding': 'gzip', etag: '"e1"' }, body: Buffer.from(body), truncated: false },
});

test('writes request, response and metadata records that a WARC reader reads back', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const writer = new WarcWriter(dir);
    const loc = await writer.write(exchange(1));
    await writer.write({ ...exchange(2), response: undefined, error: 'ECONNRESET: socket hang up' });
    await writer.write({ ...exchange(3), response: { ...exchange(3).response, status: 200, truncated: true } });
    writer.close();
    const files = readdirSync(dir);
    assert.equal(files.length, 1);
    assert.match(files[0]!, /^trawl-7-20261123T100000Z-00000\.warc\.gz$/);
    const records = [];
    for await (const r of readWarc(join(dir, files[0]!))) records.push(r);
    assert.deepEqual(
      records.map((r) => r.type),
      ['warcinfo', 'request', 'response', 'metadata', 'request', 'metadata', 'request', 'response', 'metadata'],
    );
    const [, request, response, metadata] = records;
    assert.equal(request!.url, 'https://a.test/p1?q=1');
    assert.equal(request!.http?.headers['user-agent'], 'trawl-test');
    assert.equal(response!.http?.status, 200);
    assert.equal(response!.payload.toString(), '<html><body>page 1</body></html>');
    assert.equal(response!.http?.headers['content-encoding'], undefined, 'the payload is stored decoded');
    assert.equal(response!.http?.headers['x-trawl-original-content-encoding'], 'gzip');
    assert.equal(response!.headers.get('warc-concurrent-to'), undefined);
    assert.equal(request!.headers.get('warc-concurrent-to'), response!.headers.get('warc-record-id'));
    assert.match(response!.headers.get('warc-payload-digest') ?? '', /^sha1:[A-Z2-7]{32}$/);
    assert.match(metadata!.payload.toString(), /run-id: 7\r\nkind: page\r\nfetcher: http\r\nduration-ms: 12/);
    assert.match(records[5]!.payload.toString(), /error: ECONNRESET: socket hang up/);
    assert.equal(records[7]!.headers.get('warc-truncated'), 'length');
    const back = await readResponse(dir, loc);
    assert.deepEqual(
      [back.status, back.body.toString(), back.headers.etag, back.url],
      [200, '<html><body>page 1</body></html>', '"e1"', 'https://a.test/p1?q=1'],
    );
  } finally {
    cleanup();
  }
});

test('a header value with a line break stays on its line: it cannot end the header block or add a header', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const writer = new WarcWriter(dir);
    const plain = exchange(1);
    const sneaky = {
      ...plain,
      requestHeaders: { ...plain.requestHeaders, 'x-note': 'a\r\n\r\nGET /other HTTP/1.1' },
      response: { ...plain.response, headers: { ...plain.response.headers, 'x-note': 'b\r\nWARC-Type: resource' } },
    };
    await writer.write(sneaky);
    writer.close();
    const records = [];
    for await (const r of readWarc(join(dir, readdirSync(dir)[0]!))) records.push(r);
    assert.deepEqual(
      records.map((r) => r.type),
      ['warcinfo', 'request', 'response', 'metadata'],
    );
    assert.equal(records[1]!.http?.headers['x-note'], 'a GET /other HTTP/1.1');
    assert.equal(records[2]!.http?.headers['x-note'], 'b WARC-Type: resource');
    assert.equal(records[2]!.payload.toString(), '<html><body>page 1</body></html>');
  } finally {
    cleanup();
  }
});

test('rotates files by size', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const writer = new WarcWriter(dir, { maxFileBytes: 2000 });
    for (let i = 0; i < 12; i++) await writer.write(exchange(i, `${'x'.repeat(500)} ${i} ${Math.random()}`));
    writer.close();
    const files = readdirSync(dir).sort();
    assert.ok(files.length >= 3, files.join());
    assert.ok(files.slice(0, -1).every((f) => statSync(join(dir, f)).size >= 2000 && statSync(join(dir, f)).size < 4000));
    let responses = 0;
    for (const f of files) for await (const r of readWarc(join(dir, f))) if (r.type === 'response') responses++;
    assert.equal(responses, 12);
  } finally {
    cleanup();
  }
});

test('writes block and payload digests that match the stored bytes: SHA-1 by default, SHA-256 when asked', async () => {
  const { createHash } = await import('node:crypto');
  for (const digest of [undefined, 'sha256'] as const) {
    const { dir, cleanup } = tempDir();
    try {
      const writer = new WarcWriter(dir, digest ? { digest } : {});
      await writer.write(exchange(9, 'digest me'));
      writer.close();
      const algorithm = digest ?? 'sha1';
      for await (const r of readWarc(join(dir, readdirSync(dir)[0]!))) {
        if (r.type !== 'response') continue;
        // Base32 (RFC 4648), as warcio and pywb write and check digests: 32 characters for SHA-1; 52 and four of padding for SHA-256.
        assert.equal(r.headers.get('warc-payload-digest'), `${algorithm}:${base32Encode(createHash(algorithm).update('digest me').digest(), 'RFC4648')}`);
        assert.match(r.headers.get('warc-block-digest') ?? '', algorithm === 'sha1' ? /^sha1:[A-Z2-7]{32}$/ : /^sha256:[A-Z2-7]{52}====$/);
        assert.notEqual(r.headers.get('warc-block-digest'), r.headers.get('warc-payload-digest'), 'the block includes the HTTP headers');
      }
    } finally {
      cleanup();
    }
  }
});

test('a record past the thread-pool threshold (a capped page) reads back whole, digests matching, beside small ones', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const writer = new WarcWriter(dir);
    const big = Array.from({ length: 40_000 }, (_, i) => `<p>paragraph ${i} ${(i * 7919) % 10007}</p>`).join('\n');
    assert.ok(Buffer.byteLength(big) > 1024 * 1024);
    const locs = await Promise.all([writer.write(exchange(1)), writer.write(exchange(2, big)), writer.write(exchange(3))]);
    writer.close();
    const { createHash } = await import('node:crypto');
    const bodies: string[] = [];
    for await (const r of readWarc(join(dir, readdirSync(dir)[0]!))) {
      if (r.type !== 'response') continue;
      bodies.push(r.payload.toString());
      assert.equal(r.headers.get('warc-payload-digest'), `sha1:${base32Encode(createHash('sha1').update(r.payload).digest(), 'RFC4648')}`);
    }
    // Written as each is compressed: the small ones may come first.
    assert.deepEqual(bodies.sort(), [exchange(1).response.body.toString(), exchange(3).response.body.toString(), big].sort());
    assert.equal((await readResponse(dir, locs[1]!)).body.toString(), big);
  } finally {
    cleanup();
  }
});

test('a final answer is journaled before a byte of its record is written: no kill leaves an archived answer unjournaled', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const writer = new WarcWriter(dir);
    await writer.write(exchange(1)); // a file with records before this one
    const journaled: Array<{ urlId: string; size: number; warc: WarcLocation }> = [];
    const ctx = {
      archive: writer,
      fetcher: { requestHeaders: () => ({ 'user-agent': 'trawl-test' }) },
      store: {
        answered: (_run: number, urlId: string, answer: ArchivedAnswer) =>
          journaled.push({ urlId, warc: answer.warc, size: statSync(join(dir, answer.warc.file)).size }),
      },
    } as unknown as ArchiveAnswerContext;
    const res = {
      url: 'https://a.test/p2',
      status: 200,
      headers: { 'content-type': 'text/html' },
      body: Buffer.from('<p>two</p>'),
      truncated: false,
      mime: 'text/html',
      contentClass: 'html',
      wireBytes: 10,
      durationMs: 3,
    };
    const row = { runId: 7, urlId: 'u2', url: 'https://a.test/p2' } as FrontierRow;
    const fetched = {
      request: { url: 'https://a.test/p2', kind: 'page' },
      kind: 'response',
      res,
      at: Date.parse('2026-11-23T10:00:01Z'),
    } as unknown as Fetched;
    const warc = await archiveAnswer(ctx, row, fetched, true);
    assert.equal(journaled.length, 1);
    // When the journal line was written, the file ended before the request record of this exchange.
    assert.ok(
      journaled[0]!.size <= journaled[0]!.warc.offset,
      `the file held ${journaled[0]!.size} bytes; the response starts at ${journaled[0]!.warc.offset}`,
    );
    assert.deepEqual(journaled[0]!.warc, warc);
    assert.equal((await readResponse(dir, warc!)).body?.toString(), '<p>two</p>', 'and the location journaled is where the record is');
    // Not final (a retry follows): nothing journaled.
    await archiveAnswer(ctx, { ...row, urlId: 'u3' }, fetched, false);
    assert.equal(journaled.length, 1);
    writer.close();
  } finally {
    cleanup();
  }
});
