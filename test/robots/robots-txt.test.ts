import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isPathAllowed, parseRobotsTxt, patternMatches, productToken, ROBOTS_MAX_BYTES } from '../../shared/robots/robots-txt.js';

const allowed = (txt: string, path: string, ua = 'trawl') => isPathAllowed(parseRobotsTxt(txt, ua), path);

test('picks the group of our product token, case-insensitively', () => {
  const txt = 'User-agent: *\nDisallow: /\n\nUser-agent: TRAWL/2.0\nDisallow: /private\n';
  assert.equal(allowed(txt, '/public'), true);
  assert.equal(allowed(txt, '/private/x'), false);
  assert.equal(parseRobotsTxt(txt, 'trawl/0.1 (+https://x)').matchedGroup, 'product');
});

test('merges every group that names our token', () => {
  const txt = 'User-agent: trawl\nDisallow: /a\n\nUser-agent: other\nDisallow: /\n\nUser-agent: Trawl\nDisallow: /b\n';
  assert.equal(allowed(txt, '/a'), false);
  assert.equal(allowed(txt, '/b'), false);
  assert.equal(allowed(txt, '/c'), true);
});

test('lets consecutive user-agent lines share one group', () => {
  const txt = 'User-agent: alpha\nUser-agent: trawl\nDisallow: /shared\n';
  assert.equal(allowed(txt, '/shared'), false);
});

test('falls back to the * group, and allows all when no group matches', () => {
  assert.equal(allowed('User-agent: *\nDisallow: /x\n', '/x'), false);
  assert.equal(allowed('User-agent: other\nDisallow: /\n', '/x'), true);
  assert.equal(parseRobotsTxt('User-agent: other\nDisallow: /\n', 'trawl').matchedGroup, 'none');
});

test('uses the longest match, and Allow wins a tie', () => {
  const txt = 'User-agent: *\nDisallow: /\nAllow: /pub\nDisallow: /pub/secret\nAllow: /page\nDisallow: /page\n';
  assert.equal(allowed(txt, '/pub/x'), true);
  assert.equal(allowed(txt, '/pub/secret/x'), false);
  assert.equal(allowed(txt, '/other'), false);
  assert.equal(allowed(txt, '/page'), true);
});

test('supports * and $ in patterns', () => {
  const txt = 'User-agent: *\nDisallow: /*.pdf$\nDisallow: /a*/b\nDisallow: /*?sessionid=\n';
  assert.equal(allowed(txt, '/doc/x.pdf'), false);
  assert.equal(allowed(txt, '/doc/x.pdf?download=1'), true);
  assert.equal(allowed(txt, '/abc/d/b/e'), false);
  assert.equal(allowed(txt, '/x?sessionid=1'), false);
  assert.equal(allowed(txt, '/x?id=1'), true);
  assert.equal(patternMatches('/fish$', '/fish'), true);
  assert.equal(patternMatches('/fish$', '/fishy'), false);
  assert.equal(patternMatches('/**/*x', '/a/b/x'), true);
});

test('compares paths and patterns as percent-encoded octets', () => {
  assert.equal(allowed('User-agent: *\nDisallow: /foo/%62ar\n', '/foo/bar'), false);
  assert.equal(allowed('User-agent: *\nDisallow: /foo/bar\n', '/foo/%62ar'), false);
  assert.equal(allowed('User-agent: *\nDisallow: /ツ\n', '/%E3%83%84'), false);
  assert.equal(allowed('User-agent: *\nDisallow: /%e3%83%84\n', '/%E3%83%84'), false);
  assert.equal(allowed('User-agent: *\nDisallow: /a%2Fb\n', '/a/b'), true);
});

test('an empty Disallow allows everything', () => {
  assert.equal(allowed('User-agent: *\nDisallow:\n', '/anything'), true);
});

test('always allows /robots.txt', () => {
  assert.equal(allowed('User-agent: *\nDisallow: /\n', '/robots.txt'), true);
});

test('reads Crawl-delay, taking the largest of merged groups', () => {
  assert.equal(parseRobotsTxt('User-agent: *\nCrawl-delay: 2.5\n', 'trawl').crawlDelayMs, 2500);
  assert.equal(parseRobotsTxt('User-agent: trawl\nCrawl-delay: 1\n\nUser-agent: trawl\nCrawl-delay: 3\n', 'trawl').crawlDelayMs, 3000);
  assert.equal(parseRobotsTxt('User-agent: *\nCrawl-delay: soon\n', 'trawl').crawlDelayMs, undefined);
});

test('collects Sitemap lines from anywhere in the file', () => {
  const rules = parseRobotsTxt('Sitemap: https://a.test/s1.xml\nUser-agent: other\nDisallow: /\nSitemap: https://a.test/s2.xml.gz\n', 'trawl');
  assert.deepEqual(rules.sitemaps, ['https://a.test/s1.xml', 'https://a.test/s2.xml.gz']);
});

test('ignores comments, blank lines, BOM, CRLF and rules outside groups', () => {
  const txt = '\uFEFFDisallow: /early\r\n# comment\r\nUser-agent: * # everyone\r\n\r\nDisallow: /x # no x\r\n';
  assert.equal(allowed(txt, '/early'), true);
  assert.equal(allowed(txt, '/x'), false);
});

test('parses only the first 500 KiB', () => {
  const filler = `# ${'x'.repeat(1000)}\n`.repeat(Math.ceil(ROBOTS_MAX_BYTES / 1000));
  const txt = `User-agent: *\nDisallow: /early\n${filler}Disallow: /late\n`;
  assert.equal(allowed(txt, '/early'), false);
  assert.equal(allowed(txt, '/late'), true);
});

test('takes the product token from a User-Agent string', () => {
  assert.equal(productToken('trawl/0.1 (+https://x)'), 'trawl');
  assert.equal(productToken('Googlebot-News'), 'googlebot-news');
});
