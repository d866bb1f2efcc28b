import { test } from 'node:test';
import assert from 'node:assert/strict';
import { crawlWeb, openDb, testFlags, urlState, withWeb } from '../../support/crawl-helpers.js';
import { statusCommand } from '../../shared/cli/status-command.js';

test('a second crawl re-fetches conditionally and reports unchanged pages', async () => {
  await withWeb({ articles: 12, blogHosts: 1, crawlDelaySeconds: 0 }, async (web, dataDir) => {
    const seeds = [`${web.origins.blog1}/`];
    const first = await crawlWeb(web, testFlags(dataDir), seeds);
    assert.equal(first.summary.unchanged, 0);
    web.clearLog();
    const second = await crawlWeb(web, testFlags(dataDir), seeds);
    const articles = web.log.filter((e) => e.target.startsWith('/articles/'));
    assert.equal(articles.length, 12);
    assert.ok(
      articles.every((e) => e.status === 304),
      'every unchanged article answered 304',
    );
    assert.equal(second.summary.unchanged, 12);
    assert.match(second.lines.join('\n'), /unchanged 12/);
    assert.equal(second.summary.pagesStored, first.summary.pagesStored, 'unchanged pages count as stored in the new run');
    const db = openDb(dataDir);
    assert.equal(urlState(db, `${web.origins.blog1}/articles/5`)?.reason, 'unchanged');
    db.close();
    const lines: string[] = [];
    const status = await statusCommand(dataDir, false, (l) => lines.push(l));
    assert.equal(status?.runId, 2);
    assert.match(lines.join('\n'), /unchanged 12/);
  });
});

test('--follow-nofollow follows nofollow links', async () => {
  await withWeb({ articles: 3, blogHosts: 1, crawlDelaySeconds: 0 }, async (web, dataDir) => {
    await crawlWeb(web, testFlags(dataDir, { 'follow-nofollow': true, 'delay-ms': '0' }), [`${web.origins.main}/`]);
    assert.ok(web.log.some((e) => e.target === '/only-nofollow'));
    assert.ok(web.log.some((e) => e.target === '/only-from-nofollow-page'));
  });
});

test('limits: --max-pages, --max-depth, --max-pages-per-host and --deny', async () => {
  await withWeb({ articles: 30, blogHosts: 2, crawlDelaySeconds: 0 }, async (web, dataDir) => {
    const seeds = [`${web.origins.blog1}/`, `${web.origins.blog2}/`];
    const capped = await crawlWeb(web, testFlags(dataDir, { 'delay-ms': '0', 'max-pages': '10' }), seeds);
    assert.equal(web.log.filter((e) => e.target !== '/robots.txt').length, 10);
    assert.equal(capped.summary.status, 'finished');
    web.clearLog();
    await crawlWeb(web, testFlags(`${dataDir}/crawl1`, { 'delay-ms': '0', 'max-pages-per-host': '4' }), seeds);
    assert.equal(web.log.filter((e) => e.host === 'blog1' && e.target !== '/robots.txt').length, 4);
    web.clearLog();
    const shallow = await crawlWeb(web, testFlags(`${dataDir}/crawl2`, { 'delay-ms': '0', 'max-depth': '1' }), [`${web.origins.blog1}/`]);
    // Depth 1 is what the front page links to: articles 1–20 and list page 2, never what those link to.
    const articleNumbers = web.log
      .map((e) => /^\/articles\/(\d+)$/.exec(e.target)?.[1])
      .filter(Boolean)
      .map(Number);
    assert.equal(Math.max(...articleNumbers), 20);
    assert.ok(web.log.some((e) => e.target === '/list?page=2'));
    assert.ok(!web.log.some((e) => e.target === '/list?page=3'));
    assert.ok((shallow.summary.skipsByReason['max-depth'] ?? 0) > 0);
    web.clearLog();
    const denied = await crawlWeb(web, testFlags(`${dataDir}/crawl3`, { 'delay-ms': '0', deny: ['*/articles/1*'] }), [`${web.origins.blog1}/`]);
    assert.ok(!web.log.some((e) => /^\/articles\/1/.test(e.target)));
    assert.ok((denied.summary.skipsByReason.denied ?? 0) > 0);
  });
});

test('scope: seed hosts by default, more with --allow-domain', async () => {
  await withWeb(
    { articles: 3, blogHosts: 2, crawlDelaySeconds: 0 },
    async (web, dataDir) => {
      const hostOnly = await crawlWeb(web, testFlags(dataDir, { 'delay-ms': '0' }), [`${web.origins.blog1}/`]);
      assert.ok(web.log.every((e) => e.host === 'blog1'));
      assert.ok((hostOnly.summary.skipsByReason['out-of-scope'] ?? 0) > 0);
      web.clearLog();
      await crawlWeb(web, testFlags(`${dataDir}/crawl4`, { 'delay-ms': '0', 'allow-domain': ['127.0.0.1'] }), [`${web.origins.blog1}/`]);
      assert.ok(
        web.log.some((e) => e.host === 'blog2'),
        'the neighbour host is crawled once its domain is allowed',
      );
    },
    'port',
  );
});

test('the synthetic web also runs with one port per host (macOS)', async () => {
  await withWeb(
    { articles: 5, blogHosts: 1, crawlDelaySeconds: 0 },
    async (web, dataDir) => {
      assert.ok(Object.values(web.origins).every((origin) => origin.startsWith('http://127.0.0.1:')));
      const { summary } = await crawlWeb(web, testFlags(dataDir, { 'delay-ms': '0' }), [`${web.origins.blog1}/`, `${web.origins.nobots}/`]);
      assert.ok(summary.pagesStored >= 9);
    },
    'port',
  );
});

test('the address guard refuses the synthetic web without --allow-private-network', async () => {
  await withWeb({ articles: 2, blogHosts: 1, crawlDelaySeconds: 0 }, async (web, dataDir) => {
    // Refused before crawling, with the flag that lifts it, not a crawl that stores nothing.
    await assert.rejects(crawlWeb(web, { data: dataDir, 'delay-ms': '0', 'max-host-failures': '2' }, [`${web.origins.blog1}/`]), /--allow-private-network/);
    assert.equal(web.log.length, 0, 'no request reached a loopback address');
  });
});

test('--max-rps caps requests across all hosts', async () => {
  await withWeb({ articles: 20, blogHosts: 3, crawlDelaySeconds: 0 }, async (web, dataDir) => {
    const seeds = ['blog1', 'blog2', 'blog3'].map((h) => `${web.origins[h]}/`);
    await crawlWeb(web, testFlags(dataDir, { 'delay-ms': '0', 'max-rps': '20', 'max-pages': '40' }), seeds);
    const starts = web.log.map((e) => e.start).sort((a, b) => a - b);
    // A bucket of one second's worth: any 1 s window holds at most 2 × 20 requests.
    for (let i = 0; i < starts.length; i++) assert.ok(starts.filter((t) => t >= starts[i]! && t < starts[i]! + 1000).length <= 40);
    const span = starts.at(-1)! - starts[0]!;
    assert.ok(span >= (starts.length - 20) * 50 - 100, `${starts.length} requests in ${span} ms`);
  });
});

test('a slow host never stalls the others', async () => {
  await withWeb({ articles: 12, blogHosts: 2, crawlDelaySeconds: 0, slowHosts: ['blog1'], slowMs: 150 }, async (web, dataDir) => {
    await crawlWeb(web, testFlags(dataDir, { 'delay-ms': '0' }), [`${web.origins.blog1}/`, `${web.origins.blog2}/`]);
    const span = (host: string) => {
      const entries = web.log.filter((e) => e.host === host);
      return { first: Math.min(...entries.map((e) => e.start)), last: Math.max(...entries.map((e) => e.end)) };
    };
    const slow = span('blog1');
    const fast = span('blog2');
    assert.ok(slow.last - slow.first >= 12 * 150, 'the slow host took its time');
    assert.ok(fast.last < slow.first + (slow.last - slow.first) / 2, 'the fast host was done in the first half of the slow one');
  });
});
