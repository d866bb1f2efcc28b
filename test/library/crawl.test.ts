// The library API as a program uses it: crawl() with hooks, priority and an AbortSignal; openStore() reads.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { crawl, openStore, settingsOf, type CrawlEvent, type StoredPage } from '../../shared/index.js';
import { UsageError } from '../../shared/errors.js';
import { withWeb } from '../../support/crawl-helpers.js';
import { tempDir } from '../../support/helpers.js';
import { existsSync, readdirSync } from 'node:fs';

const local = { allowPrivateNetwork: true, delayMs: 0, maxRps: 0, env: {} };

test('options are typed settings: defaults, then TRAWL_* variables, then the options; bad values name the option', () => {
  const s = settingsOf({ maxPages: 7, env: { TRAWL_MAX_PAGES: '3', TRAWL_DELAY_MS: '250' } });
  assert.deepEqual([s.maxPages, s.delayMs, s.concurrency], [7, 250, 16]);
  assert.throws(
    () => settingsOf({ maxPages: 0, env: {} }),
    (e: unknown) => e instanceof UsageError && /option maxPages: expected a whole number from 1/.test(e.message),
  );
  assert.throws(() => settingsOf({ scope: 'planet' as 'host', env: {} }), /option scope: expected one of host, domain/);
});

test('onPage sees every stored page after its commit, with extraction and links; onEvent sees the run', async () => {
  await withWeb({ articles: 5, blogHosts: 1, crawlDelaySeconds: 0 }, async (web, data) => {
    const pages: StoredPage[] = [];
    const events: CrawlEvent['type'][] = [];
    let storedWhenCalled = true;
    const summary = await crawl([`${web.origins.blog1}/`], {
      ...local,
      data,
      onEvent: (e) => events.push(e.type),
      onPage: async (p) => {
        pages.push(p);
        // The commit is done before the hook: a reader sees the page.
        const store = openStore(data);
        storedWhenCalled &&= (await store.page(p.url))?.contentHash === p.page.contentHash;
        await store.close();
      },
    });
    assert.equal(summary.status, 'finished');
    assert.equal(pages.length, summary.pagesStored);
    assert.ok(storedWhenCalled);
    const article = pages.find((p) => p.url.endsWith('/articles/1'))!;
    assert.match(article.extract?.markdown ?? '', /Article 1/);
    assert.ok(article.links.some((l) => l.toUrl.endsWith('/articles/2') && l.anchor === 'Article 2'));
    assert.ok(article.chunks.length >= 1);
    assert.equal(events[0], 'start');
    assert.equal(events.at(-1), 'done');
    assert.ok(events.includes('fetch'));
  });
});

test('a thrown onPage hook is logged and the crawl goes on', async () => {
  await withWeb({ articles: 3, blogHosts: 1, crawlDelaySeconds: 0 }, async (web, data) => {
    const warnings: string[] = [];
    const logger = {
      debug() {},
      info() {},
      warn: (m: string) => warnings.push(m),
      error() {},
      child() {
        return logger;
      },
    };
    const summary = await crawl([`${web.origins.blog1}/`], {
      ...local,
      data,
      logger,
      onPage: () => {
        throw new Error('user bug');
      },
    });
    assert.equal(summary.status, 'finished');
    assert.ok(summary.pagesStored >= 4);
    assert.ok(warnings.includes('the onPage hook failed; the crawl goes on'));
  });
});

test('aborting the signal stops cleanly; the run resumes to the end without refetching', async () => {
  await withWeb({ articles: 30, blogHosts: 1, crawlDelaySeconds: 0 }, async (web, data) => {
    const abort = new AbortController();
    let stored = 0;
    const first = await crawl([`${web.origins.blog1}/`], {
      ...local,
      delayMs: 20,
      data,
      signal: abort.signal,
      onPage: () => void (++stored === 5 && abort.abort()),
    });
    assert.equal(first.status, 'interrupted');
    const requestsBefore = web.log.length;
    const resumed = await crawl([], { ...local, data, resume: true });
    assert.equal(resumed.status, 'finished');
    assert.equal(resumed.runId, first.runId);
    const targets = web.log.map((e) => e.target);
    assert.equal(new Set(targets).size, targets.length, 'nothing fetched twice');
    assert.ok(web.log.length > requestsBefore);
  });
});

test('an injected priority decides which URLs of a host go first', async () => {
  await withWeb({ articles: 12, blogHosts: 1, crawlDelaySeconds: 0 }, async (web, data) => {
    // Highest article number first; everything else after.
    const priority = ({ url }: { url: string }) => Number(/\/articles\/(\d+)$/.exec(url)?.[1] ?? -100);
    await crawl([`${web.origins.blog1}/`], { ...local, data, priority, maxPages: 1 + 3 + 1 });
    const articles = web.log.filter((e) => e.target.startsWith('/articles/')).map((e) => Number(e.target.split('/').pop()));
    assert.deepEqual(
      articles,
      [...articles].sort((a, b) => b - a),
      `fetched ${articles.join(', ')}`,
    );
  });
});

test('bad options fail before anything is created', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const data = `${dir}/never`;
    await assert.rejects(crawl(['not a url'], { data, env: {} }), /seed "not a url" is a web search query .*no web search provider is configured/);
    await assert.rejects(crawl(['ftp://x.test/'], { data, env: {} }), /invalid seed "ftp:\/\/x.test\/": ftp: URLs are not fetched/);
    await assert.rejects(crawl(['http://a.test/'], { data, deny: ['/(/'], env: {} }), /option deny/);
    await assert.rejects(crawl([], { data, resume: true, env: {} }), /nothing to resume/);
    assert.equal(existsSync(data), false);
    assert.deepEqual(readdirSync(dir), []);
  } finally {
    cleanup();
  }
});
