// Processing off the host's path: a host's next request does not wait for the previous page's
// extraction, commit and hooks (with the default processing queue), one request per host at a time
// still holds, the queue is a bound (no request starts while it is full), and `--processing-queue 0`
// keeps each page's processing in its host's turn. Judged from the server's side.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { crawl } from '../../shared/library/crawl.js';
import { openStore } from '../../shared/library/store.js';
import { serve, tempDir } from '../../support/helpers.js';

const PAGES = 30;

/** One host: a chain of pages, each linking to the next; the server records each request's start and end. */
async function chainSite() {
  const log: Array<{ path: string; start: number; end: number; concurrent: number }> = [];
  let open = 0;
  const arrivals: Array<() => void> = [];
  const site = await serve((req, res) => {
    const path = req.url ?? '/';
    const start = performance.now();
    open++;
    const concurrent = open;
    const n = Number(/^\/p\/(\d+)$/.exec(path)?.[1] ?? 0);
    const body =
      path === '/robots.txt'
        ? 'User-agent: *\nAllow: /\n'
        : `<html><head><title>Page ${n}</title></head><body><article><h1>Page ${n}</h1><p>Words about page ${n} and the chain it is part of.</p>${n < PAGES ? `<a href="/p/${n + 1}">next</a>` : ''}</article></body></html>`;
    res.writeHead(200, { 'content-type': path === '/robots.txt' ? 'text/plain' : 'text/html' }).end(body, () => {
      open--;
      log.push({ path, start, end: performance.now(), concurrent });
      for (const wake of arrivals.splice(0)) wake();
    });
  });
  const pageRequests = () => log.filter((e) => e.path !== '/robots.txt').length;
  const until = (n: number) =>
    new Promise<void>((resolve) => {
      const check = () => (pageRequests() >= n ? resolve() : arrivals.push(check));
      check();
    });
  return { site, log, pageRequests, until };
}

const options = (data: string) => ({ data, allowPrivateNetwork: true, delayMs: 0, maxRps: 0, maxDepth: 100, extractWorkers: 0, env: {} });

test("the host's next request does not wait for the previous page's processing: a page's hook can wait for every other request", async () => {
  const { site, log, pageRequests, until } = await chainSite();
  const dir = tempDir();
  try {
    let first = true;
    let waitedInVain = false;
    // The first page's hook runs after its commit and holds until the server has served every page:
    // with its processing on the host's path, the crawl could never get there (the guard ends the wait).
    const summary = await crawl([`${site.origin}/p/1`], {
      ...options(dir.dir),
      onPage: async () => {
        if (!first) return;
        first = false;
        let guard: NodeJS.Timeout | undefined;
        await Promise.race([until(PAGES), new Promise<void>((r) => (guard = setTimeout(() => r(void (waitedInVain = true)), 20_000)))]);
        clearTimeout(guard);
      },
    });
    assert.equal(waitedInVain, false, "the host's next requests waited for the first page's hook");
    assert.equal(summary.status, 'finished');
    assert.equal(pageRequests(), PAGES);
    assert.ok(
      log.every((e) => e.concurrent === 1),
      'one request at a time',
    );
    const store = openStore(dir.dir);
    try {
      assert.equal((await store.summary())?.pagesStored, PAGES);
    } finally {
      await store.close();
    }
  } finally {
    await site.close();
    dir.cleanup();
  }
});

test('the processing queue is a bound: no request starts while it holds its pages', async () => {
  const { site, pageRequests, until } = await chainSite();
  const dir = tempDir();
  try {
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    const crawled = crawl([`${site.origin}/p/1`], { ...options(dir.dir), processingQueue: 3, onPage: () => released });
    await until(3);
    // Three pages' hooks hold their commits' slots: the queue is full and the crawl waits.
    await new Promise((r) => setTimeout(r, 300));
    assert.ok(pageRequests() <= 4, `${pageRequests()} requests with 3 pages held`);
    release();
    assert.equal((await crawled).status, 'finished');
    assert.equal(pageRequests(), PAGES);
  } finally {
    await site.close();
    dir.cleanup();
  }
});

test("--processing-queue 0 processes each page in its host's turn, before the host's next request", async () => {
  const { site, pageRequests } = await chainSite();
  const dir = tempDir();
  try {
    const seen: number[] = [];
    await crawl([`${site.origin}/p/1`], { ...options(dir.dir), processingQueue: 0, onPage: () => void seen.push(pageRequests()) });
    assert.deepEqual(
      seen,
      Array.from({ length: PAGES }, (_, i) => i + 1),
      'page k is stored, with its hook run, before request k + 1',
    );
  } finally {
    await site.close();
    dir.cleanup();
  }
});
