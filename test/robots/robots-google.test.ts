// Parity with Google's robots.txt parser (github.com/google/robotstxt, the de-facto reference)
// where RFC 9309 leaves room and sites rely on Google's reading; the cases mirror the ones its own
// test suite checks. Where the RFC is explicit and Google differs, the RFC is kept (last test).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isPathAllowed, parseRobotsTxt, ROBOTS_MAX_LINE_BYTES } from '../../shared/robots/robots-txt.js';

const allowed = (txt: string, path: string, ua = 'FooBot') => isPathAllowed(parseRobotsTxt(txt, ua), path);

test('a missing colon is accepted when the line is exactly a key and a value', () => {
  assert.equal(allowed('user-agent: FooBot\ndisallow: /\n', '/x/y'), false);
  assert.equal(allowed('user-agent FooBot\ndisallow /\n', '/x/y'), false);
  assert.equal(allowed('foo: FooBot\nbar: /\n', '/x/y'), true, 'unknown keys are no rules');
  assert.equal(allowed('user-agent FooBot\ndisallow / extra\n', '/x/y'), true, 'three words are not a key and a value');
});

test('Sitemap and unknown lines do not end a run of User-agent lines', () => {
  const sitemap = 'User-agent: BarBot\nSitemap: https://foo.bar/sitemap\nUser-agent: *\nDisallow: /\n';
  assert.equal(allowed(sitemap, '/', 'FooBot'), false);
  assert.equal(allowed(sitemap, '/', 'BarBot'), false, 'BarBot shares the group of the * line after the Sitemap line');
  assert.deepEqual(parseRobotsTxt(sitemap, 'x').sitemaps, ['https://foo.bar/sitemap']);
  const unknown = 'User-agent: FooBot\nInvalid-Unknown-Line: unknown\nUser-agent: *\nDisallow: /\n';
  assert.equal(allowed(unknown, '/', 'FooBot'), false);
  assert.equal(allowed(unknown, '/', 'BarBot'), false);
  // Rules do end the run: the next User-agent line opens a new group.
  const groups = 'user-agent: FooBot\ndisallow: /\nallow: /x/\nuser-agent: BarBot\ndisallow: /\nallow: /y/\n';
  assert.equal(allowed(groups, '/x/b'), true);
  assert.equal(allowed(groups, '/y/c'), false);
  assert.equal(allowed(groups, '/y/c', 'BarBot'), true);
});

test("a User-agent value's product token is taken up to the first character that cannot be in one", () => {
  const txt = 'User-Agent: *\nDisallow: /\nUser-Agent: Foo Bar\nAllow: /x/\nDisallow: /\n';
  assert.equal(allowed(txt, '/x/y', 'Foo'), true);
  // GoogleOnly_AcceptUserAgentUpToFirstSpace: a crawler calling itself "Foo Bar" (no valid token) obeys *.
  assert.equal(allowed(txt, '/x/y', 'Foo Bar'), false);
  // A User-Agent header is matched by its product token.
  assert.equal(allowed(txt, '/x/y', 'Foo/1.0 (+https://foo.example/bot)'), true);
  assert.equal(allowed(txt, '/x/y', 'Bar'), false);
  assert.equal(allowed('User-agent: FooBot/2.1\nDisallow: /\n', '/x'), false);
  assert.equal(allowed('User-agent: * everyone\nDisallow: /\n', '/x', 'AnyBot'), false, '* followed by words is still everyone');
  assert.equal(allowed('User-agent: *bot\nDisallow: /\n', '/x', 'AnyBot'), true, '*bot is no product token');
});

test("allowing a directory's index.htm(l) allows the directory itself", () => {
  const txt = 'User-Agent: *\nAllow: /allowed-slash/index.html\nDisallow: /\n';
  assert.equal(allowed(txt, '/allowed-slash/'), true);
  assert.equal(allowed(txt, '/allowed-slash/index.html'), true);
  assert.equal(allowed(txt, '/allowed-slash/index.htm'), false, 'not an exact match');
  assert.equal(allowed(txt, '/allowed-slash/other'), false, 'only the directory, not what is in it');
  assert.equal(allowed(txt, '/anyother-url'), false);
  assert.equal(allowed('User-Agent: *\nDisallow: /\nDisallow: /d/index.html\n', '/d/'), false, 'only Allow lines');
});

test("lines longer than Google's limit are cut there, with the same consequences for long values", () => {
  const max = 2083 * 8;
  assert.equal(ROBOTS_MAX_LINE_BYTES, max - 1);
  // A Disallow line of max + 2 bytes loses its last three: `/qux` becomes `/`, which the longer path still matches.
  const longline = '/x/' + 'a'.repeat(max - 3 - 'disallow: '.length + 1 - 3);
  const cutDisallow = `user-agent: FooBot\ndisallow: ${longline}/qux\n`;
  assert.equal(allowed(cutDisallow, '/fux'), true);
  assert.equal(allowed(cutDisallow, `${longline}/fux`), false, 'the cut value matches the URL it begins');
  // Two Allow lines that differ only in their letters: each is cut, and allows what it begins with.
  const a = '/x/' + 'a'.repeat(max - 3 - 'allow: '.length + 1 - 3);
  const b = '/x/' + 'b'.repeat(a.length - 3);
  const txt = `user-agent: FooBot\ndisallow: /\nallow: ${a}/qux\nallow: ${b}/qux\n`;
  assert.equal(allowed(txt, '/'), false);
  assert.equal(allowed(txt, `${a}/qux`), true);
  assert.equal(allowed(txt, `${b}/fux`), true, 'the cut allow rule matches');
  // The limit counts UTF-8 bytes: a two-byte character the cut would split is dropped whole.
  const wide = `user-agent: FooBot\ndisallow: /${'é'.repeat(max)}\n`;
  const rules = parseRobotsTxt(wide, 'FooBot').rules;
  assert.ok(rules[0]!.pattern.length < 3 * max && !rules[0]!.pattern.includes('%EF%BF%BD'), 'no broken character');
});

test('common misspellings of the keys are read as Google reads them', () => {
  for (const key of ['Disalow', 'dissallow', 'DISSALOW', 'diasllow', 'disallaw'])
    assert.equal(allowed(`User-agent: FooBot\n${key}: /private\n`, '/private/x'), false, key);
  assert.equal(allowed('useragent: FooBot\nDisallow: /\n', '/x'), false);
  assert.equal(allowed('User agent: FooBot\nDisallow: /\n', '/x'), false);
  assert.deepEqual(parseRobotsTxt('Site-map: https://a.test/s.xml\n', 'x').sitemaps, ['https://a.test/s.xml']);
});

test('where RFC 9309 is explicit and Google differs, the RFC holds: unreserved escapes are decoded before comparing', () => {
  // RFC 9309 §2.2.2 compares octets after percent-encoding; %62%61%7A is "baz". Google's parser compares the text as written.
  const txt = 'User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/%62%61%7A\n';
  assert.equal(allowed(txt, '/foo/bar/baz'), true);
  assert.equal(allowed(txt, '/foo/bar/%62%61%7A'), true);
  // Non-ASCII in a rule and in the path are the same octets, encoded or not (Google needs the path encoded).
  const utf = 'User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/ツ\n';
  assert.equal(allowed(utf, '/foo/bar/%E3%83%84'), true);
  assert.equal(allowed(utf, '/foo/bar/ツ'), true);
});
