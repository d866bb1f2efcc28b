import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseDocument, selectFirst } from '../../shared/extract/dom.js';
import { blockText, mainContentNodes, mainContentText } from '../../shared/extract/main-content.js';
import { withContentRules } from '../../shared/extract/content-rules.js';
import { extractPage } from '../../shared/extract/extract-page.js';
import { isDateline } from '../../shared/extract/dateline.js';
import { prose } from '../../support/web/pages.js';

function mainText(html: string): string {
  return blockText(mainContentNodes(parseDocument(html)).nodes);
}

const paragraphs = (n: number, seed = 0) => Array.from({ length: n }, (_, i) => `<p>${prose(seed + i, 45)}, and so on.</p>`).join('');
const nav = '<nav><a href="/a">Home</a> <a href="/b">World</a> <a href="/c">Sport</a></nav>';

test('recognises datelines in many languages and leaves sentences with dates alone', () => {
  for (const line of [
    'Donnerstag, 31. Mai 2012',
    'asked Feb 6, 2014 at 20:37',
    'Publikacja: 04.05.2021',
    '15. Mai 2019, 05:28 Uhr',
    '4 maja 2021',
    'publié le 3 mars 2020',
    'opublikowano: 2021-04-29 17:13:04.031886+02:00',
  ])
    assert.ok(isDateline(line), line);
  for (const line of [
    'The meeting on May 4 was long and nobody enjoyed it.',
    'Lieferzeit: 15 - 21 Tag(e)',
    '1968 bis heute Knabenmusik in der Gemeinde',
    'Veröffentlichung:',
  ])
    assert.equal(isDateline(line), false, line);
});

test('keeps the headline, the standfirst and a lead-marked intro outside the body container; drops the dateline', () => {
  const html = `<html><body>${nav}<div class="page"><header><h1>Rivers rise after the storm</h1>
    <p class="meta">Published 4 May 2021, 17:13</p>
    <p>Towns along the valley prepare for the highest water in forty years.</p></header>
    <div class="intro-box"><div class="lead">Officials warned residents on Sunday to move to higher ground.</div></div>
    <div class="article-body">${paragraphs(6)}</div></div>
    <footer>Contact us</footer></body></html>`;
  const text = mainText(html);
  assert.match(text, /^Rivers rise after the storm\n/);
  assert.match(text, /Towns along the valley prepare/);
  assert.match(text, /Officials warned residents/);
  assert.doesNotMatch(text, /Published 4 May/);
  assert.doesNotMatch(text, /Home|Contact us/);
});

test('keeps a long closing paragraph with a few links, drops a short link line after the article', () => {
  const closing = `<p>${prose(50, 30)} as <a href="/x">the ministry of water and rivers</a> and <a href="/y">its partners in the valley towns</a> wrote in <a href="/z">their joint report on the flood</a>, ${prose(51, 8)}.</p>`;
  const text = mainText(
    `<html><body>${nav}<article><h1>Title</h1>${paragraphs(5)}${closing}<p><a href="/more">More from this author</a></p></article></body></html>`,
  );
  assert.match(text, /the ministry of water and rivers and its partners in the valley towns wrote/);
  assert.doesNotMatch(text, /More from this author/);
});

test('a content area that is itself a list of links is kept, not cleaned away', () => {
  const items = Array.from({ length: 12 }, (_, i) => `<li><a href="/l${i}">${prose(i, 6)}</a><p>via example ${i}</p></li>`).join('');
  const text = mainText(
    `<html><body>${nav}<div class="entry-content"><h2>Reading list</h2><ul class="linkroll">${items}</ul></div><footer>Footer</footer></body></html>`,
  );
  assert.ok(text.length > 200, text);
  assert.match(text, /via example 11/);
});

test('reads an article published inside <noscript> and body content that strayed into <head>', () => {
  const noscript = mainText(`<html><body><div id="app"></div><div class="post-body"><noscript>${paragraphs(4)}</noscript></div></body></html>`);
  assert.ok(noscript.length > 400, noscript);
  const doc = parseDocument(`<html><head><title>t</title><div class="container"><h1>Gute Löhne</h1>${paragraphs(3)}</div></head></html>`);
  assert.ok(selectFirst(doc, 'body h1'), 'the content is moved into a body');
  assert.equal(selectFirst(doc, 'head div'), null);
  assert.match(blockText(mainContentNodes(doc).nodes), /^Gute Löhne\n/);
});

test('reads an article that comes after </body> or </html>, as a browser puts it at the end of the body', () => {
  for (const close of ['</body>', '</body></html>']) {
    const html = `<html><head><title>t</title></head><body>${nav}<div class="menu"><a href="/x">Services</a></div>${close}<div class="blog-detail-page"><h1>Six types of outsourcing</h1>${paragraphs(5)}</div>`;
    const doc = parseDocument(html);
    assert.ok(selectFirst(doc, 'body .blog-detail-page'), `${close}: moved into the body`);
    assert.match(mainText(html), new RegExp(prose(3, 45).slice(0, 40)), close);
  }
});

test('reads a thread a forum serves inside <noscript> (its posts deeper than the noscript’s children), and not a noscript warning', () => {
  // As Discourse serves a topic: an empty app, and the whole thread for readers without scripts.
  const post = (n: number, text: string) =>
    `<div id="post_${n}" class="topic-body crawler-post"><div class="crawler-post-meta"><span itemprop="author">user${n}</span><time>January ${n}, 2024</time></div><div class="post" itemprop="text">${text}</div></div>`;
  const thread = `<html><body><section id="main"></section><noscript data-path="/t/chains/1"><header><a href="/">Community</a></header><div id="main-outlet" class="wrap" role="main"><h1>How to request the longer chain?</h1>
    ${post(1, `<p>${prose(1, 40)}</p>`)}${post(2, `<p>${prose(2, 30)}</p><p>${prose(3, 20)}</p>`)}${post(3, `<p>${prose(4, 25)}</p>`)}</div></noscript></body></html>`;
  const text = mainText(thread);
  for (const n of [1, 2, 3, 4]) assert.match(text, new RegExp(prose(n, 40).slice(0, 30)), `post text ${n}`);
  // A warning to turn scripts on stays out: short, and the page has its own text.
  const warned = mainText(
    `<html><body><article>${paragraphs(4)}</article><noscript><div><p>Please enable JavaScript to use this site.</p></div></noscript></body></html>`,
  );
  assert.doesNotMatch(warned, /enable JavaScript/);
});

test('an article is written once: a lead-marked box around the intro and the body, a copy in <noscript>, a teaser that repeats a paragraph', () => {
  const count = (text: string, needle: string) => text.split(needle).length - 1;
  // A box whose class says "intro" around the intro paragraphs and the body: taken whole, written once.
  const boxed = mainText(
    `<html><body>${nav}<main><h1>Data trends</h1><div class="body-intro"><p>${prose(1, 40)}</p><p>${prose(2, 30)}</p><div id="content">${paragraphs(5, 3)}</div></div></main></body></html>`,
  );
  for (const n of [1, 2, 3, 7]) assert.equal(count(boxed, prose(n, 20)), 1, `paragraph ${n} once: ${boxed}`);
  // The article rendered, and again in <noscript> for readers without scripts.
  const twice = mainText(`<html><body><article>${paragraphs(5)}</article><noscript>${paragraphs(5)}</noscript></body></html>`);
  assert.equal(count(twice, prose(2, 20)), 1, twice);
  // A teaser that repeats the article's first paragraph: the article's own copy stays, in its place.
  const teased = mainText(
    `<html><body><div class="cover"><p class="chapo">${prose(9, 30)}</p></div><div class="description"><p>${prose(9, 30)}</p>${paragraphs(4)}</div></body></html>`,
  );
  assert.equal(count(teased, prose(9, 30)), 1, teased);
  assert.ok(teased.indexOf(prose(9, 30)) < teased.indexOf(prose(0, 20)), 'it leads the article');
});

test('"read also" lines and appeals to the reader inside an article go; prose that names subscriptions stays', () => {
  const text = mainText(
    `<html><body>${nav}<article><h1>Looted art</h1><p>${prose(1, 40)}</p><p>Read more: <a href="/x">Looted colonial art</a></p><p>${prose(2, 40)}</p>` +
      `<p>Lesen Sie auch: <a href="/y">Kolonialverbrechen anerkennen</a></p><p>${prose(3, 40)}</p>` +
      `<p>Plans start at $5 with monthly subscriptions and a newsletter tool for up to 100 subscribers, which suits small shops well.</p>` +
      `<p>${prose(4, 40)}</p><p>To view the full story, please subscribe to The Daily.</p><p>This article is the copyrighted property of The Daily.</p></article></body></html>`,
  );
  assert.doesNotMatch(text, /Read more|Looted colonial art|Lesen Sie auch/);
  assert.doesNotMatch(text, /please subscribe|copyrighted property/);
  assert.match(text, /monthly subscriptions and a newsletter tool/);
  for (const n of [1, 2, 3, 4]) assert.match(text, new RegExp(prose(n, 40).slice(0, 30)));
  // A line that goes on in prose after its lead-in is the article's own.
  const kept = mainText(
    `<html><body><article>${paragraphs(3)}<p>See also how <a href="/z">the river</a> changed its course after the flood of 1910, which the town still remembers every spring.</p></article></body></html>`,
  );
  assert.match(kept, /See also how the river changed its course/);
});

test('a short first choice is made again with nothing set aside as furniture, and the longer text wins', () => {
  // The review sits in a section whose class says "ads": set aside as furniture, the page's best
  // container is its header (a headline and a teaser).
  const footer = `<footer><ul>${Array.from({ length: 150 }, (_, i) => `<li><a href="/c/${i}">Category number ${i}</a></li>`).join('')}</ul></footer>`;
  const html = `<html><body>${nav}<div class="page"><header><h1>The grill in the test</h1>
    <p class="teaser">The perfect steak from the discount grill, in short and with pictures.</p></header>
    <section class="report report--ads">${paragraphs(6, 3)}</section></div>${footer}</body></html>`;
  const reparse = () => parseDocument(html);
  const main = mainContentText(reparse(), { reparse });
  assert.equal(main.method, 'relaxed');
  assert.match(main.text, new RegExp(prose(3, 45).slice(0, 40)));
  assert.match(main.text, new RegExp(prose(8, 45).slice(0, 40)));
  assert.doesNotMatch(main.text, /Category number/);
  assert.equal(extractPage(html, 'https://a.test/review', { canonicalize: (u) => u, robotsToken: 'trawl' }).method, 'relaxed');
  // Without the second look: the header alone.
  const first = withContentRules({ retryChars: 0 }, () => mainContentText(reparse(), { reparse }));
  assert.notEqual(first.method, 'relaxed');
  assert.doesNotMatch(first.text, new RegExp(prose(3, 45).slice(0, 40)));
  // A first choice that is long enough is kept as it is, whatever a second look would find.
  const article = `<html><body>${nav}<article><h1>Rivers rise</h1>${paragraphs(6)}</article><div class="ads">${paragraphs(3, 20)}</div></body></html>`;
  const kept = mainContentText(parseDocument(article), { reparse: () => parseDocument(article) });
  assert.notEqual(kept.method, 'relaxed');
  assert.match(kept.text, new RegExp(prose(0, 45).slice(0, 40)));
  assert.doesNotMatch(kept.text, new RegExp(prose(20, 45).slice(0, 40)));
});
