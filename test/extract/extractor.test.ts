import { test } from 'node:test';
import assert from 'node:assert/strict';
import { InlineExtractor, WorkerExtractor } from '../../shared/extract/extractor.js';
import { FIXTURES, fixtureHtml } from './fixtures.js';

const canonical = { trackingParams: ['utm_*'], sessionParams: ['sid'] };

test('worker threads give exactly the in-thread extraction, in both modes', async () => {
  const inline = new InlineExtractor(canonical);
  const workers = new WorkerExtractor(canonical, 2);
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
  const { withWeb, crawlWeb, testFlags, openDb } = await import('../e2e/crawl-helpers.js');
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
