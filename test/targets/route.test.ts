import { test } from 'node:test';
import assert from 'node:assert/strict';
import { routeTarget } from '../../shared/targets/route.js';
import { UsageError } from '../../shared/errors.js';

const ROWS: Array<[string, Record<string, unknown>]> = [
  ['https://example.com/page', { kind: 'url', url: 'https://example.com/page', key: 'https://example.com/page' }],
  ['  HTTP://Example.com:80/a?utm_source=x  ', { kind: 'url', url: 'http://example.com/a' }],
  ['example.com/about', { kind: 'url', url: 'https://example.com/about' }],
  [
    'search:fire sprinkler inspection Minneapolis',
    { kind: 'search', query: 'fire sprinkler inspection Minneapolis', key: 'search:fire sprinkler inspection minneapolis' },
  ],
  ['affordable housing  Minneapolis', { kind: 'search', query: 'affordable housing Minneapolis', key: 'search:affordable housing minneapolis' }],
  ['NFPA 25: inspection', { kind: 'search', key: 'search:nfpa 25: inspection' }],
  ['sprinklers', { kind: 'search', key: 'search:sprinklers' }],
  ['r/Minneapolis', { kind: 'social', platform: 'reddit', scope: 'subreddit', name: 'Minneapolis', key: 'reddit:r/minneapolis' }],
  ['/r/Minneapolis/', { kind: 'social', platform: 'reddit', scope: 'subreddit', key: 'reddit:r/minneapolis' }],
  ['u/spez', { kind: 'social', platform: 'reddit', scope: 'user', name: 'spez', key: 'reddit:u/spez' }],
  ['https://www.reddit.com/r/Minneapolis/', { kind: 'social', platform: 'reddit', scope: 'subreddit', key: 'reddit:r/minneapolis' }],
  ['https://old.reddit.com/user/spez', { kind: 'social', platform: 'reddit', scope: 'user', key: 'reddit:u/spez' }],
  ['https://www.reddit.com/r/Minneapolis/comments/abc/title/', { kind: 'url' }],
  [
    'https://mastodon.social/@Gargron',
    { kind: 'social', platform: 'mastodon', name: 'Gargron', instance: 'https://mastodon.social', key: 'mastodon:gargron@mastodon.social' },
  ],
  ['https://bsky.app/profile/jay.bsky.team', { kind: 'social', platform: 'bluesky', name: 'jay.bsky.team', key: 'bluesky:jay.bsky.team' }],
  ['https://x.com/NFPA', { kind: 'social', platform: 'x', name: 'NFPA', key: 'x:nfpa' }],
  ['https://twitter.com/NFPA', { kind: 'social', platform: 'x', key: 'x:nfpa' }],
  ['https://x.com/search', { kind: 'url' }],
  ['https://www.instagram.com/nfpa/', { kind: 'social', platform: 'instagram', key: 'instagram:nfpa' }],
  ['https://www.instagram.com/p/Cxyz/', { kind: 'url' }],
  ['https://www.tiktok.com/@nfpa', { kind: 'social', platform: 'tiktok', name: 'nfpa', key: 'tiktok:nfpa' }],
];

test('the routing table: URLs, queries and social accounts, recognised without a request, each with its normalised key', () => {
  for (const [input, expected] of ROWS) {
    const got = routeTarget(input) as unknown as Record<string, unknown>;
    for (const [k, v] of Object.entries(expected)) assert.deepEqual(got[k], v, `${input}: ${k} = ${JSON.stringify(got[k])}`);
  }
  // The same target written two ways has one key (the archive's lookup key).
  assert.equal(routeTarget('r/minneapolis').key, routeTarget('https://reddit.com/r/Minneapolis').key);
  assert.equal(routeTarget('search:Affordable   Housing').key, routeTarget('affordable housing').key);
});

test('bad targets get a clear error naming the problem and what to write', () => {
  const bad: Array<[string, RegExp]> = [
    ['', /empty target: give a URL .* a search query .* or an account/],
    ['   \n\t ', /empty target/],
    ['x'.repeat(10_000), /the target is 10000 characters; a URL or a query is at most 2048/],
    ['ftp://example.com/file', /ftp: URLs are not fetched: give an http\(s\) URL, or write search:ftp:\/\/example.com\/file/],
    ['javascript:alert(1)', /javascript: URLs are not fetched/],
    ['file:///etc/passwd', /file: URLs are not fetched/],
    ['search:   ', /search: needs words after it/],
  ];
  for (const [input, message] of bad) {
    assert.throws(
      () => routeTarget(input),
      (e: Error) => e instanceof UsageError && message.test(e.message),
      input.slice(0, 40),
    );
  }
});
