import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Db } from '../../shared/store/local/sqlite-types.js';
import { startWeb, type SyntheticWeb } from '../../support/web/server.js';
import { tempDir } from '../../support/helpers.js';
import { crawlWeb, fetchCounts, minGap, openDb, requestsBy, testFlags, urlState } from '../../support/crawl-helpers.js';
import type { RunSummary } from '../../shared/ports/index.js';

let web: SyntheticWeb;
let data: ReturnType<typeof tempDir>;
let db: Db;
let summary: RunSummary;
const o = (host: string) => web.origins[host]!;

before(async () => {
  web = await startWeb({ articles: 30, blogHosts: 2, crawlDelaySeconds: 0.3 });
  data = tempDir();
  summary = (await crawlWeb(web, testFlags(data.dir))).summary;
  db = openDb(data.dir);
});

after(async () => {
  db.close();
  await web.close();
  data.cleanup();
});

test('never has two requests in flight to one host', () => {
  for (const host of web.hosts)
    assert.ok(
      requestsBy(web.log, host.name).every((e) => e.concurrent === 1),
      host.name,
    );
});

test('keeps --delay-ms between requests to a host, and Crawl-delay where it is larger', () => {
  for (const host of web.hosts.filter((h) => h.name !== 'delay' && h.name !== 'busy')) {
    const entries = requestsBy(web.log, host.name);
    // After a download the crawler cut short, the server only notices the close later, so the
    // gap is measured from that request's start plus the time the crawler spent on it at most.
    const gaps = entries.slice(1).map((e, i) => {
      const prev = entries[i]!;
      return { gap: prev.aborted ? e.start - prev.start : e.start - prev.end, after: prev.target, next: e.target };
    });
    assert.deepEqual(
      gaps.filter((g) => g.gap < 48),
      [],
      host.name,
    );
  }
  const delayed = requestsBy(web.log, 'delay');
  assert.ok(delayed.length >= 5);
  assert.ok(minGap(delayed) >= 295, `crawl-delay host gap ${minGap(delayed)} ms`);
});

test('fetches nothing that robots.txt disallows for trawl', () => {
  const violations = web.log.filter((e) => e.target !== '/robots.txt' && web.hosts.find((h) => h.name === e.host)!.disallowed(e.target));
  assert.deepEqual(
    violations.map((e) => `${e.host}${e.target}`),
    [],
  );
  assert.ok(summary.skipsByReason.robots! >= 5);
  assert.equal(urlState(db, `${o('agent')}/no-trawl/x`)?.reason, 'robots');
  assert.equal(urlState(db, `${o('agent')}/also-no/y`)?.reason, 'robots');
  assert.equal(urlState(db, `${o('agent')}/ok`)?.state, 'done');
  assert.equal(urlState(db, `${o('main')}/private/open`)?.state, 'done');
  assert.equal(urlState(db, `${o('main')}/tool.cgi?x=1`)?.state, 'done');
});

test('fetches nothing twice, apart from throttled retries and unreadable robots.txt', () => {
  const repeats = [...fetchCounts(web.log)]
    .filter(([, n]) => n > 1)
    .map(([k]) => k)
    .sort();
  assert.deepEqual(repeats, ['broken/robots.txt', 'busy/', 'busy/a', 'busy/b']);
});

test('falls into no trap', () => {
  assert.deepEqual(
    web.log.filter((e) => web.hosts.find((h) => h.name === e.host)!.isTrap(e.target)).map((e) => e.target),
    [],
  );
  assert.ok((summary.skipsByReason['trap:calendar'] ?? 0) > 0);
  assert.ok((summary.skipsByReason['trap:repeated-segment'] ?? 0) > 0);
  assert.ok(web.log.some((e) => e.target === '/rel/more/more/'));
  assert.ok(!web.log.some((e) => e.target === '/rel/more/more/more/'));
});

test('treats robots.txt 404 as allow-all and 500 as disallow-all, then parks the host', () => {
  const nobots = requestsBy(web.log, 'nobots').map((e) => e.target);
  for (const path of ['/', '/one', '/two']) assert.ok(nobots.includes(path), path);
  const broken = requestsBy(web.log, 'broken');
  assert.ok(broken.length >= 2 && broken.every((e) => e.target === '/robots.txt'));
  assert.match(summary.hostsParked.find((h) => h.host === new URL(o('broken')).host)?.reason ?? '', /robots\.txt unreachable/);
  assert.equal(urlState(db, `${o('broken')}/`)?.reason, 'host-parked');
});

test('honours Retry-After (seconds and HTTP date) and backs off without it, then retries the URL', () => {
  const busy = requestsBy(web.log, 'busy').filter((e) => e.target !== '/robots.txt');
  const gapAfter = (target: string) => {
    const hits = busy.filter((e) => e.target === target);
    assert.equal(hits.length, 2, target);
    assert.notEqual(hits[0]!.status, 200);
    assert.equal(hits[1]!.status, 200);
    return hits[1]!.start - hits[0]!.end;
  };
  assert.ok(gapAfter('/') >= 990, 'Retry-After: 1');
  assert.ok(gapAfter('/a') >= 900, 'Retry-After: <HTTP date ~2 s ahead>');
  assert.ok(gapAfter('/b') >= 195, 'exponential back-off base');
  // Nothing else reached the host during a back-off.
  for (let i = 1; i < busy.length; i++) {
    const prev = busy[i - 1]!;
    if (prev.status === 429 && prev.target === '/') assert.ok(busy[i]!.start - prev.end >= 990);
  }
});

test('canonicalises URLs: tracking parameters and fragments lead to one fetch', () => {
  const main = requestsBy(web.log, 'main');
  assert.equal(main.filter((e) => /^\/articles\/1([?#]|$)/.test(e.target)).length, 1);
  assert.equal(main.filter((e) => /^\/articles\/2([?#]|$)/.test(e.target)).length, 1);
  assert.ok(!main.some((e) => e.target.includes('utm_') || e.target.includes('#')));
});

test('records rel=canonical and redirects as aliases, and duplicate bodies as duplicates', () => {
  const alias = (url: string) => db.prepare('SELECT target_url AS t, reason AS r FROM aliases WHERE url = ?').all(url);
  assert.deepEqual(alias(`${o('main')}/articles/3?print=1`), [{ t: `${o('main')}/articles/3`, r: 'rel-canonical' }]);
  assert.deepEqual(alias(`${o('main')}/old-page`), [{ t: `${o('main')}/articles/4`, r: 'redirect' }]);
  const copy = db.prepare('SELECT duplicate_of FROM pages WHERE url = ?').get(`${o('main')}/copy/1`) as { duplicate_of: string };
  const original = db.prepare('SELECT url_id FROM pages WHERE url = ?').get(`${o('main')}/articles/1`) as { url_id: string };
  assert.equal(copy.duplicate_of, original.url_id);
  assert.equal(urlState(db, `${o('main')}/copy/1`)?.state, 'duplicate');
});

test('follows at most five redirects, each through the frontier, and loops end', () => {
  const main = requestsBy(web.log, 'main');
  assert.deepEqual(
    main.filter((e) => e.target.startsWith('/chain/')).map((e) => e.target),
    ['/chain/0', '/chain/1', '/chain/2', '/chain/3', '/chain/4', '/chain/5'],
  );
  assert.equal(urlState(db, `${o('main')}/chain/6`)?.reason, 'too-many-redirects');
  assert.equal(main.filter((e) => e.target === '/loop-a').length, 1);
  assert.equal(main.filter((e) => e.target === '/loop-b').length, 1);
});

test('discovers URLs from a sitemap index with a gzipped urlset, and from RSS', () => {
  assert.equal(urlState(db, `${o('main')}/sitemap-only`)?.state, 'done');
  assert.equal(urlState(db, `${o('main')}/feed-only`)?.state, 'done');
  assert.ok(web.log.some((e) => e.target === '/sitemap-pages.xml.gz'));
});

test('skips nofollow links and nofollow pages, and marks noindex pages', () => {
  assert.ok(!web.log.some((e) => e.target === '/only-nofollow' || e.target === '/only-from-nofollow-page'));
  assert.equal(urlState(db, `${o('main')}/only-nofollow`)?.reason, 'nofollow');
  const noindex = db.prepare('SELECT indexable FROM pages WHERE url = ?').get(`${o('main')}/noindex`) as { indexable: number };
  assert.equal(noindex.indexable, 0);
  const edge = db.prepare('SELECT nofollow FROM edges WHERE to_url = ?').get(`${o('main')}/only-nofollow`) as { nofollow: number };
  assert.equal(edge.nofollow, 1);
});

test('caps huge bodies and gzip bombs, skips other types, keeps PDFs and text', () => {
  const page = (path: string) =>
    db.prepare('SELECT truncated, bytes, mime, title FROM pages WHERE url = ?').get(`${o('main')}${path}`) as {
      truncated: number;
      bytes: number;
      mime: string;
      title: string | null;
    };
  assert.deepEqual([page('/huge').truncated, page('/huge').bytes], [1, 5 * 1024 * 1024]);
  assert.deepEqual([page('/bomb').truncated, page('/bomb').bytes], [1, 5 * 1024 * 1024]);
  assert.ok(web.log.find((e) => e.target === '/huge')!.bytesSent < 15 * 1024 * 1024);
  assert.equal(urlState(db, `${o('main')}/image.png`)?.reason, 'content-type');
  assert.equal(urlState(db, `${o('main')}/file.zip`)?.reason, 'content-type');
  assert.equal(page('/doc.pdf').mime, 'application/pdf');
  assert.equal(page('/notes.txt').mime, 'text/plain');
});

test('decodes other charsets', () => {
  const title = (path: string) => (db.prepare('SELECT title FROM pages WHERE url = ?').get(`${o('main')}${path}`) as { title: string }).title;
  assert.equal(title('/latin1'), 'Café crème');
  assert.equal(title('/sjis'), '日本');
});

test('stores raw bodies content-addressed and reports the run', () => {
  const hashes = db.prepare('SELECT count(DISTINCT content_hash) AS n FROM pages WHERE content_hash IS NOT NULL').get() as { n: number };
  assert.ok(hashes.n > 50);
  assert.equal(summary.status, 'finished');
  assert.equal(summary.requests, web.log.length);
  assert.ok(summary.pagesStored > 80);
});
