// fetch(target) end to end: URLs, search queries and social accounts through the library and the
// CLI against local API servers, every call archived; then, with the servers closed, the replay of
// the same targets returns identical typed content; "never fetched" is told apart from "failed".
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { fetch, searchSocial } from '../../shared/library/fetch.js';
import { openStore } from '../../shared/library/store.js';
import { FetchedAndFailedError, NeverFetchedError } from '../../shared/errors.js';
import type { FetchedContent } from '../../shared/targets/content.js';
import { serve, tempDir } from '../../support/helpers.js';
import { runCli } from '../e2e/cli-process.js';
import { makePdf } from '../../support/web/pdf.js';
import { KEYS, startApiServers, type ApiServers } from './api-servers.js';

let api: ApiServers;
let site: Awaited<ReturnType<typeof serve>>;
let data: ReturnType<typeof tempDir>;
let env: Record<string, string>;
const live = new Map<string, FetchedContent>();

const PAGE =
  '<!doctype html><html><head><title>Sprinkler Inspection Guide</title></head><body><main><h1>Sprinkler Inspection Guide</h1><p>Quarterly and annual inspections keep fire sprinkler systems ready. Inspectors check valves, gauges and alarms.</p></main></body></html>';
const FEED = `<?xml version="1.0"?><rss version="2.0"><channel><title>Fire News</title><item><title>New code</title><link>http://feed.test/a</link><pubDate>Mon, 02 Nov 2026 10:00:00 GMT</pubDate></item></channel></rss>`;

before(async () => {
  data = tempDir();
  site = await serve((req, res) => {
    const path = req.url ?? '/';
    if (path === '/robots.txt') return void res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nDisallow: /private\n');
    if (path === '/article') return void res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE);
    if (path === '/old') return void res.writeHead(301, { location: '/article' }).end();
    if (path === '/feed.xml') return void res.writeHead(200, { 'content-type': 'application/rss+xml' }).end(FEED);
    if (path === '/guide.pdf')
      return void res.writeHead(200, { 'content-type': 'application/pdf' }).end(makePdf(['Sprinkler inspection checklist'], 'Checklist'));
    if (path === '/data.bin') return void res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(Buffer.alloc(64, 1));
    res.writeHead(404).end();
  });
  api = await startApiServers(() => site.origin);
  env = {
    TRAWL_SEARXNG_URL: `${api.origin}/searx`,
    TRAWL_REDDIT_URL: api.origin,
    TRAWL_BSKY_URL: api.origin,
    TRAWL_APIFY_URL: api.origin,
    APIFY_TOKEN: KEYS.apify,
  };
});

after(async () => {
  await api?.close();
  await site?.close();
  data?.cleanup();
});

const options = () => ({ data: data.dir, allowPrivateNetwork: true, env });

test('each kind of target comes back typed, and every call is an interaction of the archive', async () => {
  const targets = [
    'search:fire sprinkler inspection Minneapolis',
    'r/Minneapolis',
    `${api.origin}/@firesafety`,
    'https://bsky.app/profile/fire.bsky.social',
    'https://x.com/nfpa',
    `${site.origin}/old`,
    `${site.origin}/feed.xml`,
    `${site.origin}/guide.pdf`,
    `${site.origin}/data.bin`,
  ];
  for (const t of targets) live.set(t, await fetch(t, { ...options(), limit: 5 }));
  const search = live.get(targets[0]!)!;
  assert.equal(search.type, 'search-results');
  if (search.type === 'search-results') {
    assert.equal(search.backend, 'searxng');
    assert.equal(search.results.length, 5);
    assert.equal(search.key, 'search:fire sprinkler inspection minneapolis');
  }
  const subreddit = live.get('r/Minneapolis')!;
  assert.ok(subreddit.type === 'social-posts' && subreddit.posts.length === 5 && subreddit.platform === 'reddit');
  assert.equal(live.get(`${api.origin}/@firesafety`)!.type, 'social-posts');
  assert.equal(
    live.get('https://x.com/nfpa')!.type === 'social-posts' && (live.get('https://x.com/nfpa') as { backend: string }).backend,
    'apify:apidojo~tweet-scraper',
  );
  const page = live.get(`${site.origin}/old`)!;
  assert.ok(
    page.type === 'page' &&
      page.title === 'Sprinkler Inspection Guide' &&
      /Quarterly and annual inspections/.test(page.markdown) &&
      page.url === `${site.origin}/article`,
  );
  const feed = live.get(`${site.origin}/feed.xml`)!;
  assert.ok(feed.type === 'feed' && feed.items[0]!.url === 'http://feed.test/a', JSON.stringify(feed));
  const pdf = live.get(`${site.origin}/guide.pdf`)!;
  assert.ok(pdf.type === 'pdf' && /Sprinkler inspection checklist/.test(pdf.text));
  assert.equal(live.get(`${site.origin}/data.bin`)!.type, 'raw');
  await assert.rejects(fetch(`${site.origin}/private`, options()), /robots.txt of .* does not allow/);
  const store = openStore(data.dir);
  try {
    const runs = await store.runs();
    assert.equal(runs.length, targets.length + 1, 'one run a call (the refused one included)');
  } finally {
    await store.close();
  }
});

test('hashtag and topic search on a platform, archived like fetch', async () => {
  const found = await searchSocial('bluesky', ['#housing', 'Minneapolis'], { ...options(), limit: 4 });
  assert.ok(found.type === 'social-posts' && found.posts.length === 4);
  live.set('bluesky #housing Minneapolis', found);
});

test('a failed call is archived as a failure; the API key never reaches the archive', async () => {
  await assert.rejects(fetch('search:wrong key', { ...options(), env: { TRAWL_BRAVE_API_KEY: 'not-the-key', TRAWL_BRAVE_URL: api.origin } }), /HTTP 422/);
  const warc = join(data.dir, 'warc');
  const text = readdirSync(warc)
    .map((f) => gunzipSync(readFileSync(join(warc, f))).toString('latin1'))
    .join('\n');
  assert.ok(text.includes('x-subscription-token: [redacted]'), 'the header is recorded, redacted');
  assert.ok(!text.includes('not-the-key') && !text.includes(KEYS.apify), 'no key in the WARC files');
  assert.ok(text.includes('backend: searxng') && text.includes('target: search:fire sprinkler inspection minneapolis'));
});

test('with the servers closed, the replay returns identical typed content; never fetched and failed are told apart', async () => {
  await api.close();
  await site.close();
  const store = openStore(data.dir);
  try {
    for (const [target, content] of live) {
      if (target.startsWith('bluesky ')) continue;
      assert.deepEqual(await store.fetch(target), content, target);
    }
    assert.deepEqual(await store.searchSocial('bluesky', ['#housing', 'Minneapolis']), live.get('bluesky #housing Minneapolis'));
    // The same target written another way has the same key: the same answer.
    assert.deepEqual({ ...(await store.fetch('https://www.reddit.com/r/minneapolis/')), target: 'r/Minneapolis' }, live.get('r/Minneapolis'));
    await assert.rejects(store.fetch('search:never asked'), NeverFetchedError);
    await assert.rejects(store.fetch('search:wrong key'), (e: Error) => e instanceof FetchedAndFailedError && /HTTP 422|422/.test(e.message));
  } finally {
    await store.close();
  }
});

test('trawl fetch prints typed content (--json) and answers --replay from the archive; bad targets exit 2', async () => {
  const { dir, cleanup } = tempDir();
  const servers = await startApiServers(() => 'http://content.test');
  try {
    const cliEnv = { TRAWL_SEARXNG_URL: `${servers.origin}/searx` };
    const flags = ['--data', dir, '--allow-private-network'];
    const text = await runCli(['fetch', 'search:sprinkler', 'repair', '--limit', '3', ...flags], 60_000, cliEnv);
    assert.equal(text.code, 0, text.stderr);
    assert.match(
      text.stdout,
      /search-results for search:sprinkler repair .* from searxng:\n {2}1\. sprinkler repair — result 1 — http:\/\/content\.test\/results\/1/,
    );
    const json = await runCli(['fetch', 'search:sprinkler repair', '--limit', '3', '--json', ...flags], 60_000, cliEnv);
    const liveLine = JSON.parse(json.stdout) as FetchedContent;
    await servers.close();
    const replayed = await runCli(['fetch', 'search:sprinkler repair', '--replay', '--json', '--data', dir]);
    assert.equal(replayed.code, 0, replayed.stderr);
    assert.deepEqual(JSON.parse(replayed.stdout), liveLine);
    const bad = await runCli(['fetch', 'ftp://example.com/x', ...flags]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /ftp: URLs are not fetched/);
    const none = await runCli(['fetch', 'search:anything', ...flags], 60_000, { TRAWL_SEARXNG_URL: '' });
    assert.equal(none.code, 2);
    assert.match(none.stderr, /no web search provider is configured/);
  } finally {
    await servers.close().catch(() => {});
    cleanup();
  }
});
