import { authorName } from '../../shared/extract/metadata.js';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import { extractPage } from '../../shared/extract/extract-page.js';
import { textQuality } from '../../shared/extract/text-quality.js';
import { robotsDirectives } from '../../shared/extract/robots-meta.js';
import { canonicalize } from '../../shared/url/canonical.js';
import { extractFixture, FIXTURES, fixtureHtml, fixtureTruth } from './fixtures.js';

const opts = { canonicalize: (h: string) => canonicalize(h), robotsToken: 'trawl' };

test('extracts the main text of every fixture at least as well as plain Readability', () => {
  let ours = 0;
  let plain = 0;
  for (const name of FIXTURES) {
    const truth = fixtureTruth(name);
    const q = textQuality(extractFixture(name).text, truth);
    const r = textQuality(new Readability(parseHTML(fixtureHtml(name)).document).parse()?.textContent ?? '', truth);
    assert.ok(q.f1 >= r.f1, `${name}: ${q.f1.toFixed(3)} < plain ${r.f1.toFixed(3)}`);
    assert.ok(q.f1 >= 0.8, `${name}: F1 ${q.f1.toFixed(3)}`);
    ours += q.f1;
    plain += r.f1;
  }
  assert.ok(ours > plain, 'better than plain Readability on the set');
});

test('converts the article to markdown with headings, links and GFM tables', () => {
  const docs = extractFixture('docs-page');
  assert.match(docs.markdown, /^# Configuring retries/);
  assert.match(docs.markdown, /## Options/);
  assert.match(docs.markdown, /\| Option \| Default \| Meaning \|\n\| --- \| --- \| --- \|/);
  assert.match(docs.markdown, /```\nconst client = new Client/);
  assert.match(docs.markdown, /\[Errors\]\(https:\/\/site\.example\/docs\/errors\)/);
  assert.doesNotMatch(docs.markdown, /Installation|Pagination|CC BY/, 'sidebar, nav and footer stay out');
});

test('keeps the body without its furniture when a page has no article', () => {
  const x = extractPage(
    '<html><body><nav><a href="/a">Menu</a></nav><p>Just one short line.</p><footer>Footer text</footer></body></html>',
    'https://a.test/',
    opts,
  );
  assert.equal(x.method, 'body');
  assert.equal(x.text, 'Just one short line.');
});

test('reads metadata with JSON-LD over OpenGraph over Twitter over meta', () => {
  const m = extractFixture('conflict-page').metadata;
  assert.equal(m.title, 'JSON-LD headline wins');
  assert.equal(m.sources.title, 'json-ld');
  assert.equal(m.description, 'OpenGraph description wins over meta');
  assert.equal(m.published, '2026-03-01');
  assert.equal(m.canonicalUrl, 'https://blog.example/canonical-from-json-ld');
  assert.equal(m.siteName, 'OG Site');
  // Twitter's creator is a handle, not a name: the next source's name wins.
  assert.equal(m.author, 'Meta Author');
  assert.equal(m.sources.author, 'meta');
  assert.equal(m.contentType, 'BlogPosting');
});

test('an author is a name or nothing: a byline lead-in dropped; URLs, handles, sentences and placeholders refused', () => {
  const cases: Array<[string, string | undefined]> = [
    ['View all posts by Jane Doe', 'Jane Doe'],
    ['By John Smith', 'John Smith'],
    ['Posted by Li Wei', 'Li Wei'],
    ['by Anna Karenina and Leo Tolstoy', 'Anna Karenina and Leo Tolstoy'],
    ['Jane Doe, John Smith', 'Jane Doe, John Smith'],
    ['María José García', 'María José García'],
    ['Dr. Jane O’Neil', 'Dr. Jane O’Neil'],
    ['Jane Doe | Staff Writer', 'Jane Doe'],
    ['https://example.com/author/jane', undefined],
    ['@jdoe', undefined],
    ['admin', undefined],
    ['2024-05-01', undefined],
    ['This article was written by our team of experts in the field', undefined],
  ];
  for (const [raw, name] of cases) assert.equal(authorName(raw), name, raw);
  // On a page: a byline that is a link to all the author's posts gives the name.
  const page = extractPage(
    '<html><head><title>T</title></head><body><article><h1>T</h1><a rel="author" href="/author/jane">View all posts by Jane Doe</a><p>Some text of the article, long enough to be its body.</p></article></body></html>',
    'https://a.test/post',
    opts,
  );
  assert.equal(page.metadata.author, 'Jane Doe');
});

test('reads news and product metadata, word count and reading time', () => {
  const news = extractFixture('news-article').metadata;
  assert.deepEqual(
    [news.title, news.author, news.published, news.modified, news.siteName, news.contentType, news.language],
    [
      'City council approves riverside park plan',
      'Maria Lopez',
      '2026-10-04T08:30:00.000Z',
      '2026-10-05T10:00:00.000Z',
      'The Daily Ledger',
      'NewsArticle',
      'en-GB',
    ],
  );
  assert.ok(news.wordCount > 250 && news.wordCount < 330, String(news.wordCount));
  assert.equal(news.readingTimeMinutes, Math.round(news.wordCount / 230));
  const product = extractFixture('product-page').metadata;
  assert.deepEqual([product.title, product.contentType, product.siteName, product.language], ['Trailrunner 3 Laufschuh', 'Product', 'Outdoorladen', 'de']);
  const docs = extractFixture('docs-page').metadata;
  assert.deepEqual([docs.author, docs.description, docs.sources.title], ['Widget SDK team', 'How the Widget SDK retries failed requests.', 'meta']);
});

test('decodes a windows-1252 page declared in <meta>', () => {
  const x = extractFixture('windows-1252');
  assert.equal(x.title, 'Café – menü');
  assert.match(x.text, /Frühstück .* Preise in €/);
});

test('honours meta robots and X-Robots-Tag', () => {
  const html = '<html><head><meta name="robots" content="noindex"></head><body><p>x</p></body></html>';
  assert.deepEqual([extractPage(html, 'https://a.test/', opts).noindex, extractPage(html, 'https://a.test/', opts).nofollow], [true, false]);
  const viaHeader = extractPage('<p>x</p>', 'https://a.test/', { ...opts, xRobotsTag: 'nofollow' });
  assert.equal(viaHeader.nofollow, true);
});

test('hashes normalised text, so markup changes keep the text hash', () => {
  const a = extractPage(
    '<html><body><article><p>The same words in a paragraph, long enough to matter for the extractor to keep them.</p></article></body></html>',
    'https://a.test/1',
    opts,
  );
  const b = extractPage(
    '<html><body><div class="x"><p>The same   words in a paragraph, long enough to matter for the extractor to keep them.</p></div><script>var x=1</script></body></html>',
    'https://a.test/2',
    opts,
  );
  assert.equal(a.textHash, b.textHash);
  assert.equal(a.simhash, b.simhash);
});

test('parses robots directives, including agent-scoped X-Robots-Tag', () => {
  assert.deepEqual(robotsDirectives('noindex', 'trawl'), { noindex: true, nofollow: false });
  assert.deepEqual(robotsDirectives('none', 'trawl'), { noindex: true, nofollow: true });
  assert.deepEqual(robotsDirectives('otherbot: noindex, nofollow', 'trawl'), { noindex: false, nofollow: false });
  assert.deepEqual(robotsDirectives('trawl: nofollow', 'trawl'), { noindex: false, nofollow: true });
  const forUs = extractPage('<head><meta name="trawl" content="nofollow"><meta name="otherbot" content="noindex"></head><p>x</p>', 'https://a.test/', opts);
  assert.deepEqual([forUs.noindex, forUs.nofollow], [false, true]);
});

test('resolves links against <base href> and survives malformed HTML', () => {
  const based = extractPage('<head><base href="http://cdn.test/root/"></head><body><p><a href="x">x</a></p></body>', 'http://a.test/p', opts);
  assert.equal(based.links[0]!.url, 'http://cdn.test/root/x');
  const broken = extractPage('<a href="/x">unclosed <div><a href="/y">y</p></b>', 'http://a.test/', opts);
  assert.deepEqual(
    broken.links.map((l) => l.url),
    ['http://a.test/x', 'http://a.test/y'],
  );
  const feeds = extractPage(
    '<head><link rel="alternate" type="application/rss+xml" href="/feed.xml"><link rel="canonical" href="/real"></head>',
    'http://a.test/p?print=1',
    opts,
  );
  assert.deepEqual([feeds.feeds, feeds.linkCanonical], [['http://a.test/feed.xml'], 'http://a.test/real']);
});

test('a part that fails degrades only itself and is recorded on the extraction', () => {
  const x = extractPage(
    `<html><head><title>T</title>
      <script type="application/ld+json">{"@type": "NewsArticle", "headline": oops}</script>
      <meta property="article:published_time" content="the day after tomorrow">
    </head><body><article><h1>Headline</h1>
      <p>${'A paragraph of real prose, with commas, that reads like an article. '.repeat(6)}</p>
      <p>See <a href="/next">the next story</a> for more.</p></article></body></html>`,
    'https://a.test/story',
    opts,
  );
  assert.deepEqual(
    x.problems?.map((p) => p.part),
    ['json-ld', 'date'],
  );
  assert.match(x.problems![1]!.error, /published "the day after tomorrow" \(from opengraph\) is not a date/);
  assert.equal(x.metadata.published, undefined);
  assert.equal(x.title, 'T');
  assert.deepEqual(
    x.links.map((l) => l.url),
    ['https://a.test/next'],
  );
  assert.match(x.text, /^Headline\nA paragraph of real prose/);
});

test('writes markdown people use downstream: headings, nested lists, code, flattened nested tables, absolute links, no empty links', () => {
  const prose = 'Words that make this block read like an article, with enough length to count. '.repeat(4);
  const x = extractPage(
    `<html><body><main><article>
      <h1>Guide</h1><p>${prose}</p>
      <h2>Steps</h2>
      <ol><li>First <strong>step</strong><ul><li>sub a</li><li>sub b</li></ul></li><li>Second step</li></ol>
      <pre><code class="language-js">const a = 1;\n\nconsole.log(a);</code></pre>
      <table><tr><th>Name</th><th>Value</th></tr>
        <tr><td>outer</td><td><table><tr><td>inner 1</td><td>inner 2</td></tr></table></td></tr></table>
      <p>Read <a href="/docs/more">the docs</a>, <a href="/empty"></a> <img src="/img/a.png" alt="A chart"> ${prose}</p>
      <p></p><p></p><p>${prose}</p>
    </article></main></body></html>`,
    'https://a.test/guide/',
    opts,
  );
  const md = x.markdown;
  assert.match(md, /^# Guide\n\n/);
  assert.match(md, /\n## Steps\n\n1\. First \*\*step\*\*\n {2}- sub a\n {2}- sub b\n2\. Second step\n/);
  assert.match(md, /```js\nconst a = 1;\n\nconsole\.log\(a\);\n```/);
  assert.match(md, /\| Name \| Value \|\n\| --- \| --- \|\n\| outer \| inner 1 inner 2 \|/);
  assert.match(md, /\[the docs\]\(https:\/\/a\.test\/docs\/more\)/);
  assert.match(md, /!\[A chart\]\(https:\/\/a\.test\/img\/a\.png\)/);
  assert.doesNotMatch(md, /\[\]\(/, 'no empty links');
  assert.doesNotMatch(md, /\n{3,}/, 'no runs of blank lines');
});

test('a page written without <html>, <head> and <body> (all optional in HTML) has its title and text', () => {
  const text = Array.from({ length: 30 }, (_, i) => `Sentence ${i} tells of herons by the pond number ${i * 7}.`).join(' ');
  for (const html of [
    `<!doctype html><title>Herons</title><meta name="description" content="About herons"><main><h1>Herons</h1><p>${text}</p></main>`,
    `<html><head><title>Herons</title></head><main><h1>Herons</h1><p>${text}</p></main></html>`,
    `<title>Herons</title><h1>Herons</h1><p>${text}</p>`,
  ]) {
    const x = extractPage(html, 'https://ponds.example/herons', opts);
    assert.equal(x.title, 'Herons', html.slice(0, 60));
    assert.match(x.text, /^Herons\s+Sentence 0 tells of herons/, html.slice(0, 60));
    assert.ok(x.text.split(/\s+/).length > 200, `${x.text.length} characters: ${html.slice(0, 60)}`);
  }
});
