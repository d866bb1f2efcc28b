import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseDocument, selectFirst } from '../../shared/extract/dom.js';
import { blockText, mainContentNodes } from '../../shared/extract/main-content.js';
import { isDateline } from '../../shared/extract/dateline.js';
import { prose } from '../web/pages.js';

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
