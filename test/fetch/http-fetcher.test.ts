import { test, before, after } from 'node:test';
import type { ServerResponse } from 'node:http';
import assert from 'node:assert/strict';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { HttpFetcher, type LargeBodySlot } from '../../shared/fetch/http-fetcher.js';
import { RetryableFetchError } from '../../shared/errors.js';
import { decodeBody, sniffCharset } from '../../shared/fetch/charset.js';
import { serve } from '../../support/helpers.js';
import { Gate } from '../../shared/util/gate.js';

let server: Awaited<ReturnType<typeof serve>>;
let hugeBytesSent = 0;
let headBytesSent = 0;
const bomb = gzipSync(Buffer.alloc(100 * 1024 * 1024));
const page = '<html><body>' + 'hello '.repeat(100) + '</body></html>';

/** Writes 20 MB of body as fast as the client reads it (stopping when it goes away), counting what was sent. */
function pump20MB(res: ServerResponse, sent: (bytes: number) => number): void {
  const chunk = Buffer.alloc(64 * 1024, 97);
  let total = 0;
  const pump = () => {
    while (total < 20 * 1024 * 1024) {
      total = sent(chunk.length);
      if (!res.write(chunk)) return void res.once('drain', pump);
    }
    res.end();
  };
  res.on('error', () => {});
  pump();
}

before(async () => {
  server = await serve((req, res) => {
    const path = req.url ?? '/';
    if (path === '/huge') {
      res.writeHead(200, { 'content-type': 'text/html' });
      hugeBytesSent = 0;
      pump20MB(res, (n) => (hugeBytesSent += n));
    } else if (path === '/head-then-huge') {
      // The end of the head straddles two writes and is in capitals; a huge body follows.
      res.writeHead(200, { 'content-type': 'text/html' });
      res.write('<html><head><title>Fire Sprinkler Inspection</title></HE');
      res.write('AD><body>');
      headBytesSent = 0;
      setTimeout(() => pump20MB(res, (n) => (headBytesSent += n)), 20);
    } else if (path === '/bomb') {
      res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'gzip' });
      res.end(bomb);
    } else if (path === '/gzip') res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'gzip' }).end(gzipSync(page));
    else if (path === '/br') res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'br' }).end(brotliCompressSync(page));
    else if (path === '/deflate') res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'deflate' }).end(deflateSync(page));
    else if (path === '/image') res.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.alloc(1024 * 1024));
    else if (path === '/redirect') res.writeHead(301, { location: '/gzip' }).end();
    else if (path === '/etag') {
      if (req.headers['if-none-match'] === '"v1"') res.writeHead(304).end();
      else res.writeHead(200, { etag: '"v1"', 'content-type': 'text/html' }).end(page);
    } else if (path === '/stall') {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.write('<html>');
    } else if (path === '/ua') res.writeHead(200, { 'content-type': 'text/plain' }).end(String(req.headers['user-agent']));
    else res.writeHead(404).end('nope');
  });
});
after(() => server.close());

const fetcher = (overrides: Partial<ConstructorParameters<typeof HttpFetcher>[0]> = {}) =>
  new HttpFetcher({
    userAgent: 'trawl-test/1 (+https://contact.example)',
    allowPrivateNetwork: true,
    maxBodyBytes: 5 * 1024 * 1024,
    connectTimeoutMs: 1000,
    totalTimeoutMs: 3000,
    ...overrides,
  });

test('cuts a 20 MB body at the cap without reading it all', async () => {
  const f = fetcher();
  const res = await f.fetch({ url: `${server.origin}/huge`, kind: 'page' });
  await f.close();
  assert.equal(res.truncated, true);
  assert.equal(res.body!.length, 5 * 1024 * 1024);
  await new Promise((r) => setTimeout(r, 50));
  assert.ok(hugeBytesSent < 12 * 1024 * 1024, `server wrote ${hugeBytesSent} bytes`);
});

test("a large body waits for a slot of the crawl before it is read on; the wait is not the host's (no timeout, not in its duration)", async () => {
  const f = fetcher({ maxBodyBytes: 2 * 1024 * 1024, totalTimeoutMs: 400 });
  const largeBodies = { bytes: 1024 * 1024, gate: new Gate(1) };
  try {
    const firstSlot: LargeBodySlot = { ...largeBodies };
    const first = await f.fetch({ url: `${server.origin}/huge`, kind: 'page', largeBody: firstSlot });
    assert.equal(first.body!.length, 2 * 1024 * 1024);
    assert.equal(typeof firstSlot.release, 'function', 'a large body holds a slot');
    let secondDone = false;
    const secondSlot: LargeBodySlot = { ...largeBodies };
    const second = f.fetch({ url: `${server.origin}/huge`, kind: 'page', largeBody: secondSlot }).finally(() => (secondDone = true));
    const smallSlot: LargeBodySlot = { ...largeBodies };
    const small = await f.fetch({ url: `${server.origin}/gzip`, kind: 'page', largeBody: smallSlot });
    assert.equal(small.body!.toString(), page, 'a small body does not wait');
    assert.equal(smallSlot.release, undefined);
    // Longer than the request's timeout: the second body is still waiting, not failed.
    await new Promise((r) => setTimeout(r, 700));
    assert.equal(secondDone, false, 'the second large body waits while the first holds the only slot');
    firstSlot.release!();
    const res = await second;
    assert.equal(res.body!.length, 2 * 1024 * 1024);
    assert.equal(res.truncated, true);
    assert.ok(res.durationMs < 400, `the host's time leaves the wait out: ${res.durationMs} ms`);
    secondSlot.release!();
    assert.equal(largeBodies.gate.holders, 0);
  } finally {
    await f.close();
  }
});

test('a preview stops reading after </head> and leaves the body unread', async () => {
  const f = fetcher();
  const res = await f.fetch({ url: `${server.origin}/head-then-huge`, kind: 'page', stopAfter: '</head>' });
  await f.close();
  assert.equal(res.truncated, true);
  assert.match(res.body!.toString(), /<title>Fire Sprinkler Inspection<\/title><\/HEAD>/);
  assert.ok(res.body!.length < 1024 * 1024, `read ${res.body!.length} bytes`);
  await new Promise((r) => setTimeout(r, 50));
  assert.ok(headBytesSent < 12 * 1024 * 1024, `server wrote ${headBytesSent} bytes`);
});

test('caps decompressed output, so a gzip bomb cannot exhaust memory', async () => {
  const f = fetcher();
  const before = process.memoryUsage().rss;
  const res = await f.fetch({ url: `${server.origin}/bomb`, kind: 'page' });
  await f.close();
  assert.equal(res.truncated, true);
  assert.equal(res.body!.length, 5 * 1024 * 1024);
  assert.ok(process.memoryUsage().rss - before < 80 * 1024 * 1024);
});

test('decodes gzip, br and deflate', async () => {
  const f = fetcher();
  for (const enc of ['gzip', 'br', 'deflate']) {
    const res = await f.fetch({ url: `${server.origin}/${enc}`, kind: 'page' });
    assert.equal(res.body!.toString(), page, enc);
  }
  await f.close();
});

test('a type off the allow-list is skipped, its bytes kept for the archive up to the body cap', async () => {
  const f = fetcher();
  const res = await f.fetch({ url: `${server.origin}/image`, kind: 'page' });
  await f.close();
  assert.equal(res.skipped, 'content-type');
  assert.equal(res.contentClass, null);
  assert.equal(res.body!.length, 1024 * 1024);
  assert.equal(res.truncated, false);
  assert.equal(res.mime, 'image/png');
  const capped = fetcher({ maxBodyBytes: 4096 });
  const cut = await capped.fetch({ url: `${server.origin}/image`, kind: 'page' });
  await capped.close();
  assert.equal(cut.body!.length, 4096);
  assert.equal(cut.truncated, true, 'a cut body says so, as WARC-Truncated will');
});

test("an error's page is kept as served", async () => {
  const f = fetcher();
  const res = await f.fetch({ url: `${server.origin}/no-such-page`, kind: 'page' });
  await f.close();
  assert.equal(res.status, 404);
  assert.equal(res.body!.toString(), 'nope');
  assert.equal(res.contentClass, null);
  assert.equal(res.skipped, undefined);
});

test('leaves redirects to the crawler', async () => {
  const f = fetcher();
  const res = await f.fetch({ url: `${server.origin}/redirect`, kind: 'page' });
  await f.close();
  assert.equal(res.status, 301);
  assert.equal(res.location, `${server.origin}/gzip`);
});

test('sends conditional headers and reports 304', async () => {
  const f = fetcher();
  const first = await f.fetch({ url: `${server.origin}/etag`, kind: 'page' });
  const second = await f.fetch({ url: `${server.origin}/etag`, kind: 'page', etag: first.headers.etag });
  await f.close();
  assert.equal(first.status, 200);
  assert.equal(second.status, 304);
});

test('times out a stalled body as a retryable error', async () => {
  const f = fetcher({ totalTimeoutMs: 300 });
  await assert.rejects(f.fetch({ url: `${server.origin}/stall`, kind: 'page' }), RetryableFetchError);
  await f.close();
});

test('connection refused is retryable', async () => {
  const f = fetcher({ connectTimeoutMs: 300, totalTimeoutMs: 500 });
  await assert.rejects(f.fetch({ url: 'http://127.0.0.1:1/', kind: 'page' }), RetryableFetchError);
  await f.close();
});

test('sends the configured User-Agent', async () => {
  const f = fetcher();
  const res = await f.fetch({ url: `${server.origin}/ua`, kind: 'page' });
  await f.close();
  assert.equal(res.body!.toString(), 'trawl-test/1 (+https://contact.example)');
});

test('finds the charset from the header, a BOM or <meta>', () => {
  const latin = Buffer.from('<p>Caf\u00e9</p>', 'latin1');
  assert.equal(sniffCharset(latin, 'iso-8859-1', true), 'windows-1252');
  assert.equal(decodeBody(latin, 'windows-1252'), '<p>Caf\u00e9</p>');
  assert.equal(sniffCharset(Buffer.from([0xef, 0xbb, 0xbf, 0x41]), 'iso-8859-1', true), 'utf-8');
  const sjis = Buffer.from('<meta charset="shift_jis"><p>\x93\xfa\x96\x7b</p>', 'latin1');
  assert.equal(sniffCharset(sjis, undefined, true), 'shift_jis');
  assert.match(decodeBody(sjis, 'shift_jis'), /日本/);
  assert.equal(decodeBody(Buffer.from('caf\xe9 cr\xe8me', 'latin1'), 'utf-8'), 'café crème');
  assert.equal(decodeBody(Buffer.from([0x93, 0x96, 0x80, 0x94]), 'windows-1252'), '\u201c\u2013\u20ac\u201d', 'windows-1252, not Latin-1, for 0x80–0x9F');
});
