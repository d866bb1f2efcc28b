// The Chromium fallback in an embedded crawl of the single-page apps of the synthetic web: what is
// rendered and why, what the pages may reach, the archive's rendered records, and that no browser
// process or profile outlives a crawl, a kill or a browser crash.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readWarc } from '../../shared/archive/warc-reader.js';
import { crawl } from '../../shared/library/crawl.js';
import { openStore } from '../../shared/library/store.js';
import { sweepStaleProfiles } from '../../shared/render/chromium.js';
import type { CrawlEvent } from '../../shared/pipeline/stages/progress.js';
import { crawlWeb, openDb, requestsBy, testFlags, withWeb } from '../../support/crawl-helpers.js';
import { startCli } from './cli-process.js';
import { processesWith, waitFor } from '../render/processes.js';

const RENDER_FLAGS = { 'render-timeout-ms': '5000', 'render-memory-mb': '64', 'max-attempts': '1' };
const ownProfiles = () => readdirSync(tmpdir()).filter((n) => n.startsWith(`trawl-chrome-${process.pid}-`));
const pageOf = (db: ReturnType<typeof openDb>, url: string) =>
  db.prepare('SELECT fetcher, render, content_hash FROM pages WHERE url = ?').get(url) as { fetcher: string; render: string; content_hash: string } | undefined;

test('app pages are rendered and their rendered-only links crawled; plain pages are not; blocked requests are counted; the archive keeps the DOM', async () => {
  await withWeb({ articles: 1, blogHosts: 1, apps: 3 }, async (web, dir) => {
    const apps = web.origins.apps!;
    await crawlWeb(web, testFlags(dir, { ...RENDER_FLAGS, screenshot: true }), [`${apps}/`]);
    const db = openDb(dir);
    try {
      const render = (path: string) => JSON.parse(pageOf(db, `${apps}${path}`)!.render) as Record<string, unknown>;
      for (const path of ['/spa/1', '/spa/2', '/spa/3', '/xhr', '/never-settles', '/probe']) {
        assert.equal(pageOf(db, `${apps}${path}`)?.fetcher, 'browser', path);
        assert.equal(render(path).outcome, 'rendered', path);
        assert.equal(render(path).reason, 'empty-root #root', path);
      }
      for (const path of ['/', '/plain', '/rendered-only/1']) {
        assert.equal(pageOf(db, `${apps}${path}`)?.fetcher, 'http', path);
        assert.deepEqual(render(path), { outcome: 'not-rendered', reason: 'enough-content' }, path);
      }
      // Links only the rendered DOM has: the chain of apps, the XHR content's link, the ticker's.
      for (const path of ['/rendered-only/1', '/rendered-only/3', '/from-xhr', '/ticker-archive']) assert.ok(pageOf(db, `${apps}${path}`)?.content_hash, path);
      assert.equal(render('/never-settles').settled, false);
      assert.deepEqual(render('/probe').blocked, { 'private-address': 2 });
      assert.deepEqual(render('/xhr').blocked, { robots: 1 });
      assert.ok(!requestsBy(web.log, 'apps').some((r) => r.target.startsWith('/api/private')), 'robots.txt refuses /api/private to the page too');
      // The document is served from the fetch: every app page was requested once.
      assert.equal(requestsBy(web.log, 'apps').filter((r) => r.target === '/spa/1').length, 1);
      for (const path of ['/crash', '/hang']) {
        assert.equal(render(path).outcome, 'failed', path);
        assert.match(String(render(path).error), path === '/crash' ? /^crash: / : /^hang: /);
        assert.ok(pageOf(db, `${apps}${path}`)?.content_hash, `${path} is still stored as served`);
      }
      // The archive: a conversion record per render, tied to the response it was made from.
      const records = [];
      for (const file of readdirSync(join(dir, 'warc'))) for await (const r of readWarc(join(dir, 'warc', file))) records.push(r);
      const responses = new Map(records.filter((r) => r.type === 'response').map((r) => [r.headers.get('warc-record-id'), r.url]));
      const conversions = records.filter((r) => r.type === 'conversion');
      assert.equal(conversions.length, 6);
      for (const c of conversions) assert.equal(responses.get(c.headers.get('warc-refers-to')), c.url);
      const shots = records.filter((r) => r.type === 'resource');
      assert.equal(shots.length, 6);
      assert.deepEqual([...shots[0]!.payload.subarray(1, 4)], [...Buffer.from('PNG')]);
      const browserFetches = db.prepare("SELECT count(*) AS n FROM fetches WHERE fetcher = 'browser' AND warc_file IS NOT NULL").get() as { n: number };
      assert.equal(browserFetches.n, 6);
    } finally {
      db.close();
    }
    const store = openStore(dir);
    try {
      const served = await store.replay(`${apps}/spa/2`);
      const rendered = await store.replay(`${apps}/spa/2`, { view: 'rendered' });
      assert.doesNotMatch(served.body!.toString(), /Read on:/);
      assert.match(rendered.body!.toString(), /<h1>App page 2<\/h1>.*Read on:/s);
    } finally {
      await store.close();
    }
    assert.deepEqual(processesWith(`trawl-chrome-${process.pid}-`), [], 'no browser process outlives the crawl');
    assert.deepEqual(ownProfiles(), [], 'no profile directory outlives the crawl');
  });
});

test('--render never renders nothing and starts no browser', async () => {
  await withWeb({ articles: 1, blogHosts: 1, apps: 2 }, async (web, dir) => {
    await crawlWeb(web, testFlags(dir, { render: 'never' }), [`${web.origins.apps}/`]);
    const db = openDb(dir);
    try {
      assert.equal((db.prepare("SELECT count(*) AS n FROM pages WHERE fetcher = 'browser'").get() as { n: number }).n, 0);
      assert.deepEqual(JSON.parse(pageOf(db, `${web.origins.apps}/spa/1`)!.render), { outcome: 'not-rendered', reason: 'render-never' });
      assert.equal(pageOf(db, `${web.origins.apps}/rendered-only/1`), undefined);
    } finally {
      db.close();
    }
  });
});

test('a browser killed mid-crawl is restarted and its page retried; nothing is left behind', async () => {
  await withWeb({ articles: 1, blogHosts: 1, apps: 6 }, async (web, dir) => {
    let killed = 0;
    const onEvent = (e: CrawlEvent) => {
      if (e.type !== 'render' || killed) return;
      killed = processesWith(`trawl-chrome-${process.pid}-`).length;
      for (const pid of processesWith(`trawl-chrome-${process.pid}-`)) process.kill(pid, 'SIGKILL');
    };
    const apps = web.origins.apps!;
    // The pages that hang or crash a render cost their timeout and test nothing here.
    const deny = ['/hang', '/never-settles', '/crash'].map((p) => `${apps}${p}`);
    await crawl([`${apps}/spa/1`], { data: dir, allowPrivateNetwork: true, delayMs: 20, maxRps: 0, renderTimeoutMs: 5000, deny, env: {}, onEvent });
    assert.ok(killed > 0, 'the browser was running when it was killed');
    const db = openDb(dir);
    try {
      for (let n = 1; n <= 6; n++) assert.equal(pageOf(db, `${apps}/spa/${n}`)?.fetcher, 'browser', `/spa/${n}`);
    } finally {
      db.close();
    }
    // The killed browser's own children exit once their parent is gone.
    assert.ok(await waitFor(() => processesWith(`trawl-chrome-${process.pid}-`).length === 0, 10_000), String(processesWith(`trawl-chrome-${process.pid}-`)));
    assert.deepEqual(ownProfiles(), []);
  });
});

test('a crawler killed with SIGKILL takes its browser with it; the next start removes the profile it left', async () => {
  await withWeb({ articles: 1, blogHosts: 1, apps: 40 }, async (web, dir) => {
    const { child, done } = startCli([
      'crawl',
      `${web.origins.apps}/spa/1`,
      ...Object.entries(testFlags(dir)).flatMap(([k, v]) => (v === true ? [`--${k}`] : [`--${k}`, String(v)])),
    ]);
    const needle = `trawl-chrome-${child.pid}-`;
    assert.ok(await waitFor(() => processesWith(needle).length > 0, 60_000), 'the crawler started a browser');
    child.kill('SIGKILL');
    await done;
    assert.ok(await waitFor(() => processesWith(needle).length === 0, 15_000), 'the browser exits with the crawler');
    assert.ok(
      readdirSync(tmpdir()).some((n) => n.startsWith(needle)),
      'a killed crawler cannot remove its profile itself',
    );
    sweepStaleProfiles();
    assert.ok(!readdirSync(tmpdir()).some((n) => n.startsWith(needle)));
    assert.ok(existsSync(join(dir, 'trawl.db')));
  });
});
