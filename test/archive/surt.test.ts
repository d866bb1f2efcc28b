// CDXJ keys as pywb and py-wacz canonicalise URLs (the Internet Archive's default SURT): the cases
// follow the rules the surt library's own tests check, written here for trawl's keys.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rekeyCdxjLine, surtKey } from '../../shared/archive/surt.js';

const CASES: Array<[string, string]> = [
  // Host: scheme dropped, lower case, a leading www or www<n> label dropped, labels reversed.
  ['http://www.archive.org/', 'org,archive)/'],
  ['http://archive.org/', 'org,archive)/'],
  ['http://ARCHIVE.ORG/', 'org,archive)/'],
  ['https://www34.archive.org/', 'org,archive)/'],
  ['http://www2foo.com/', 'com,www2foo)/'],
  ['http://www2.www2foo.com/', 'com,www2foo)/'],
  ['http://notrailingslash.com', 'com,notrailingslash)/'],
  // Ports: the scheme's default dropped, any other kept.
  ['http://www.archive.org:80/', 'org,archive)/'],
  ['https://www.archive.org:443/', 'org,archive)/'],
  ['http://www.archive.org:443/', 'org,archive:443)/'],
  ['https://example.com:8443/a', 'com,example:8443)/a'],
  // Path: the trailing slash dropped but for the root, lower case, doubled slashes and dot segments gone.
  ['http://archive.org/goo/', 'org,archive)/goo'],
  ['http://127.0.0.1:4000/rel/more/', '1,0,0,127:4000)/rel/more'],
  ['http://example.com/Foo/Bar.HTML', 'com,example)/foo/bar.html'],
  ['http://host.com//twoslashes?more//slashes', 'com,host)/twoslashes?more//slashes'],
  ['http://www.google.com/blah/..', 'com,google)/'],
  // Query: an empty ? dropped, parameters sorted and lower-cased, session ids dropped.
  ['http://archive.org/goo/?', 'org,archive)/goo'],
  ['http://archive.org/goo/?b&a', 'org,archive)/goo?a&b'],
  ['http://archive.org/goo/?a=2&b&a=1', 'org,archive)/goo?a=1&a=2&b'],
  ['http://www34.archive.org/index.html?b=a&b=b&a=b', 'org,archive)/index.html?a=b&b=a&b=b'],
  ['http://example.com/foo?X=Y', 'com,example)/foo?x=y'],
  ['http://archive.org/index.php?PHPSESSID=0123456789abcdefghijklemopqrstuv&action=profile;u=4221', 'org,archive)/index.php?action=profile;u=4221'],
  ['http://archive.org/a?&b=1', 'org,archive)/a?&b=1'],
  // Fragments dropped; escapes reduced to what must stay escaped.
  ['http://evil.com/foo#bar#baz', 'com,evil)/foo'],
  ['http://host/%25%32%35', 'host)/%25'],
  ['http://host/asdf%25%32%35asd', 'host)/asdf%25asd'],
  ['http://host.com/ab%23cd', 'com,host)/ab%23cd'],
  ['http://host.com/%7Euser/a%20b', 'com,host)/~user/a%20b'],
  ['http://bücher.ch:8080/', 'ch,xn--bcher-kva:8080)/'],
  // Not http(s): kept as it is.
  ['dns:archive.org', 'dns:archive.org'],
  ['urn:pageinfo:http://a.test/', 'urn:pageinfo:http://a.test/'],
];

test('SURT keys follow the canonicalisation pywb and py-wacz look URLs up by', () => {
  for (const [url, key] of CASES) assert.equal(surtKey(url), key, url);
});

test("a CDXJ line is keyed by its url's SURT; its timestamp and JSON stay", () => {
  const json = JSON.stringify({ url: 'http://a.test/rel/', mime: 'text/html', status: '200' });
  assert.equal(rekeyCdxjLine(`test,a)/rel/ 20261128000000 ${json}`), `test,a)/rel 20261128000000 ${json}`);
});
