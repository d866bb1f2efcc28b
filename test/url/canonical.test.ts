import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { canonicalize, hostKey, normalizePercentEncoding, sameUrl, sortedQueryForm, urlId } from '../../shared/url/canonical.js';

test('lower-cases scheme and host and drops the default port', () => {
  assert.equal(canonicalize('HTTP://Example.COM:80/Path'), 'http://example.com/Path');
  assert.equal(canonicalize('https://example.com:443/'), 'https://example.com/');
  assert.equal(canonicalize('https://example.com:8443/'), 'https://example.com:8443/');
});

test('converts IDN hosts to punycode', () => {
  assert.equal(canonicalize('http://bücher.example/'), 'http://xn--bcher-kva.example/');
});

test('drops the fragment and resolves dot segments', () => {
  assert.equal(canonicalize('http://a.test/x/./y/../z#frag'), 'http://a.test/x/z');
  assert.equal(canonicalize('../up', 'http://a.test/a/b/c'), 'http://a.test/a/up');
});

test('normalises percent-encoding: unreserved decoded, hex upper-cased', () => {
  assert.equal(canonicalize('http://a.test/%7Euser/%41%2f?q=%e2%82%ac'), 'http://a.test/~user/A%2F?q=%E2%82%AC');
  assert.equal(normalizePercentEncoding('%61%3a'), 'a%3A');
});

test('keeps the query as written and drops tracking and session parameters', () => {
  assert.equal(canonicalize('http://a.test/p?b=2&utm_source=x&a=1&gclid=z&fbclid=y&UTM_Medium=m'), 'http://a.test/p?b=2&a=1');
  assert.equal(canonicalize('http://a.test/p?PHPSESSID=abc&x=1&sid=9'), 'http://a.test/p?x=1');
  assert.equal(canonicalize('http://a.test/p;jsessionid=ABC123?x=1'), 'http://a.test/p?x=1');
  assert.equal(canonicalize('http://a.test/p?utm_source=x'), 'http://a.test/p');
});

test('a query in another order is the same URL: one id, and the same sorted form', () => {
  assert.equal(canonicalize('http://a.test/?t=2&t=1'), 'http://a.test/?t=2&t=1');
  assert.equal(sortedQueryForm('http://a.test/?t=2&t=1'), 'http://a.test/?t=1&t=2');
  assert.equal(sortedQueryForm('http://a.test/p?b=2&a=1&a'), 'http://a.test/p?a&a=1&b=2');
  assert.equal(urlId('http://a.test/p?b=2&a=1'), urlId('http://a.test/p?a=1&b=2'));
  assert.notEqual(urlId('http://a.test/p?b=2&a=1'), urlId('http://a.test/p?b=1&a=2'));
  assert.ok(sameUrl('http://a.test/p?b=2&a=1', 'http://a.test/p?a=1&b=2'));
  assert.ok(!sameUrl('http://a.test/p?a=1', 'http://a.test/q?a=1'));
  // The id of a URL with its query sorted is what it always was: stores written before keep their keys.
  assert.equal(urlId('http://a.test/p?a=1&b=2'), createHash('sha256').update('http://a.test/p?a=1&b=2').digest('hex').slice(0, 32));
});

test('takes configurable parameter lists', () => {
  const opts = { trackingParams: ['ref'], sessionParams: [] };
  assert.equal(canonicalize('http://a.test/?ref=x&utm_source=y', undefined, opts), 'http://a.test/?utm_source=y');
});

test('refuses anything but absolute http(s) URLs', () => {
  for (const bad of ['mailto:a@b.c', 'javascript:void(0)', 'ftp://a.test/', 'not a url', 'tel:123', 'data:text/plain,hi']) {
    assert.equal(canonicalize(bad), null, bad);
  }
});

test('derives a stable page id from the canonical URL', () => {
  const a = urlId(canonicalize('HTTP://A.test:80/x?b=1&a=2#f')!);
  const b = urlId(canonicalize('http://a.test/x?a=2&b=1')!);
  assert.equal(a, b);
  assert.match(a, /^[0-9a-f]{32}$/);
  assert.notEqual(a, urlId('http://a.test/y'));
});

test('keys politeness by host and port', () => {
  assert.equal(hostKey('http://127.0.0.1:8080/x'), '127.0.0.1:8080');
  assert.equal(hostKey('https://a.test/x'), 'a.test');
});
