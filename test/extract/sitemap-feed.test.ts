import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { maybeGunzip, parseSitemap } from '../../shared/extract/sitemap.js';
import { parseFeed } from '../../shared/extract/feed.js';

test('parses a sitemap index', () => {
  const s = parseSitemap(
    '<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>https://a.test/s1.xml.gz</loc></sitemap><sitemap><loc> https://a.test/s2.xml </loc></sitemap></sitemapindex>',
  );
  assert.equal(s.kind, 'index');
  assert.deepEqual(
    s.entries.map((e) => e.loc),
    ['https://a.test/s1.xml.gz', 'https://a.test/s2.xml'],
  );
});

test('parses a gzipped urlset with lastmod and entities', () => {
  const xml =
    '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>https://a.test/?a=1&amp;b=2</loc><lastmod>2026-11-01</lastmod></url><url><loc>https://a.test/x</loc></url></urlset>';
  const s = parseSitemap(maybeGunzip(gzipSync(xml), 1 << 20).toString());
  assert.equal(s.kind, 'urlset');
  assert.deepEqual(s.entries, [{ loc: 'https://a.test/?a=1&b=2', lastmod: '2026-11-01' }, { loc: 'https://a.test/x' }]);
});

test('refuses to inflate a gzipped sitemap past the cap', () => {
  assert.throws(() => maybeGunzip(gzipSync(Buffer.alloc(2 << 20)), 1 << 20));
});

test('accepts a plain-text sitemap', () => {
  assert.deepEqual(
    parseSitemap('https://a.test/1\nhttps://a.test/2\n').entries.map((e) => e.loc),
    ['https://a.test/1', 'https://a.test/2'],
  );
});

test('parses RSS 2.0 items', () => {
  const f = parseFeed(
    '<rss version="2.0"><channel><title>T</title><item><title>One</title><link>https://a.test/1</link><pubDate>Mon, 02 Nov 2026 10:00:00 GMT</pubDate></item><item><guid>https://a.test/2</guid></item></channel></rss>',
    'https://a.test/feed',
  );
  assert.equal(f.format, 'rss');
  assert.equal(f.title, 'T');
  assert.deepEqual(f.items, [
    { url: 'https://a.test/1', title: 'One', published: 'Mon, 02 Nov 2026 10:00:00 GMT' },
    { url: 'https://a.test/2', title: undefined, published: undefined },
  ]);
});

test('parses Atom entries with relative links', () => {
  const f = parseFeed(
    '<feed xmlns="http://www.w3.org/2005/Atom"><title>A</title><entry><title>E</title><link rel="alternate" href="/e1"/><link rel="edit" href="/edit"/><updated>2026-11-01T00:00:00Z</updated></entry></feed>',
    'https://a.test/atom',
  );
  assert.equal(f.format, 'atom');
  assert.deepEqual(f.items, [{ url: 'https://a.test/e1', title: 'E', published: '2026-11-01T00:00:00Z' }]);
});

test('parses JSON Feed items', () => {
  const f = parseFeed(
    JSON.stringify({
      version: 'https://jsonfeed.org/version/1.1',
      title: 'J',
      items: [{ id: '1', url: 'https://a.test/j1', title: 'J1', date_published: '2026-11-01' }],
    }),
    'https://a.test/feed.json',
  );
  assert.equal(f.format, 'json');
  assert.deepEqual(f.items, [{ url: 'https://a.test/j1', title: 'J1', published: '2026-11-01' }]);
});
