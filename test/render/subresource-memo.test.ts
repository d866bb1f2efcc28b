// The renderer's memory of the scripts, styles and fonts its pages received: kept only where HTTP
// lets a cache keep a response, fresh for its max-age, bounded in bytes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SubresourceMemo } from '../../shared/render/subresource-memo.js';

const js = { 'content-type': 'application/javascript', 'content-encoding': 'gzip', 'content-length': '99' };
const HOST = 'a.test';
const keep = (memo: SubresourceMemo, url: string, headers: Record<string, string>, body = Buffer.from('x()'), type = 'script') => {
  if (!memo.wants(HOST, url, { method: 'GET', resourceType: type, status: 200, headers })) return false;
  memo.remember(HOST, url, 200, headers, body);
  return true;
};

test('a script is kept and given back with its headers, less those of the wire; media and other types are not kept', () => {
  const memo = new SubresourceMemo();
  assert.equal(keep(memo, 'http://a.test/app.js', { ...js, 'cache-control': 'public, max-age=3600' }), true);
  const back = memo.recall(HOST, 'http://a.test/app.js', 'script');
  assert.deepEqual(back?.headers, { 'content-type': 'application/javascript', 'cache-control': 'public, max-age=3600' });
  assert.equal(back?.body.toString(), 'x()');
  assert.equal(memo.recall(HOST, 'http://a.test/app.js', 'xhr'), undefined, 'an XHR to the same URL asks the site');
  assert.equal(keep(memo, 'http://a.test/a.png', {}, Buffer.from('png'), 'image'), false);
  assert.equal(memo.wants(HOST, 'http://a.test/b.js', { method: 'POST', resourceType: 'script', status: 200, headers: {} }), false);
  assert.equal(memo.wants(HOST, 'http://a.test/b.js', { method: 'GET', resourceType: 'script', status: 206, headers: {} }), false);
});

test('what HTTP forbids a cache to keep is not kept: no-store, no-cache, private, a Vary past Accept-Encoding', () => {
  const memo = new SubresourceMemo();
  for (const cacheControl of ['no-store', 'no-cache', 'private, max-age=60', 'max-age=0', 'public, max-age=0'])
    assert.equal(keep(memo, `http://a.test/${cacheControl}.js`, { 'cache-control': cacheControl }), false, cacheControl);
  assert.equal(keep(memo, 'http://a.test/p.js', { pragma: 'no-cache' }), false);
  assert.equal(keep(memo, 'http://a.test/v.js', { vary: 'Cookie' }), false);
  assert.equal(keep(memo, 'http://a.test/e.js', { vary: 'Accept-Encoding' }), true);
  assert.equal(keep(memo, 'http://a.test/none.js', {}), true, 'no freshness given: kept for the crawl, as a browser would');
});

test('a kept response is given back only while fresh (s-maxage before max-age)', () => {
  let now = 1_000_000;
  const memo = new SubresourceMemo(undefined, undefined, () => now);
  keep(memo, 'http://a.test/short.js', { 'cache-control': 'max-age=10' });
  keep(memo, 'http://a.test/shared.js', { 'cache-control': 'max-age=10, s-maxage=100' });
  now += 9_000;
  assert.ok(memo.recall(HOST, 'http://a.test/short.js', 'script'));
  now += 2_000;
  assert.equal(memo.recall(HOST, 'http://a.test/short.js', 'script'), undefined);
  assert.ok(memo.recall(HOST, 'http://a.test/shared.js', 'script'));
});

test('bounded in bytes: the least recently used goes first, and a body over the entry bound is not kept', () => {
  const memo = new SubresourceMemo(300, 150);
  const body = Buffer.alloc(100);
  for (const name of ['a', 'b', 'c']) keep(memo, `http://a.test/${name}.js`, {}, body);
  assert.ok(memo.recall(HOST, 'http://a.test/a.js', 'script'), 'a, used now, is the most recent');
  keep(memo, 'http://a.test/d.js', {}, body);
  assert.equal(memo.recall(HOST, 'http://a.test/b.js', 'script'), undefined, 'b, the least recently used, went');
  assert.ok(memo.recall(HOST, 'http://a.test/a.js', 'script'));
  assert.ok(memo.recall(HOST, 'http://a.test/d.js', 'script'));
  keep(memo, 'http://a.test/big.js', {}, Buffer.alloc(200));
  assert.equal(memo.recall(HOST, 'http://a.test/big.js', 'script'), undefined);
});

test("a response belongs to the host of the page that received it: another host's pages are not answered from it", () => {
  const memo = new SubresourceMemo();
  keep(memo, 'http://cdn.test/lib.js', { 'cache-control': 'public, max-age=3600' });
  assert.ok(memo.recall(HOST, 'http://cdn.test/lib.js', 'script'));
  assert.equal(memo.recall('b.test', 'http://cdn.test/lib.js', 'script'), undefined);
  assert.equal(
    memo.wants('b.test', 'http://cdn.test/lib.js', { method: 'GET', resourceType: 'script', status: 200, headers: {} }),
    true,
    'b.test keeps its own',
  );
});
