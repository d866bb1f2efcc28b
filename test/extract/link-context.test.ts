import { test } from 'node:test';
import assert from 'node:assert/strict';
import { contextWindow, extractLinks } from '../../shared/extract/link-context.js';
import { parseDocument } from '../../shared/extract/dom.js';
import { canonicalize } from '../../shared/url/canonical.js';
import { extractFixture } from './fixtures.js';

const links = (html: string, url = 'https://www.site.example/page') => extractLinks(parseDocument(html), url, { canonicalize: (h) => canonicalize(h) });

test('gives each link its anchor text, context, section, rel and internal flag', () => {
  const news = extractFixture('news-article', 'https://news.example/news/2026/10/riverside-park');
  const survey = news.links.find((l) => l.url === 'https://news.example/news/2026/09/residents-survey')!;
  assert.equal(survey.anchorText, "the residents' survey");
  assert.equal(survey.section, 'body', 'the body mention wins over the related-stories one');
  assert.match(survey.context, /listened to the residents' survey published last month/);
  assert.ok(survey.context.length <= 210);
  assert.equal(survey.internal, true);
  const parks = news.links.find((l) => l.url.startsWith('https://parks.example.gov'))!;
  assert.deepEqual([parks.rel, parks.internal], [['nofollow'], false]);
  const sections = (url: string) => news.links.find((l) => l.url === url)?.section;
  assert.equal(sections('https://news.example/sport'), 'nav');
  assert.equal(sections('https://news.example/news/2026/10/bridge'), 'sidebar');
  assert.equal(sections('https://news.example/about'), 'footer');
  assert.equal(sections('https://news.example/'), 'header');
});

test('drops fragments, javascript:, mailto:, tel: and self-links; keeps one row per target', () => {
  const out = links(`<a href="#top">t</a><a href="javascript:go()">j</a><a href="mailto:a@b.c">m</a><a href="tel:+1">p</a>
    <a href="/page">self</a><a href="/page#section">self with fragment</a><a href="ftp://x/">ftp</a>
    <nav><a href="/x">X in nav</a></nav><p>Read <a href="/x?utm_source=a">about x</a> in the body.</p>`);
  assert.deepEqual(
    out.map((l) => [l.url, l.section, l.anchorText]),
    [['https://www.site.example/x', 'body', 'about x']],
  );
});

test('uses alt text for image links and counts subdomains of the site as internal', () => {
  const out = links('<p><a href="https://cdn.site.example/i"><img src="a.png" alt="Company logo"></a></p>');
  assert.deepEqual([out[0]!.anchorText, out[0]!.internal], ['Company logo', true]);
});

test('keeps at most 500 links after de-duplication', () => {
  const html = Array.from({ length: 700 }, (_, i) => `<a href="/p${i % 600}">p${i}</a>`).join(' ');
  assert.equal(links(html).length, 500);
});

test('centres about 200 characters of context on the link, or keeps a short block whole', () => {
  assert.equal(contextWindow('short block with a link', 'link'), 'short block with a link');
  const long = `${'before '.repeat(60)}THE LINK${' after'.repeat(60)}`;
  const w = contextWindow(long, 'THE LINK');
  assert.ok(w.length <= 200 && w.length > 150);
  assert.ok(w.includes('THE LINK'));
  const idx = w.indexOf('THE LINK');
  assert.ok(Math.abs(idx - (w.length - idx - 8)) < 20, 'roughly centred');
});
