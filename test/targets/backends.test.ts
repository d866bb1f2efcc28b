// Every search and social backend against a local server speaking its API: the mapping to results
// and posts, pagination, rate-limit headers and retries, error bodies, key redaction, the address guard.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiClient, ApiError, resetTime, type ApiExchange } from '../../shared/targets/api-client.js';
import { brave, searchBackend, searxng, serper } from '../../shared/targets/search-backends.js';
import { apify, bluesky, mastodon, reddit, socialBackend } from '../../shared/targets/social-backends.js';
import { routeTarget, type Target } from '../../shared/targets/route.js';
import { AddressRefusedError } from '../../shared/errors.js';
import { KEYS, startApiServers, type ApiServers } from './api-servers.js';

let api: ApiServers;
const SITE = 'http://content.test';
const waits: number[] = [];
const client = () =>
  new ApiClient({
    userAgent: 'trawl-test/1 (+http://example.test)',
    allowPrivateNetwork: true,
    backoffBaseMs: 10,
    sleep: async (ms) => void waits.push(ms),
  });
const social = (t: string) => routeTarget(t) as Extract<Target, { kind: 'social' }>;

before(async () => {
  api = await startApiServers(() => SITE);
});
after(() => api.close());

test('SearXNG, Brave and Serper: results ranked from 1, paged to the limit, keys sent in their headers and redacted from the record', async () => {
  const c = client();
  try {
    const log: ApiExchange[] = [];
    const sx = await searxng(`${api.origin}/searx`, c).search('fire sprinkler', 15, log);
    assert.equal(sx.length, 15);
    assert.deepEqual(sx[0], { url: `${SITE}/results/1`, title: 'fire sprinkler — result 1', snippet: 'About fire sprinkler: page 1.', rank: 1 });
    assert.equal(sx[14]!.rank, 15);
    assert.deepEqual(
      log.map((x) => new URL(x.url).searchParams.get('pageno')),
      ['1', '2'],
      'two pages of SearXNG',
    );
    const bLog: ApiExchange[] = [];
    const b = await brave(KEYS.brave, c, api.origin).search('alarm testing', 5, bLog);
    assert.equal(b.length, 5);
    assert.equal(b[0]!.snippet, 'About alarm testing: page 1.', 'Brave highlights stripped');
    assert.equal(bLog[0]!.requestHeaders['x-subscription-token'], '[redacted]');
    assert.equal(api.requests.at(-1)!.headers['x-subscription-token'], KEYS.brave, 'the key itself was sent');
    const s = await serper(KEYS.serper, c, api.origin).search('suppression', 10, []);
    assert.equal(s.length, 8, 'as many as Serper has');
    assert.equal(JSON.parse(api.requests.at(-1)!.body).q, 'suppression');
    await assert.rejects(
      brave('wrong', c, api.origin).search('x', 5, []),
      (e: Error) => e instanceof ApiError && e.status === 422 && /invalid/.test(e.message),
    );
  } finally {
    await c.close();
  }
});

test('no provider configured: the error names the three ways; SearXNG wins when set', () => {
  const c = client();
  assert.throws(() => searchBackend({}, c), /TRAWL_SEARXNG_URL .* TRAWL_BRAVE_API_KEY .* TRAWL_SERPER_API_KEY/);
  assert.equal(searchBackend({ TRAWL_SEARXNG_URL: 'http://s/', TRAWL_BRAVE_API_KEY: 'k' }, c).name, 'searxng');
  assert.equal(searchBackend({ BRAVE_API_KEY: 'k', SERPER_API_KEY: 'k' }, c).name, 'brave');
  assert.equal(searchBackend({ TRAWL_SERPER_API_KEY: 'k' }, c).name, 'serper');
  assert.throws(() => socialBackend('x', {}, c), /x has no open API: set APIFY_TOKEN/);
});

test('Reddit, Mastodon and Bluesky: posts with author, URL, time, engagement, media and links, paged with each API cursor', async () => {
  const c = client();
  try {
    const log: ApiExchange[] = [];
    const r = await reddit(c, api.origin).posts(social('r/Minneapolis'), 110, log);
    assert.equal(r.length, 110);
    assert.deepEqual(
      log.map((x) => [new URL(x.url).searchParams.get('limit'), new URL(x.url).searchParams.get('after')]),
      [
        ['100', null],
        ['10', 't3_p100'],
      ],
      'two pages: 100, then the rest after the last one',
    );
    assert.deepEqual(r[0], {
      text: 'Post 1 in Minneapolis',
      author: 'user1',
      url: `${api.origin}/r/Minneapolis/comments/p1/post_1/`,
      time: new Date((1_700_000_000 + 60) * 1000).toISOString(),
      engagement: { score: 3, comments: 1 },
      media: ['https://i.redd.it/img1.jpg?width=640&s=abc'],
      links: [`${SITE}/linked/1`],
    });
    assert.deepEqual(r[1]!.links, [`${SITE}/posts/2`], 'links in a self post');
    const m = await mastodon(c).posts(social(`${api.origin}/@firesafety`), 22, []);
    assert.equal(m.length, 22);
    assert.match(m[0]!.text, /^Toot 1 #fire read/);
    assert.deepEqual(m[0]!.links, [`${SITE}/toots/1`], 'hashtags and mentions are not links');
    assert.deepEqual(m[0]!.engagement, { replies: 1, reblogs: 2, favourites: 3 });
    assert.deepEqual(m[0]!.media, ['https://files.mastodon.example/m1.png']);
    await assert.rejects(mastodon(c).posts(social(`${api.origin}/@nobody`), 5, []), /HTTP 404: Record not found/);
    const bLog: ApiExchange[] = [];
    const bs = await bluesky(c, api.origin).posts(social('https://bsky.app/profile/fire.bsky.social'), 21, bLog);
    assert.equal(bs.length, 21);
    assert.equal(bs[0]!.url, 'https://bsky.app/profile/fire.bsky.social/post/3k1');
    assert.deepEqual(bs[0]!.links, [`${SITE}/skeets/1`]);
    assert.deepEqual(bs[1]!.media, ['https://cdn.bsky.app/f.jpg']);
    assert.deepEqual(bs[0]!.engagement, { likes: 3, reposts: 2, replies: 1, quotes: 0 });
    await assert.rejects(bluesky(c, api.origin).posts(social('https://bsky.app/profile/missing.bsky.social'), 5, []), /HTTP 400: Profile not found/);
    const found = await bluesky(c, api.origin).search(['#housing', 'Minneapolis'], 3, []);
    assert.equal(found.length, 3);
    assert.match(api.requests.at(-1)!.path, /searchPosts\?q=%23housing\+Minneapolis/);
    const tweets = await apify('x', KEYS.apify, c, {}, api.origin).posts(social('https://x.com/nfpa'), 2, []);
    assert.deepEqual(tweets[1], {
      text: `Tweet 1 ${SITE}/tweets/1`,
      author: 'nfpa',
      url: 'https://x.com/nfpa/status/1',
      time: '2026-11-02T10:00:00.000Z',
      engagement: { likes: 1, replies: 1, reposts: 2 },
      media: [],
      links: [`${SITE}/tweets/1`],
    });
    assert.equal(JSON.parse(api.requests.at(-1)!.body).twitterHandles[0], 'nfpa');
  } finally {
    await c.close();
  }
});

test('rate limits: a 429 waits for Retry-After or the reset header, then retries; an exhausted window waits before the next call', async () => {
  const c = client();
  try {
    waits.length = 0;
    api.limitNext('/r/', 2, { 'retry-after': '3' });
    const log: ApiExchange[] = [];
    const r = await reddit(c, api.origin).posts(social('r/fire'), 5, log);
    assert.equal(r.length, 5);
    assert.deepEqual(
      log.map((x) => x.status),
      [429, 429, 200],
    );
    assert.ok(waits.length >= 2 && waits.every((w) => w >= 2900 && w <= 3000), `waits ${waits.join(', ')}`);
    // Brave says the per-second window is spent (Remaining "0, …", Reset "1, …"): the next call waits about a second.
    waits.length = 0;
    await brave(KEYS.brave, c, api.origin).search('a', 1, []);
    await brave(KEYS.brave, c, api.origin).search('b', 1, []);
    assert.ok(
      waits.some((w) => w > 500 && w <= 1000),
      `waits ${waits.join(', ')}`,
    );
    // A limit longer than the longest wait fails with the time to come back.
    api.limitNext('/xrpc/', 1, { 'RateLimit-Remaining': '0', 'RateLimit-Reset': String(Math.floor(Date.now() / 1000) + 3600) });
    await assert.rejects(bluesky(c, api.origin).posts(social('https://bsky.app/profile/x.bsky.social'), 2, []), /limits requests until .*: try again then/);
  } finally {
    await c.close();
  }
  assert.equal(resetTime('420', 1000), 421_000, 'seconds from now');
  assert.equal(resetTime('1700000000', 0), 1_700_000_000_000, 'epoch seconds');
  assert.equal(resetTime('2026-11-24T10:00:00.000Z', 0), Date.parse('2026-11-24T10:00:00.000Z'), 'a date');
});

test('the address guard: a backend on a private address is refused unless allowed', async () => {
  const c = new ApiClient({ userAgent: 'trawl-test/1', allowPrivateNetwork: false });
  try {
    await assert.rejects(
      reddit(c, api.origin).posts(social('r/fire'), 1, []),
      (e: Error) => e instanceof AddressRefusedError || /refused|private|loopback/i.test(e.message),
    );
  } finally {
    await c.close();
  }
});
