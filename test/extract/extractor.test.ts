import { test } from 'node:test';
import assert from 'node:assert/strict';
import { InlineExtractor, WorkerExtractor } from '../../shared/extract/extractor.js';
import { FIXTURES, fixtureHtml } from './fixtures.js';

const canonical = { trackingParams: ['utm_*'], sessionParams: ['sid'] };

test('worker threads give exactly the in-thread extraction, in both modes', async () => {
  const inline = new InlineExtractor(canonical);
  const workers = new WorkerExtractor(canonical, { size: 2 });
  try {
    for (const mode of ['full', 'links'] as const) {
      const requests = FIXTURES.map((name) => ({ html: fixtureHtml(name), url: `https://site.example/${name}?utm_source=x`, mode, robotsToken: 'trawl' }));
      const fromWorkers = await Promise.all(requests.map((r) => workers.extract(r)));
      for (const [i, r] of requests.entries()) assert.deepEqual(fromWorkers[i], await inline.extract(r), `${mode} ${r.url}`);
    }
  } finally {
    await workers.close();
  }
});

test('a crawl without extraction workers stores the same content', async () => {
  const { withWeb, crawlWeb, testFlags, openDb } = await import('../../support/crawl-helpers.js');
  await withWeb({ articles: 6, blogHosts: 1, crawlDelaySeconds: 0 }, async (web, dataDir) => {
    const seeds = [`${web.origins.blog1}/`];
    await crawlWeb(web, testFlags(`${dataDir}/inline`, { 'delay-ms': '0', 'extract-workers': '0' }), seeds);
    await crawlWeb(web, testFlags(`${dataDir}/workers`, { 'delay-ms': '0', 'extract-workers': '2' }), seeds);
    const rows = (dir: string) => {
      const db = openDb(dir);
      const out = db.prepare('SELECT x.markdown, x.simhash, p.url FROM extracts x JOIN pages p ON p.url_id = x.url_id ORDER BY p.url').all();
      db.close();
      return out;
    };
    const inline = rows(`${dataDir}/inline`);
    assert.ok(inline.length >= 6);
    assert.deepEqual(rows(`${dataDir}/workers`), inline);
  });
});

const small = (n: number) => ({
  html: `<html><body><p>hello world, small page ${n}</p></body></html>`,
  url: `https://a.test/${n}`,
  mode: 'full' as const,
  robotsToken: 'trawl',
});
const heavy = {
  html: `<html><body>${Array.from({ length: 55_000 }, (_, i) => `<p>paragraph ${i} with some words in it ${'x'.repeat(40)}</p>`).join('')}</body></html>`,
  url: 'https://a.test/heavy',
  mode: 'full' as const,
  robotsToken: 'trawl',
};

test('a page that exhausts its worker heap fails alone; the pages behind it finish on a new worker', async () => {
  const workers = new WorkerExtractor(canonical, { size: 1, memoryMb: 48, timeoutMs: 60_000 });
  try {
    const results = await Promise.allSettled([workers.extract(small(1)), workers.extract(heavy), workers.extract(small(2)), workers.extract(small(3))]);
    assert.deepEqual(
      results.map((r) => r.status),
      ['fulfilled', 'rejected', 'fulfilled', 'fulfilled'],
    );
    assert.match(String((results[1] as PromiseRejectedResult).reason), /extraction worker failed on this page: .*memory/);
    assert.match((await workers.extract(small(4))).title ?? (await workers.extract(small(4))).url, /a\.test/);
  } finally {
    await workers.close();
  }
});

test('a page that takes too long fails alone; its worker is replaced and the others finish', async () => {
  // The limit comes from this machine, not a fixed figure: five times a fresh worker's first small
  // page (its slowest: nothing is compiled yet), at least a second. The heavy page takes far longer.
  const probe = new WorkerExtractor(canonical, { size: 1 });
  let coldMs: number;
  try {
    await probe.ready();
    const started = performance.now();
    await probe.extract(small(0));
    coldMs = performance.now() - started;
  } finally {
    await probe.close();
  }
  const timeoutMs = Math.max(1000, Math.ceil(5 * coldMs));
  const workers = new WorkerExtractor(canonical, { size: 1, timeoutMs });
  try {
    const results = await Promise.allSettled([workers.extract(heavy), workers.extract(small(1)), workers.extract(small(2))]);
    assert.deepEqual(
      results.map((r) => r.status),
      ['rejected', 'fulfilled', 'fulfilled'],
      `limit ${timeoutMs} ms`,
    );
    assert.match(String((results[0] as PromiseRejectedResult).reason), new RegExp(`took longer than ${timeoutMs / 1000} s`));
  } finally {
    await workers.close();
  }
});

test('an extraction worker reads PDFs as the calling thread does, answers in order around them, and names an unreadable one', async () => {
  const { makePdf } = await import('../../support/web/pdf.js');
  const { extractPdf } = await import('../../shared/extract/pdf.js');
  const pdf = makePdf(['First page about crawling.', 'Second page (with parentheses).'], 'Crawler manual');
  const workers = new WorkerExtractor(canonical, { size: 1 });
  try {
    const answered: string[] = [];
    const note = <T>(name: string, p: Promise<T>) => p.finally(() => answered.push(name));
    const [read, page, bad, after] = await Promise.allSettled([
      note('pdf', workers.pdf(pdf)),
      note('page', workers.extract(small(1))),
      note('bad', workers.pdf(Buffer.from('%PDF-1.7\n1 0 obj << /Type /Catalog >>\ntrailer <<>>\n%%EOF garbage'))),
      note('after', workers.extract(small(2))),
    ]);
    assert.equal(read.status, 'fulfilled');
    assert.deepEqual(read.value, await extractPdf(pdf));
    assert.equal(read.value.pages, 2);
    assert.equal(read.value.title, 'Crawler manual');
    assert.equal(page.status, 'fulfilled');
    assert.equal(after.status, 'fulfilled');
    assert.equal(bad.status, 'rejected');
    assert.match(String(bad.reason), /PDF not readable/);
    assert.deepEqual(answered, ['pdf', 'page', 'bad', 'after'], 'answers come in the order asked');
  } finally {
    await workers.close();
  }
});
