// An export during a crawl is a WACZ of what was there: each WARC file read as it stood, up to its
// last whole record, and the pages of the fetches stored by then. A file that grows or holds half
// a record at its end no longer breaks the zip (yazl's size check) or the archive.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, createWriteStream, readFileSync, writeFileSync, existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { warcFileSource, writeWacz } from '../../shared/archive/wacz.js';
import { gzipMemberEnd, wholeRecordsLength } from '../../shared/archive/warc-snapshot.js';
import { openStore } from '../../shared/library/store.js';
import { serve, tempDir } from '../../support/helpers.js';
import { startCli } from '../e2e/cli-process.js';
import { readZip, waczProblems } from './wacz-validate.js';

const record = (n: number) =>
  gzipSync(
    `WARC/1.1\r\nWARC-Type: resource\r\nWARC-Record-ID: <urn:uuid:00000000-0000-4000-8000-${String(n).padStart(12, '0')}>\r\nWARC-Target-URI: urn:test:${n}\r\nWARC-Date: 2026-01-01T00:00:00Z\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n\r\nhello\r\n\r\n`,
  );

test('a WARC file is read up to its last whole gzip member, and a source that grows is read at its snapshot size', async () => {
  const dir = tempDir();
  try {
    const path = join(dir.dir, 'a.warc.gz');
    const [a, b, c] = [record(1), record(2), record(3)];
    writeFileSync(path, Buffer.concat([a, b]));
    assert.equal(gzipMemberEnd(Buffer.concat([a, b]), a.length), a.length + b.length);
    appendFileSync(path, c.subarray(0, c.length - 5));
    assert.equal(wholeRecordsLength(path, 0), a.length + b.length, 'half a record at the end is left out');
    assert.equal(wholeRecordsLength(path, a.length), a.length + b.length, 'walked from a record known to be whole');

    const source = warcFileSource(path, wholeRecordsLength(path, a.length));
    appendFileSync(path, c.subarray(c.length - 5));
    appendFileSync(path, record(4));
    const file = join(dir.dir, 'snap.wacz');
    const out = createWriteStream(file);
    await writeWacz({ warcFiles: [source], pages: [], title: 't', software: 'test' }, out);
    const entries = await readZip(file);
    assert.deepEqual(waczProblems(entries).problems, []);
    assert.equal(entries.get('archive/a.warc.gz')!.data.length, a.length + b.length);
  } finally {
    dir.cleanup();
  }
});

test('trawl export --format wacz during a crawl in another process gives whole WACZs of what was stored', { timeout: 180_000 }, async () => {
  const PAGES = 80;
  const site = await serve((req, res) => {
    const n = Number(/\/p(\d+)$/.exec(req.url ?? '')?.[1] ?? 0);
    setTimeout(() => {
      res.writeHead(200, { 'content-type': 'text/html' });
      const next = n < PAGES ? `<a href="/p${n + 1}">next</a>` : '';
      res.end(`<html><head><title>Page ${n}</title></head><body><main><p>${'Words of the page. '.repeat(200)}</p>${next}</main></body></html>`);
    }, 20);
  });
  const data = tempDir();
  const { child: crawler, done } = startCli([
    'crawl',
    `${site.origin}/`,
    '--data',
    data.dir,
    '--allow-private-network',
    '--delay-ms',
    '0',
    '--max-pages',
    String(PAGES + 1),
    '--max-depth',
    '200',
  ]);
  try {
    const warcDir = join(data.dir, 'warc');
    const stored = () => (existsSync(warcDir) ? readdirSync(warcDir).length : 0);
    for (let i = 0; i < 600 && stored() === 0; i++) await new Promise((r) => setTimeout(r, 50));
    let during = 0;
    for (let round = 0; round < 4 && crawler.exitCode === null; round++) {
      await new Promise((r) => setTimeout(r, 300));
      if (!existsSync(join(data.dir, 'trawl.db'))) continue;
      const store = openStore(data.dir);
      const file = join(data.dir, `export-${round}.wacz`);
      try {
        const result = await store.wacz(createWriteStream(file));
        const { problems, pages } = waczProblems(await readZip(file));
        assert.deepEqual(problems, [], `export ${round}`);
        assert.equal(pages.length, result.pages);
        if (crawler.exitCode === null) during++;
      } finally {
        await store.close();
      }
    }
    assert.ok(during >= 1, 'at least one export ran while the crawl wrote');
    assert.equal((await done).code, 0);
    const store = openStore(data.dir);
    try {
      const file = join(data.dir, 'final.wacz');
      const result = await store.wacz(createWriteStream(file));
      assert.deepEqual(waczProblems(await readZip(file)).problems, []);
      assert.equal(result.pages, PAGES + 1);
    } finally {
      await store.close();
    }
    assert.ok(readFileSync(join(data.dir, 'final.wacz')).length > 0);
  } finally {
    crawler.kill();
    await site.close();
    data.cleanup();
  }
});
