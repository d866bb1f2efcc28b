// A web of hostile hosts crawled beside normal ones, by the CLI as a user runs it: the crawl ends
// on its own in bounded time with exit 0, every normal page is stored, every hostile page is
// recorded with its reason, and stderr carries no warning floods.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Db } from '../../shared/store/local/sqlite-types.js';
import { startWeb, type SyntheticWeb } from '../../support/web/server.js';
import { tempDir } from '../../support/helpers.js';
import { runCli, type CliResult } from './cli-process.js';
import { openDb } from '../../support/crawl-helpers.js';

let web: SyntheticWeb;
let data: ReturnType<typeof tempDir>;
let result: CliResult;
let db: Db;

const url = (host: string, path: string) => `${web.origins[host]}${path}`;
const state = (u: string) =>
  db.prepare('SELECT state, reason, not_before AS notBefore FROM frontier WHERE url = ?').get(u) as
    { state: string; reason: string | null; notBefore: number } | undefined;

before(async () => {
  web = await startWeb({ articles: 8, blogHosts: 2, crawlDelaySeconds: 0, hostile: true });
  data = tempDir();
  result = await runCli(
    [
      'crawl',
      ...web.seeds(),
      '--data',
      data.dir,
      '--allow-private-network',
      '--delay-ms',
      '0',
      '--max-rps',
      '0',
      '--backoff-base-ms',
      '200',
      '--max-host-failures',
      '4',
      '--max-idle-wait-ms',
      '300',
      '--extract-timeout-ms',
      '20000',
    ],
    120_000,
  );
  db = openDb(data.dir);
});

after(async () => {
  db?.close();
  await web?.close();
  data?.cleanup();
});

test('ends on its own with exit 0, in bounded time', () => {
  assert.equal(result.code, 0, result.stderr);
  assert.ok(result.ms < 100_000, `${result.ms} ms`);
  assert.match(result.stdout, /run 1 finished/);
});

test('stores every page of the normal hosts', () => {
  for (const host of ['blog1', 'blog2']) {
    for (let k = 1; k <= 8; k++) assert.equal(state(url(host, `/articles/${k}`))?.state, 'done', `${host} article ${k}`);
  }
  assert.equal(state(url('heavy', '/fine'))?.state, 'done');
});

test('processes the heavy pages within their bounds and records what was cut', () => {
  const extract = (u: string) =>
    db.prepare('SELECT x.metadata FROM extracts x JOIN pages p ON p.url_id = x.url_id WHERE p.url = ?').get(u) as { metadata: string } | undefined;
  assert.equal(state(url('heavy', '/deep'))?.state, 'done');
  const deep = JSON.parse(extract(url('heavy', '/deep'))!.metadata) as { cuts: Array<{ bound: string }> };
  assert.deepEqual(
    deep.cuts.map((c) => c.bound),
    ['maxDepth'],
  );
  const links = JSON.parse(extract(url('heavy', '/many-links'))!.metadata) as { cuts: Array<{ bound: string }> };
  assert.ok(links.cuts.some((c) => c.bound === 'maxLinks'));
  const markdown = db.prepare('SELECT x.markdown FROM extracts x JOIN pages p ON p.url_id = x.url_id WHERE p.url = ?').get(url('heavy', '/deep')) as {
    markdown: string;
  };
  assert.match(markdown.markdown, /bottom of the well/);
});

test('fails a page whose processing breaks, with the stage, and keeps its interaction', () => {
  for (const [path, stage] of [
    ['/bad.pdf', 'pdf'],
    ['/broken-sitemap.xml.gz', 'sitemap'],
  ] as const) {
    assert.deepEqual(state(url('heavy', path)), { state: 'failed', reason: 'processing-failed', notBefore: 0 });
    const fetch = db.prepare('SELECT status, error, warc_file FROM fetches WHERE url = ?').get(url('heavy', path)) as {
      status: number;
      error: string;
      warc_file: string;
    };
    assert.equal(fetch.status, 200);
    assert.match(fetch.error, new RegExp(`^processing failed \\(${stage}\\): `));
    assert.ok(fetch.warc_file, 'the raw exchange is archived');
  }
});

test('parks hosts whose Crawl-delay or Retry-After is beyond the caps, with the reason', () => {
  const parked = new Map(
    (db.prepare('SELECT host, state FROM hosts').all() as Array<{ host: string; state: string }>).map((h) => [
      h.host,
      (JSON.parse(h.state) as { parkedReason?: string }).parkedReason,
    ]),
  );
  const hostOf = (name: string) => new URL(web.origins[name]!).host;
  assert.match(parked.get(hostOf('glacial')) ?? '', /Crawl-delay of 999999999 s is above the 60 s cap/);
  assert.match(parked.get(hostOf('daily')) ?? '', /Crawl-delay of 86400 s is above the 60 s cap/);
  assert.match(parked.get(hostOf('never')) ?? '', /HTTP 429 asked to wait 7200 s/);
  assert.deepEqual(state(url('glacial', '/')), { state: 'skipped', reason: 'host-parked', notBefore: 0 });
  // Nothing beyond robots.txt was asked of a host that asked for a day between requests.
  assert.deepEqual(
    web.log.filter((e) => e.host === 'daily' || e.host === 'glacial').map((e) => e.target),
    ['/robots.txt', '/robots.txt'],
  );
});

test('defers the URLs of a host backed off past the idle bound, with the time they may be asked', () => {
  const later = state(url('later', '/'));
  assert.equal(later?.state, 'deferred');
  const asked = web.log.filter((e) => e.host === 'later' && e.target === '/').at(-1)!;
  assert.ok(later!.notBefore >= asked.end + 590_000, `not before ${later!.notBefore}, asked at ${asked.end}`);
  assert.match(result.stdout, /deferred 1 URL of .* \(backed off\)/);
  assert.deepEqual(JSON.parse(JSON.stringify(db.prepare('SELECT status FROM runs').all())), [{ status: 'finished' }]);
  assert.equal((db.prepare("SELECT count(*) AS n FROM frontier WHERE state IN ('queued', 'in_flight')").get() as { n: number }).n, 0);
});

test('reads a UTF-8 page with two stray bytes as UTF-8', () => {
  const page = db.prepare('SELECT title, charset FROM pages WHERE url = ?').get(url('jp', '/kiji')) as { title: string; charset: string };
  assert.deepEqual(page, { title: '日本語のページ', charset: 'utf-8' });
  const text = db.prepare('SELECT markdown FROM extracts x JOIN pages p ON p.url_id = x.url_id WHERE p.url = ?').get(url('jp', '/kiji')) as {
    markdown: string;
  };
  assert.match(text.markdown, /東京の天気は晴れです。/);
});

test('writes no warning floods to stderr', () => {
  assert.doesNotMatch(result.stderr, /TimeoutOverflowWarning|MaxListenersExceeded/);
  const lines = result.stderr.split('\n').filter(Boolean);
  assert.ok(lines.length <= 10, `${lines.length} stderr lines:\n${result.stderr.slice(0, 2000)}`);
});
