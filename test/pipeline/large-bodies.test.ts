// Large bodies (over 1 MiB) are held a few at a time, from their read to their extraction: the
// others' reads wait, paused. With more hosts answering large pages at once than there are slots,
// every page and PDF is still stored and extracted, with the processing queue and without it (a
// slot not given up would leave the last hosts waiting for ever).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { crawlWeb, openDb, testFlags, withWeb } from '../../support/crawl-helpers.js';

const CAP = 1536 * 1024;
const BLOGS = 5;

for (const queue of ['the processing queue', 'no processing queue'])
  test(`more large pages at once than slots, with ${queue}: all stored and extracted`, { timeout: 120_000 }, async () => {
    await withWeb({ articles: 2, blogHosts: BLOGS, crawlDelaySeconds: 0, heavy: { pdfs: 2, redirects: 0 } }, async (web, dir) => {
      const seeds = Array.from({ length: BLOGS }, (_, i) => `${web.origins[`blog${i + 1}`]}/`);
      const extra = queue === 'no processing queue' ? { 'processing-queue': '0' } : {};
      await crawlWeb(web, testFlags(dir, { 'delay-ms': '0', 'max-body-bytes': String(CAP), ...extra }), seeds);
      const db = openDb(dir);
      try {
        const big = db.prepare("SELECT truncated, bytes FROM pages WHERE url LIKE '%/big'").all() as Array<{ truncated: number; bytes: number }>;
        assert.deepEqual(
          big.map((p) => [p.truncated, p.bytes]),
          Array.from({ length: BLOGS }, () => [1, CAP]),
        );
        const pdfs = db.prepare("SELECT x.markdown FROM pages p JOIN extracts x ON x.url_id = p.url_id WHERE p.url LIKE '%.pdf'").all() as Array<{
          markdown: string;
        }>;
        assert.equal(pdfs.length, BLOGS * 2);
        assert.ok(
          pdfs.every((p) => p.markdown.length > 100),
          'every PDF has its text',
        );
      } finally {
        db.close();
      }
    });
  });
